import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ExportSink, ExportStream, ExportedLine } from '../../engine/ports';
import { fsyncDirectory } from './atomicFile';
import { completeLength, lastCompleteLine } from './jsonlTail';

/** The export files in `.foreman/` (ARCHITECTURE §7). */
export const exportFileNames: Readonly<Record<ExportStream, string>> = {
  messages: 'bus.jsonl',
  transitions: 'transitions.jsonl',
};

/**
 * Incremental JSONL exports, appended and fsync'd. Every line carries a `seq` and, since issue 28,
 * the `store` it came from; the last complete line of the file is the truth about what was
 * exported, so a crash never duplicates lines.
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

  lastExported(stream: ExportStream): ExportedLine | undefined {
    const line = lastCompleteLine(this.fileOf(stream));
    if (line === undefined) return undefined;
    const last = exportedLineOf(line);
    if (!last) throw new Error(`The last line of ${this.fileOf(stream)} has no numeric "seq"; move the file aside to export afresh.`);
    return last;
  }
}

/** An export line's seq and store; undefined when it has no numeric seq (not an export line). */
export function exportedLineOf(line: string): ExportedLine | undefined {
  try {
    const parsed = JSON.parse(line) as { seq?: unknown; store?: unknown } | null;
    const seq = parsed?.seq;
    if (typeof seq !== 'number' || !Number.isSafeInteger(seq)) return undefined;
    return { seq, store: typeof parsed?.store === 'string' ? parsed.store : undefined };
  } catch {
    return undefined;
  }
}
