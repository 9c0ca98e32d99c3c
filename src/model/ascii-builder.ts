/**
 * ASCII text built as bytes: a report of a large dump lists millions of line numbers and
 * addresses, and writing their digits into one buffer, read back as one string, costs a fraction
 * of making a string for each and joining them. Text beyond ASCII is written as UTF-8 by `utf8`
 * (then read the bytes, not `take`).
 */
export class AsciiBuilder {
  private bytes = Buffer.allocUnsafe(1 << 12);
  private at = 0;

  /** Room for `n` more bytes. */
  private room(n: number): void {
    if (this.at + n <= this.bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.at + n));
    this.bytes.copy(grown, 0, 0, this.at);
    this.bytes = grown;
  }

  /** One character, given by its code (below 128). */
  char(code: number): void {
    this.room(1);
    this.bytes[this.at++] = code;
  }

  /** A string of ASCII characters. */
  ascii(text: string): void {
    this.room(text.length);
    // Copied by hand: the strings written here are a few characters each (a separator between
    // members), and a call into Buffer.write for each cost more than the copy.
    const { bytes } = this;
    let at = this.at;
    for (let i = 0; i < text.length; i++) bytes[at++] = text.charCodeAt(i);
    this.at = at;
  }

  /**
   * Bytes as they are, text encoded once beforehand: a separator written between hundreds of
   * thousands of members is copied whole, where a character at a time cost several times more.
   */
  copy(source: Uint8Array): void {
    this.room(source.length);
    this.bytes.set(source, this.at);
    this.at += source.length;
  }

  /**
   * Any text, UTF-8 encoded: the words and keys around the ASCII a JSON report writes here. A
   * short text is copied by hand while it is ASCII (a call into Buffer.write for each of a few
   * characters cost more than the copy).
   */
  utf8(text: string): void {
    const n = text.length;
    // A UTF-16 unit takes at most three bytes.
    this.room(n * 3);
    const { bytes } = this;
    if (n > SHORT_TEXT) {
      this.at += bytes.write(text, this.at);
      return;
    }
    let at = this.at;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0x80) {
        // The rest from a whole character on: what came before it is ASCII.
        this.at = at + bytes.write(i === 0 ? text : text.slice(i), at);
        return;
      }
      bytes[at++] = c;
    }
    this.at = at;
  }

  /**
   * Text as utf8 writes it, each line after the first indented by `pad` (ASCII): the text is
   * written, then its line ends are spread apart from the last, rather than a string made with the
   * indentation in.
   */
  indented(text: string, pad: string): void {
    const from = this.at;
    this.utf8(text);
    if (pad === '') return;
    let lineEnds = 0;
    for (let i = from; i < this.at; i++) if (this.bytes[i] === 0x0a) lineEnds++;
    if (lineEnds === 0) return;
    this.room(lineEnds * pad.length);
    const { bytes } = this;
    let source = this.at - 1;
    let target = (this.at += lineEnds * pad.length) - 1;
    while (target > source) {
      const c = bytes[source--]!;
      if (c === 0x0a) for (let j = pad.length - 1; j >= 0; j--) bytes[target--] = pad.charCodeAt(j);
      bytes[target--] = c;
    }
  }

  /** Drops what was written after the first `length` bytes since the last take. */
  truncate(length: number): void {
    if (length < this.at) this.at = length;
  }

  /** A whole number from 0 to 2^53 - 1, in decimal. */
  decimal(n: number): void {
    if (n < 1000) {
      this.room(3);
      this.small(n);
    } else if (n < 1e6) {
      // Line numbers, mostly: the thousands, then three digits.
      this.room(6);
      const high = Math.floor(n / 1000);
      this.small(high);
      this.threeDigits(n - high * 1000);
    } else {
      let digits = 7;
      for (let p = 1e7; p <= n; p *= 10) digits++;
      this.room(digits);
      let i = (this.at += digits);
      let rest = n;
      do {
        const q = Math.floor(rest / 10);
        this.bytes[--i] = 48 + (rest - q * 10);
        rest = q;
      } while (rest > 0);
    }
  }

  /** An IPv4 address held as a number (0 to 2^32 - 1), dotted. */
  ipv4(n: number): void {
    this.room(15);
    this.small(n >>> 24);
    this.bytes[this.at++] = 46; // .
    this.small((n >>> 16) & 0xff);
    this.bytes[this.at++] = 46;
    this.small((n >>> 8) & 0xff);
    this.bytes[this.at++] = 46;
    this.small(n & 0xff);
  }

  /**
   * A number below 1000 from its digits as written out once (see SMALL), room made: millions of
   * octets and line numbers are written, and dividing for each digit cost most of the writing.
   */
  private small(n: number): void {
    const { bytes } = this;
    const at = n * 4;
    const length = SMALL[at]!;
    bytes[this.at] = SMALL[at + 1]!;
    if (length > 1) bytes[this.at + 1] = SMALL[at + 2]!;
    if (length > 2) bytes[this.at + 2] = SMALL[at + 3]!;
    this.at += length;
  }

  /** A number below 1000 as three digits, zeros first; room made. */
  private threeDigits(n: number): void {
    const { bytes } = this;
    const at = n * 4;
    const length = SMALL[at]!;
    if (length < 3) bytes[this.at++] = 48;
    if (length < 2) bytes[this.at++] = 48;
    this.small(n);
  }

  /** How many bytes were written since the last take. */
  get length(): number {
    return this.at;
  }

  /**
   * The bytes written since the last take, taken: the builder starts again empty, and writes over
   * them when next written to (copy them to keep them).
   */
  takeBytes(): Uint8Array {
    const bytes = this.bytes.subarray(0, this.at);
    this.at = 0;
    return bytes;
  }

  /** The text built since the last take, taken: the builder starts again empty. */
  take(): string {
    const text = this.bytes.toString('latin1', 0, this.at);
    this.at = 0;
    return text;
  }
}

/** ASCII text as bytes, to be written by AsciiBuilder.copy. */
export function asciiBytes(text: string): Uint8Array {
  return Buffer.from(text, 'latin1');
}

/** Texts up to this long are copied by hand (see utf8). */
const SHORT_TEXT = 48;

/** Each number below 1000 in four bytes: how many digits it has, then the digits. */
const SMALL = new Uint8Array(4000);
for (let n = 0; n < 1000; n++) {
  const text = String(n);
  SMALL[n * 4] = text.length;
  for (let i = 0; i < text.length; i++) SMALL[n * 4 + 1 + i] = text.charCodeAt(i);
}
