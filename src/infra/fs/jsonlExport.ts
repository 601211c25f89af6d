import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ExportSink, ExportStream } from '../../engine/ports';
import { fsyncDirectory } from './atomicFile';

/** The export files in `.foreman/` (ARCHITECTURE §7). */
export const exportFileNames: Readonly<Record<ExportStream, string>> = {
  messages: 'bus.jsonl',
  transitions: 'transitions.jsonl',
};

const tailChunkBytes = 64 * 1024;

/**
 * Incremental JSONL exports, appended and fsync'd. Every line carries a `seq`; the last complete
 * line of the file is the truth about what was exported, so a crash never duplicates lines.
 */
export class JsonlExportSink implements ExportSink {
  constructor(private readonly foremanDir: string) {}

  fileOf(stream: ExportStream): string {
    return path.join(this.foremanDir, exportFileNames[stream]);
  }

  append(stream: ExportStream, lines: readonly string[], _lastSeq: number): void {
    if (lines.length === 0) return;
    const file = this.fileOf(stream);
    const created = !fs.existsSync(file);
    // Prompts and agent output end up here: private to this user, like everything in .foreman/.
    const fd = fs.openSync(file, 'a+', 0o600);
    try {
      // A crash mid-append leaves a partial last line; cut it so the new lines start clean.
      const size = fs.fstatSync(fd).size;
      const complete = completeLength(fd, size);
      if (complete < size) fs.ftruncateSync(fd, complete);
      fs.writeSync(fd, `${lines.join('\n')}\n`);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    if (created) fsyncDirectory(this.foremanDir);
  }

  lastExportedSeq(stream: ExportStream): number | undefined {
    let fd: number;
    try {
      fd = fs.openSync(this.fileOf(stream), 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    try {
      const end = completeLength(fd, fs.fstatSync(fd).size);
      if (end === 0) return undefined;
      const seq = seqOf(readLastLine(fd, end));
      if (seq === undefined) {
        throw new Error(`The last line of ${this.fileOf(stream)} has no numeric "seq"; move the file aside to export afresh.`);
      }
      return seq;
    } finally {
      fs.closeSync(fd);
    }
  }
}

function seqOf(line: string): number | undefined {
  try {
    const seq = (JSON.parse(line) as { seq?: unknown } | null)?.seq;
    return typeof seq === 'number' && Number.isSafeInteger(seq) ? seq : undefined;
  } catch {
    return undefined;
  }
}

/** The length of the file up to and including its last newline: everything after is a torn line. */
function completeLength(fd: number, size: number): number {
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
function readLastLine(fd: number, end: number): string {
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
