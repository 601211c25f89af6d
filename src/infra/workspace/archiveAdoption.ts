import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ArchiveState } from '../../engine/archiveChain';
import type { ExportStream } from '../../engine/ports';
import { FileArchiveSink, archiveDirName } from '../fs/archiveSegments';
import { surveyArchive } from '../fs/archiveSurvey';
import { JsonlExportSink, exportFileNames } from '../fs/jsonlExport';
import { createMovedAsideFolder, moveAside } from '../fs/movedAside';

/** What `init` found of an archive and exports in the folder, and what it did with them. */
export interface AdoptionReport {
  /** Segment files kept as this store's. */
  readonly adopted: number;
  /** The folder what was not this store's went to; null when nothing was moved. */
  readonly movedTo: string | null;
  /** What was moved, as paths inside `.foreman/` (`archive/000001.jsonl`, `transitions.jsonl`, …). */
  readonly moved: string[];
  /** What the check of the kept archive found (a missing segment…), each naming the file and what to do. */
  readonly problems: string[];
}

/** What the store records that decides whose the files are. */
export interface StoreRecord extends ArchiveState {
  readonly store: string;
  /** The last seq of each stream the store has exported; 0: none. */
  readonly exported: Readonly<Record<ExportStream, number>>;
}

/**
 * The archive and the exports belong to one store (issue 28). `init` keeps those that are this
 * store's (its id in their seals and lines; files from before identities when the store's record
 * reaches them) and checks the kept archive's chain; everything else (another store's, a new
 * store's predecessor's, a file where the archive folder goes, a segment past the recorded chain
 * that does not continue it) is moved aside into one dated folder, never deleted and never
 * appended to. The new store then starts its own chain and its own export files.
 */
export function adoptArchiveAndExports(foremanDir: string, record: StoreRecord, now: Date): AdoptionReport {
  const foreign: string[] = [];
  const archiveDir = path.join(foremanDir, archiveDirName);
  const archiveStat = fs.statSync(archiveDir, { throwIfNoEntry: false });
  const sink = new FileArchiveSink(foremanDir);
  let adopted = 0;
  let wholeArchive = false;
  if (archiveStat && !archiveStat.isDirectory()) {
    foreign.push(archiveDirName);
    wholeArchive = true;
  } else if (archiveStat) {
    const batches = sink.batches();
    const kept = batches.filter((batch) => isThisStores(sink, batch, record));
    adopted = kept.length;
    const others = batches.filter((batch) => !kept.includes(batch));
    // Nothing of this store's in it: the whole folder goes, with its index and anything else in it.
    wholeArchive = kept.length === 0 && others.length > 0;
    if (wholeArchive) foreign.push(archiveDirName);
    else foreign.push(...others.map((batch) => path.join(archiveDirName, path.basename(sink.fileOf(batch)))));
  }
  const exports = new JsonlExportSink(foremanDir);
  for (const stream of ['transitions', 'messages'] as const) {
    if (!isThisStoresExport(exports, stream, record)) foreign.push(exportFileNames[stream]);
  }
  let movedTo: string | null = null;
  if (foreign.length > 0) {
    const from = foreignStoreOf(sink, exports, foreign, record.store);
    movedTo = createMovedAsideFolder(
      foremanDir,
      {
        movedAt: now.toISOString(),
        by: 'foreman init',
        from,
        store: record.store,
        reason: `not this store's (${record.store}): another store's archive or exports, or ones past what this store recorded`,
      },
      now,
    );
    for (const item of foreign) moveAside(path.join(foremanDir, item), path.join(movedTo, item));
  }
  const problems = adopted > 0 ? surveyArchive(sink, record).problems : [];
  return { adopted, movedTo, moved: foreign, problems };
}

/**
 * A segment file is this store's when its seal names this store, or (sealed before seals named
 * their store, or unsealed) when the store's record reaches its number: a new store has recorded none.
 */
function isThisStores(sink: FileArchiveSink, batch: number, record: StoreRecord): boolean {
  const read = sink.read(batch);
  if (read.state === 'sealed' && read.end.store !== undefined) return read.end.store === record.store;
  return batch <= record.batch;
}

/** An export file is this store's when its last line names this store, or names none and the store has exported before. */
function isThisStoresExport(exports: JsonlExportSink, stream: ExportStream, record: StoreRecord): boolean {
  let tail;
  try {
    tail = exports.lastExported(stream);
  } catch {
    // Its last line is no export line: whoever wrote it, this store cannot append after it.
    return false;
  }
  if (tail === undefined) return true;
  return tail.store === record.store || (tail.store === undefined && record.exported[stream] > 0);
}

/** The store the moved files name, when they name one (the first found); null for files from before identities. */
function foreignStoreOf(sink: FileArchiveSink, exports: JsonlExportSink, moved: readonly string[], store: string): string | null {
  for (const stream of ['transitions', 'messages'] as const) {
    if (!moved.includes(exportFileNames[stream])) continue;
    try {
      const other = exports.lastExported(stream)?.store;
      if (other !== undefined && other !== store) return other;
    } catch {
      // Not an export line: it names no store.
    }
  }
  if (sink.problem() !== undefined) return null;
  for (const batch of sink.batches()) {
    const read = sink.read(batch);
    if (read.state === 'sealed' && read.end.store !== undefined && read.end.store !== store) return read.end.store;
  }
  return null;
}
