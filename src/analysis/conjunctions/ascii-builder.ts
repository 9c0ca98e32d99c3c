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
    let digits = 1;
    for (let p = 10; p <= n; p *= 10) digits++;
    this.room(digits);
    let i = (this.at += digits);
    let rest = n;
    do {
      const q = Math.floor(rest / 10);
      this.bytes[--i] = 48 + rest - q * 10;
      rest = q;
    } while (rest > 0);
  }

  /** An IPv4 address held as a number (0 to 2^32 - 1), dotted. */
  ipv4(n: number): void {
    this.decimal(n >>> 24);
    this.char(46);
    this.decimal((n >>> 16) & 0xff);
    this.char(46);
    this.decimal((n >>> 8) & 0xff);
    this.char(46);
    this.decimal(n & 0xff);
  }

  /** The text built since the last take, taken: the builder starts again empty. */
  take(): string {
    const text = this.bytes.toString('latin1', 0, this.at);
    this.at = 0;
    return text;
  }
}
