/**
 * ASCII text built as bytes: a report of a large dump lists millions of line numbers and
 * addresses, and writing their digits into one buffer, read back as one string, costs a fraction
 * of making a string for each and joining them.
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
    for (let i = 0; i < text.length; i++) bytes[this.at++] = text.charCodeAt(i);
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

/** Each number below 1000 in four bytes: how many digits it has, then the digits. */
const SMALL = new Uint8Array(4000);
for (let n = 0; n < 1000; n++) {
  const text = String(n);
  SMALL[n * 4] = text.length;
  for (let i = 0; i < text.length; i++) SMALL[n * 4 + 1 + i] = text.charCodeAt(i);
}
