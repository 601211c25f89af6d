import * as fs from 'node:fs';
import * as path from 'node:path';
import { type ArchiveIndexLine, archiveIndexLineSchema } from '../../core/archiveSegment';
import { fsyncDirectory, writeFileAtomic } from './atomicFile';
import { completeLength, lastCompleteLine } from './jsonlTail';

/** The index's file inside the archive folder: not a segment (`segmentFilePattern` does not match it). */
export const archiveIndexName = 'index.jsonl';

/**
 * `.foreman/archive/index.jsonl`: one line per segment, `{batch, store, hash, tasks}`, appended and
 * fsync'd once the segment is on disk and read back. A segment can go missing (deleted, not
 * restored from a backup); its line here is how `foreman history` still says which segment held a
 * task. Only ids: a million archived tasks make some 15 MB, read only when a task is not found.
 * A segment discarded before it was applied (its rows changed meanwhile) takes its line with it.
 */
export class ArchiveIndex {
  readonly file: string;

  constructor(private readonly dir: string) {
    this.file = path.join(dir, archiveIndexName);
  }

  /** Appends `entry` unless the last line already notes this segment (a recovery notes it again). */
  note(entry: ArchiveIndexLine): void {
    const last = parseLine(lastCompleteLine(this.file));
    if (last && last.batch === entry.batch && last.hash === entry.hash) return;
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const created = !fs.existsSync(this.file);
    const fd = fs.openSync(this.file, 'a+', 0o600);
    try {
      // A crash mid-append leaves a partial last line; cut it so the new line starts clean.
      const size = fs.fstatSync(fd).size;
      const complete = completeLength(fd, size);
      if (complete < size) fs.ftruncateSync(fd, complete);
      fs.writeSync(fd, `${JSON.stringify(entry)}\n`);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    if (created) fsyncDirectory(this.dir);
  }

  /** Drops the lines of segments `batch` and later (discarded before they were applied). */
  forgetFrom(batch: number): void {
    const text = this.text();
    if (text === undefined) return;
    const lines = text.split('\n').filter((line) => line !== '');
    const kept = lines.filter((line) => (parseLine(line)?.batch ?? 0) < batch);
    if (kept.length < lines.length) writeFileAtomic(this.file, kept.map((line) => `${line}\n`).join(''));
  }

  /** The lines that list task `id`, oldest first; none when there is no index. */
  segmentsOf(id: string): ArchiveIndexLine[] {
    const text = this.text();
    if (text === undefined) return [];
    const quoted = JSON.stringify(id);
    const found: ArchiveIndexLine[] = [];
    for (const line of text.split('\n')) {
      if (!line.includes(quoted)) continue;
      const entry = parseLine(line);
      if (entry?.tasks.includes(id)) found.push(entry);
    }
    return found;
  }

  private text(): string | undefined {
    try {
      return fs.readFileSync(this.file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw error;
    }
  }
}

function parseLine(line: string | undefined): ArchiveIndexLine | undefined {
  if (line === undefined) return undefined;
  try {
    const parsed = archiveIndexLineSchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
