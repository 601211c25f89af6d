import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { segmentFileName, segmentFilePattern } from '../../core/archiveSegment';
import type { ArchiveSink } from '../../engine/ports';
import { writeFileAtomic } from './atomicFile';

/** The archive's folder inside `.foreman/`. */
export const archiveDirName = 'archive';

/**
 * Retention's segments on disk (`.foreman/archive/000001.jsonl`, …): each written once, whole, to
 * a temp file that is fsync'd and renamed (a crash leaves the old directory or the whole segment),
 * sealed by an `end` line that counts its lines and carries their sha256, and read back before the
 * rows it holds may leave the database.
 */
export class FileArchiveSink implements ArchiveSink {
  readonly dir: string;

  constructor(foremanDir: string) {
    this.dir = path.join(foremanDir, archiveDirName);
  }

  write(batch: number, lines: readonly string[]): void {
    const file = path.join(this.dir, segmentFileName(batch));
    if (fs.existsSync(file)) throw new Error(`archive segment ${file} exists already; a segment is never written twice`);
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const body = lines.map((line) => `${line}\n`).join('');
    const end = JSON.stringify({ kind: 'end', batch, lines: lines.length, sha256: sha256(body) });
    writeFileAtomic(file, `${body}${end}\n`);
    const back = this.read(batch);
    if (!back || back.length !== lines.length || back.some((line, index) => line !== lines[index])) {
      throw new Error(`archive segment ${file} does not read back as written; nothing was archived`);
    }
  }

  read(batch: number): string[] | undefined {
    let text: string;
    try {
      text = fs.readFileSync(path.join(this.dir, segmentFileName(batch)), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    const lines = text.split('\n');
    if (lines.pop() !== '') return undefined;
    const endLine = lines.pop();
    const seal = endLine === undefined ? undefined : sealOf(endLine);
    const body = lines.map((line) => `${line}\n`).join('');
    if (!seal || seal.batch !== batch || seal.lines !== lines.length || seal.sha256 !== sha256(body)) return undefined;
    return lines;
  }

  lastBatch(): number {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
    return names.reduce((last, name) => Math.max(last, Number(segmentFilePattern.exec(name)?.[1] ?? 0)), 0);
  }

  /** The numbers of every segment on disk, in order. */
  batches(): number[] {
    if (!fs.existsSync(this.dir)) return [];
    return fs
      .readdirSync(this.dir)
      .map((name) => Number(segmentFilePattern.exec(name)?.[1] ?? 0))
      .filter((batch) => batch > 0)
      .sort((a, b) => a - b);
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function sealOf(line: string): { batch: number; lines: number; sha256: string } | undefined {
  try {
    const seal = JSON.parse(line) as { kind?: unknown; batch?: unknown; lines?: unknown; sha256?: unknown } | null;
    if (seal?.kind !== 'end' || typeof seal.batch !== 'number' || typeof seal.lines !== 'number' || typeof seal.sha256 !== 'string') {
      return undefined;
    }
    return { batch: seal.batch, lines: seal.lines, sha256: seal.sha256 };
  } catch {
    return undefined;
  }
}
