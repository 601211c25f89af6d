import * as fs from 'node:fs';

/** How much of a file's end is read at a time while looking for its last line. */
const tailChunkBytes = 64 * 1024;

/** The length of the file up to and including its last newline: everything after is a torn line. */
export function completeLength(fd: number, size: number): number {
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - tailChunkBytes);
    const chunk = Buffer.alloc(end - start);
    fs.readSync(fd, chunk, 0, chunk.length, start);
    const newline = chunk.lastIndexOf(0x0a);
    if (newline >= 0) return start + newline + 1;
    end = start;
  }
  return 0;
}

/** The last line before `end` (which sits just after a newline), read backwards in chunks. */
export function readLastLine(fd: number, end: number): string {
  const parts: Buffer[] = [];
  let position = end - 1;
  while (position > 0) {
    const start = Math.max(0, position - tailChunkBytes);
    const chunk = Buffer.alloc(position - start);
    fs.readSync(fd, chunk, 0, chunk.length, start);
    const newline = chunk.lastIndexOf(0x0a);
    if (newline >= 0) {
      parts.unshift(chunk.subarray(newline + 1));
      return Buffer.concat(parts).toString('utf8');
    }
    parts.unshift(chunk);
    position = start;
  }
  return Buffer.concat(parts).toString('utf8');
}

/** The last complete line of `file`; undefined when the file is missing or holds no complete line. */
export function lastCompleteLine(file: string): string | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const end = completeLength(fd, fs.fstatSync(fd).size);
    return end === 0 ? undefined : readLastLine(fd, end);
  } finally {
    fs.closeSync(fd);
  }
}
