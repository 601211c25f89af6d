import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { segmentFileName, segmentFilePattern } from '../../core/archiveSegment';
import type { ArchiveSink } from '../../engine/ports';
import { fsyncDirectory, writeFileAtomic } from './atomicFile';

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
    const file = this.fileFor(batch);
    writeFileAtomic(file, segmentText(batch, lines));
    this.assertReadsBack(batch, lines);
  }

  /**
   * As `write`, with every write, fsync and the read-back on the thread pool; false when another
   * call wrote segment `batch` meanwhile (that one stands).
   */
  async writeInBackground(batch: number, lines: readonly string[]): Promise<boolean> {
    const file = this.fileFor(batch);
    const temp = path.join(this.dir, `.${path.basename(file)}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
    const handle = await fsp.open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(segmentText(batch, lines), 'utf8');
      await handle.sync();
    } catch (error) {
      await handle.close();
      await fsp.rm(temp, { force: true });
      throw error;
    }
    await handle.close();
    // A link, not a rename: it never replaces a segment another call wrote meanwhile.
    try {
      await fsp.link(temp, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    } finally {
      await fsp.rm(temp, { force: true });
    }
    const folder = await fsp.open(this.dir, 'r');
    try {
      await folder.sync();
    } finally {
      await folder.close();
    }
    this.assertReadsBack(batch, lines, await fsp.readFile(file, 'utf8'));
    return true;
  }

  discardFrom(batch: number): void {
    for (const found of this.batches()) if (found >= batch) fs.rmSync(path.join(this.dir, segmentFileName(found)), { force: true });
    fsyncDirectory(this.dir);
  }

  /** Where segment `batch` goes; throws if it exists (a segment is never written twice). */
  private fileFor(batch: number): string {
    const file = path.join(this.dir, segmentFileName(batch));
    if (fs.existsSync(file)) throw new Error(`archive segment ${file} exists already; a segment is never written twice`);
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    return file;
  }

  private assertReadsBack(batch: number, lines: readonly string[], text?: string): void {
    const back = text === undefined ? this.read(batch) : linesOf(batch, text);
    if (!back || back.length !== lines.length || back.some((line, index) => line !== lines[index])) {
      throw new Error(`archive segment ${path.join(this.dir, segmentFileName(batch))} does not read back as written; nothing was archived`);
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
    return linesOf(batch, text);
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

/** A segment's text: its lines, then the `end` line that seals them. */
function segmentText(batch: number, lines: readonly string[]): string {
  const body = lines.map((line) => `${line}\n`).join('');
  const end = JSON.stringify({ kind: 'end', batch, lines: lines.length, sha256: sha256(body) });
  return `${body}${end}\n`;
}

/** The lines of a sealed segment's text, without its `end` line; undefined when the seal does not hold. */
function linesOf(batch: number, text: string): string[] | undefined {
  const lines = text.split('\n');
  if (lines.pop() !== '') return undefined;
  const endLine = lines.pop();
  const seal = endLine === undefined ? undefined : sealOf(endLine);
  const body = lines.map((line) => `${line}\n`).join('');
  if (!seal || seal.batch !== batch || seal.lines !== lines.length || seal.sha256 !== sha256(body)) return undefined;
  return lines;
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
