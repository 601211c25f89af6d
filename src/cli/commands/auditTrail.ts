/**
 * The whole audit trail in seq order, read a piece at a time: the archive's segments, the live log
 * and an export file. Months of a crew's history run to millions of transitions, more than a CLI
 * call can hold as one text, so each source is read forward from a cursor and merged by seq; a
 * segment is loaded only once the merge reaches its first seq and dropped once read.
 */
import * as fs from 'node:fs';
import * as readline from 'node:readline';

/** One transition: its seq, the parsed event, and its line in one spelling (`JSON.stringify` of the event). */
export interface TrailEntry {
  readonly seq: number;
  readonly event: object;
  readonly line: string;
}

/** A source in seq order, read forward. */
export interface TrailCursor {
  /** The next entry; undefined once the source is done. */
  readonly head: TrailEntry | undefined;
  advance(): Promise<void>;
}

/** A source whose first seq is known before it is read (an archive segment): opened when the merge gets there. */
export interface PendingSource {
  readonly firstSeq: number;
  open(): Promise<TrailCursor>;
}

/**
 * The entries of every source in seq order. A seq found in two sources (a segment a crash left
 * unapplied, whose rows are still live; the export file given beside the archive) comes out once
 * when both copies agree, and is an error when they differ.
 */
export async function* mergeBySeq(cursors: readonly TrailCursor[], pending: readonly PendingSource[]): AsyncGenerator<TrailEntry> {
  const waiting = [...pending].sort((a, b) => a.firstSeq - b.firstSeq);
  const active = cursors.filter((cursor) => cursor.head !== undefined);
  let next = 0;
  let last: TrailEntry | undefined;
  for (;;) {
    let lowest = lowestOf(active);
    // Opens every segment that starts at or before the lowest head: one of its entries may come first.
    for (let source = waiting[next]; source && (lowest?.head === undefined || source.firstSeq <= lowest.head.seq); source = waiting[next]) {
      next++;
      const opened = await source.open();
      if (opened.head !== undefined) active.push(opened);
      lowest = lowestOf(active);
    }
    const entry = lowest?.head;
    if (!lowest || !entry) return;
    await lowest.advance();
    if (lowest.head === undefined) active.splice(active.indexOf(lowest), 1);
    if (last?.seq === entry.seq) {
      if (last.line !== entry.line) throw new Error(`seq ${entry.seq} differs between two sources`);
      continue;
    }
    last = entry;
    yield entry;
  }
}

/** Few sources are open at once (the live log, a file, the segments that overlap): a scan is enough. */
function lowestOf(cursors: readonly TrailCursor[]): TrailCursor | undefined {
  let lowest: TrailCursor | undefined;
  for (const cursor of cursors) if (cursor.head && (!lowest?.head || cursor.head.seq < lowest.head.seq)) lowest = cursor;
  return lowest;
}

/** Entries already in memory (one segment's transitions), sorted here. */
export function arrayCursor(entries: TrailEntry[]): TrailCursor {
  entries.sort((a, b) => a.seq - b.seq);
  let index = 0;
  return {
    get head() {
      return entries[index];
    },
    advance: () => {
      index++;
      return Promise.resolve();
    },
  };
}

/** Pages read on demand: `page(afterSeq)` returns the entries after it in seq order, none at the end. */
export async function pagedCursor(page: (afterSeq: number) => Promise<TrailEntry[]>): Promise<TrailCursor> {
  let entries = await page(0);
  let index = 0;
  return {
    get head() {
      return entries[index];
    },
    async advance() {
      const was = entries[index];
      index++;
      if (index < entries.length || !was) return;
      entries = await page(was.seq);
      index = 0;
    },
  };
}

/** A JSONL file of transitions (an export), read a line at a time; blank lines are skipped. */
export async function fileCursor(file: string, label = file): Promise<TrailCursor> {
  const lines = readline.createInterface({ input: fs.createReadStream(file, 'utf8'), crlfDelay: Infinity })[Symbol.asyncIterator]();
  let head: TrailEntry | undefined;
  let lineNumber = 0;
  const advance = async (): Promise<void> => {
    for (;;) {
      const next = await lines.next();
      if (next.done) {
        head = undefined;
        return;
      }
      lineNumber++;
      if (next.value.trim() === '') continue;
      head = entryOf(next.value, `${label}:${lineNumber}`);
      return;
    }
  };
  await advance();
  return {
    get head() {
      return head;
    },
    advance,
  };
}

/** A transition line in the trail's one spelling; throws, naming `where`, when it has no numeric seq to merge by. */
function entryOf(raw: string, where: string): TrailEntry {
  let parsed: { seq?: unknown } | null;
  try {
    parsed = JSON.parse(raw) as { seq?: unknown } | null;
  } catch {
    throw new Error(`${where}: not valid JSON`);
  }
  if (typeof parsed?.seq !== 'number') throw new Error(`${where}: a transition line has no numeric seq`);
  // The store an export line names (issue 28) is checked by the checker; the merge compares the event alone.
  const event: Record<string, unknown> = { ...parsed };
  delete event['store'];
  return { seq: parsed.seq, event: parsed, line: JSON.stringify(event) };
}
