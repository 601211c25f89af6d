/**
 * Splits a byte stream into newline-terminated lines without ever holding more than `maxBytes`
 * of an unfinished line: a peer cannot make the reader buffer without bound.
 */
export class LineBuffer {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** Whether part of a line has come without its newline yet. */
  get holdsPartialLine(): boolean {
    return this.pendingBytes > 0;
  }

  /** The complete lines in `chunk`; `overflow` once a line grows past the limit (later data is not read). */
  push(chunk: Buffer): { lines: string[]; overflow: boolean } {
    const lines: string[] = [];
    let start = 0;
    for (let newline = chunk.indexOf(0x0a); newline >= 0; newline = chunk.indexOf(0x0a, start)) {
      const piece = chunk.subarray(start, newline);
      if (this.pendingBytes + piece.length > this.maxBytes) return { lines, overflow: true };
      lines.push(Buffer.concat([...this.pending, piece]).toString('utf8'));
      this.pending = [];
      this.pendingBytes = 0;
      start = newline + 1;
    }
    const rest = chunk.subarray(start);
    if (this.pendingBytes + rest.length > this.maxBytes) return { lines, overflow: true };
    if (rest.length > 0) {
      this.pending.push(rest);
      this.pendingBytes += rest.length;
    }
    return { lines, overflow: false };
  }
}
