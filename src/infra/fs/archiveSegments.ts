import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { type SegmentDraft, type SegmentRead, segmentEndSchema, segmentFileName, segmentFilePattern } from '../../core/archiveSegment';
import type { ArchiveSink } from '../../engine/ports';
import { ArchiveIndex } from './archiveIndex';
import { fsyncDirectory, writeFileAtomic } from './atomicFile';

/** The archive's folder inside `.foreman/`. */
export const archiveDirName = 'archive';

/** The archive folder cannot be used (a file stands in its place): what is wrong and what to do. */
export class ArchiveFolderError extends Error {
  constructor(readonly folder: string) {
    super(
      `${folder} is not a folder: Foreman keeps its archive segments there. Move that file aside (for example \`mv ${folder} ${folder}.file\`) and run again; a new archive folder is made for the next segment`,
    );
  }
}

/**
 * Retention's segments on disk (`.foreman/archive/000001.jsonl`, …): each written once, whole, to
 * a temp file that is fsync'd and renamed (a crash leaves the old directory or the whole segment),
 * sealed by an `end` line that counts its lines, carries their sha256, names its store and seals
 * the previous segment's hash (a chain: core/archiveSegment.ts), and read back before the rows it
 * holds may leave the database. Beside them, `index.jsonl` says which tasks each segment holds.
 */
export class FileArchiveSink implements ArchiveSink {
  readonly dir: string;
  private readonly tasksIndex: ArchiveIndex;

  /** `foremanDir`: the `.foreman/` folder (or a folder laid out as one, such as one `init` moved aside). */
  constructor(foremanDir: string) {
    this.dir = path.join(foremanDir, archiveDirName);
    this.tasksIndex = new ArchiveIndex(this.dir);
  }

  write(draft: SegmentDraft): string {
    const file = this.fileFor(draft.batch);
    const text = segmentText(draft);
    writeFileAtomic(file, text);
    const hash = this.assertReadsBack(draft);
    this.tasksIndex.note({ batch: draft.batch, store: draft.store, hash, tasks: [...draft.tasks] });
    return hash;
  }

  /**
   * As `write`, with every write, fsync and the read-back on the thread pool; false when another
   * call wrote segment `batch` meanwhile (that one stands).
   */
  async writeInBackground(draft: SegmentDraft): Promise<string | false> {
    const file = this.fileFor(draft.batch);
    const temp = path.join(this.dir, `.${path.basename(file)}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
    const handle = await fsp.open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(segmentText(draft), 'utf8');
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
    const hash = this.assertReadsBack(draft, await fsp.readFile(file, 'utf8'));
    // No await from the check to the append: the index is noted once, whoever applies first.
    this.tasksIndex.note({ batch: draft.batch, store: draft.store, hash, tasks: [...draft.tasks] });
    return hash;
  }

  discard(batch: number): void {
    this.tasksIndex.forgetFrom(batch);
    fs.rmSync(this.fileOf(batch), { force: true });
    fsyncDirectory(this.dir);
  }

  index(batch: number, store: string, hash: string, tasks: readonly string[]): void {
    this.tasksIndex.note({ batch, store, hash, tasks: [...tasks] });
  }

  /** The index's lines that name task `id`, oldest first. */
  indexedSegmentsOf(id: string): ReturnType<ArchiveIndex['segmentsOf']> {
    return this.tasksIndex.segmentsOf(id);
  }

  fileOf(batch: number): string {
    return path.join(this.dir, segmentFileName(batch));
  }

  problem(): string | undefined {
    try {
      return fs.statSync(this.dir).isDirectory() ? undefined : new ArchiveFolderError(this.dir).message;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return undefined;
      return `${this.dir} cannot be read (${code ?? String(error)}); make it a folder Foreman can read and write, and run again`;
    }
  }

  /** Where segment `batch` goes; throws if it exists (a segment is never written twice). */
  private fileFor(batch: number): string {
    const file = this.fileOf(batch);
    if (fs.existsSync(file)) throw new Error(`archive segment ${file} exists already; a segment is never written twice`);
    this.assertFolder();
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    return file;
  }

  /** The segment reads back as drafted: its hash. */
  private assertReadsBack(draft: SegmentDraft, text?: string): string {
    const back = text === undefined ? this.read(draft.batch) : segmentOf(text);
    if (
      back.state !== 'sealed' ||
      back.end.batch !== draft.batch ||
      back.lines.length !== draft.lines.length ||
      back.lines.some((line, index) => line !== draft.lines[index])
    ) {
      throw new Error(`archive segment ${this.fileOf(draft.batch)} does not read back as written; nothing was archived`);
    }
    return back.hash;
  }

  read(batch: number): SegmentRead {
    let text: string;
    try {
      text = fs.readFileSync(this.fileOf(batch), 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return { state: 'missing' };
      if (code === 'ENOTDIR') throw new ArchiveFolderError(this.dir);
      throw error;
    }
    return segmentOf(text);
  }

  /** The numbers of every segment file on disk, in order. */
  batches(): number[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return [];
      if (code === 'ENOTDIR') throw new ArchiveFolderError(this.dir);
      throw error;
    }
    return names
      .map((name) => Number(segmentFilePattern.exec(name)?.[1] ?? 0))
      .filter((batch) => batch > 0)
      .sort((a, b) => a - b);
  }

  /** The highest batch with a segment file, 0 when there is none. */
  lastBatch(): number {
    return this.batches().at(-1) ?? 0;
  }

  private assertFolder(): void {
    if (fs.existsSync(this.dir) && !fs.statSync(this.dir).isDirectory()) throw new ArchiveFolderError(this.dir);
  }
}

/** A segment's text: its lines, then the `end` line that seals them. */
function segmentText(draft: SegmentDraft): string {
  const body = draft.lines.map((line) => `${line}\n`).join('');
  const end = JSON.stringify({
    kind: 'end',
    batch: draft.batch,
    lines: draft.lines.length,
    sha256: sha256(body),
    store: draft.store,
    previous: draft.previous,
    first_seq: draft.firstSeq,
  });
  return `${body}${end}\n`;
}

/** A segment file's text read back: sealed when its `end` line holds for the lines before it. */
function segmentOf(text: string): SegmentRead {
  const lines = text.split('\n');
  if (lines.pop() !== '') return { state: 'unsealed' };
  const endLine = lines.pop();
  const end = endLine === undefined ? undefined : sealOf(endLine);
  const body = lines.map((line) => `${line}\n`).join('');
  if (!end || end.lines !== lines.length || end.sha256 !== sha256(body)) return { state: 'unsealed' };
  return { state: 'sealed', lines, end, hash: sha256(text) };
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function sealOf(line: string): ReturnType<typeof segmentEndSchema.parse> | undefined {
  try {
    const parsed = segmentEndSchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
