/**
 * The framing of a tar stream followed as its bytes pass, ahead of the tar reader: where each
 * header is, what size it announces, and where the archive ends. The reader (tar-stream) reads
 * on past the end-of-archive block and decodes every zero block after it as a header, so a
 * stream of zeros behind one header would cost it a decode per 512 bytes; tar itself stops at
 * the first zero block where a header is due, and so does this.
 */

const BLOCK = 512;
const SIZE_AT = 124;
const SIZE_LENGTH = 12;

/** The size a header announces: octal digits, or base-256 when the first byte's high bit is set. */
function announcedSize(header: Buffer): number {
  const field = header.subarray(SIZE_AT, SIZE_AT + SIZE_LENGTH);
  if ((field[0]! & 0x80) !== 0) {
    let n = field[0]! & 0x7f;
    for (let i = 1; i < field.length; i++) n = n * 256 + field[i]!;
    return n;
  }
  const digits = /^[ \0]*([0-7]*)/.exec(field.toString('latin1'))![1]!;
  return digits === '' ? 0 : parseInt(digits, 8);
}

function isZero(block: Buffer): boolean {
  for (let i = 0; i < block.length; i++) if (block[i] !== 0) return false;
  return true;
}

export class TarFrames {
  /** Bytes of entry data, padded to a block, still to pass before the next header. */
  private dataLeft = 0;
  /** A header split across chunks. */
  private readonly header = Buffer.alloc(BLOCK);
  private headerHave = 0;
  /** Bytes passed. */
  private offset = 0;
  /** Headers passed, long-name and pax headers included. */
  headers = 0;
  /** How far the archive reaches, by what the last header announced: what reading it to its end costs at least. */
  reach = 0;
  /** Set once the end-of-archive block has passed. */
  ended = false;

  /** The part of the chunk that belongs to the archive: all of it, unless the archive ends inside it. */
  pass(chunk: Buffer): Buffer {
    let at = 0;
    while (at < chunk.length && !this.ended) {
      if (this.dataLeft > 0) {
        const n = Math.min(this.dataLeft, chunk.length - at);
        this.dataLeft -= n;
        at += n;
        continue;
      }
      const n = Math.min(BLOCK - this.headerHave, chunk.length - at);
      chunk.copy(this.header, this.headerHave, at, at + n);
      this.headerHave += n;
      at += n;
      if (this.headerHave < BLOCK) break;
      this.headerHave = 0;
      if (isZero(this.header)) {
        this.ended = true;
        this.offset += at;
        return chunk.subarray(0, at);
      }
      this.headers++;
      this.dataLeft = Math.ceil(announcedSize(this.header) / BLOCK) * BLOCK;
      this.reach = this.offset + at + this.dataLeft;
    }
    this.offset += chunk.length;
    return chunk;
  }
}
