/**
 * What the archive holds of one task or worker, for `foreman history`: this store's segments
 * (checked against the chain the store records, so a missing segment is named, not passed over),
 * the index that says which segment held a task, and the folders `foreman init` moved another
 * store's archive and exports into (issue 28). Only the lines that spell the id are parsed: a
 * months-long archive is mostly other tasks' lines.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { type ArchiveLine, archiveLineSchema } from '../../core/archiveSegment';
import { describeIssues } from '../../core/zodIssues';
import { type TransitionEvent, transitionEventSchema } from '../../core/transitionLog';
import type { ArchiveState } from '../../engine/archiveChain';
import type { Printer } from '../format';
import { exportFileNames, FileArchiveSink, type MovedAsideFolder, movedAsideFolders, surveyArchive } from '../../host/infraParts';

/** An archived task as its segment's `task` line holds it: the columns a person looks for. */
export interface ArchivedTask {
  readonly id: string;
  readonly title: string;
  readonly status: string;
  readonly finishedAt: string | null;
  readonly segment: number;
}

export interface Archived {
  readonly task: ArchivedTask | undefined;
  readonly transitions: TransitionEvent[];
  /** Recorded segments whose lines could not be read (missing, unsealed, another store's). */
  readonly unavailable: number[];
  /** The segment files, for messages. */
  readonly sink: FileArchiveSink;
}

/** Scans segment lines for `id`, keeping its task line and its transitions. */
class IdScanner {
  task: ArchivedTask | undefined;
  readonly transitions: TransitionEvent[] = [];
  private readonly quoted: string;

  constructor(private readonly id: string) {
    this.quoted = JSON.stringify(id);
  }

  scan(batch: number, where: string, lines: readonly string[]): void {
    for (const line of lines) {
      if (!line.includes(this.quoted)) continue;
      const parsed = archiveLineSchema.safeParse(JSON.parse(line));
      if (!parsed.success)
        throw new Error(`archive segment ${batch} in ${where}: a line naming '${this.id}' ${describeIssues(parsed.error, 'line')}`);
      const row = parsed.data;
      if (row.kind === 'task' && row.id === this.id) this.task = archivedTask(row, batch);
      // The schema without `kind` strips it: the event as `transitions` prints it.
      else if (row.kind === 'transition' && row.entity_id === this.id) this.transitions.push(transitionEventSchema.parse(row));
    }
  }

  get found(): boolean {
    return this.task !== undefined || this.transitions.length > 0;
  }
}

/** Everything this store's archive holds of `id`, each usable segment read once, with a progress line every 2 s. */
export function readArchive(foremanDir: string, state: ArchiveState, id: string, printer: Printer): Archived {
  const sink = new FileArchiveSink(foremanDir);
  const scanner = new IdScanner(id);
  let shownAt = Date.now();
  let read = 0;
  const survey = surveyArchive(sink, state, (batch, lines) => {
    if (Date.now() - shownAt >= 2_000) {
      shownAt = Date.now();
      printer.err(`history: ${read} archive segments read…`);
    }
    read++;
    scanner.scan(batch, sink.dir, lines);
  });
  return { task: scanner.task, transitions: scanner.transitions, unavailable: survey.unavailable, sink };
}

/** The unavailable segment the index says held task `id`, if any. */
export function indexedUnavailableSegment(archived: Archived, state: ArchiveState, id: string): number | undefined {
  const unavailable = new Set(archived.unavailable);
  return archived.sink
    .indexedSegmentsOf(id)
    .filter((entry) => entry.store === state.store && unavailable.has(entry.batch))
    .at(-1)?.batch;
}

/** What a folder `foreman init` moved aside holds of `id`: its segments, then its transitions export. */
export interface MovedAsideFind {
  readonly folder: MovedAsideFolder;
  readonly task: ArchivedTask | undefined;
  readonly transitions: TransitionEvent[];
}

export async function findInMovedAside(foremanDir: string, id: string): Promise<MovedAsideFind | undefined> {
  for (const folder of movedAsideFolders(foremanDir)) {
    const sink = new FileArchiveSink(folder.dir);
    const scanner = new IdScanner(id);
    for (const batch of sink.batches()) {
      const segment = sink.read(batch);
      if (segment.state === 'sealed') scanner.scan(batch, sink.dir, segment.lines);
    }
    const exported = await exportedTransitionsOf(path.join(folder.dir, exportFileNames.transitions), id);
    const bySeq = new Map([...scanner.transitions, ...exported].map((event) => [event.seq, event]));
    const transitions = [...bySeq.values()].sort((a, b) => a.seq - b.seq);
    if (scanner.task || transitions.length > 0) return { folder, task: scanner.task, transitions };
  }
  return undefined;
}

/** The transitions of `id` in an export file, read a line at a time; none when there is no file. */
async function exportedTransitionsOf(file: string, id: string): Promise<TransitionEvent[]> {
  if (!fs.existsSync(file)) return [];
  const quoted = JSON.stringify(id);
  const found: TransitionEvent[] = [];
  const lines = readline.createInterface({ input: fs.createReadStream(file, 'utf8'), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.includes(quoted)) continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      continue;
    }
    const parsed = transitionEventSchema.safeParse(json);
    if (parsed.success && parsed.data.entity_id === id) found.push(parsed.data);
  }
  return found;
}

function archivedTask(row: Extract<ArchiveLine, { kind: 'task' }>, segment: number): ArchivedTask {
  const title = typeof row['title'] === 'string' ? row['title'] : '';
  const finished = typeof row['finished_at'] === 'number' ? new Date(row['finished_at']).toISOString() : null;
  return { id: row.id, title, status: row.status, finishedAt: finished, segment };
}
