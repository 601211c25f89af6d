/**
 * The journals of a store folder, read on demand and merged by seq, for the loader (storeLoader.ts).
 */
import * as fs from 'node:fs';
import { scanJournal } from './journalFormat';
import type { JournalRecord, JournalScan, StatementTable } from './journalFormat';
import { StoreError } from './storeError';
import { journalName, nextJournalName } from './storeFiles';
import type { GenerationFile } from './storeFiles';

interface ScannedJournal {
  readonly file: GenerationFile;
  readonly scan: JournalScan;
}

/** Every intact record of every journal, by seq. Two different records with one seq are damage. */
function mergeRecords(journals: readonly ScannedJournal[], dir: string): JournalRecord[] {
  const bySeq = new Map<number, { record: JournalRecord; name: string }>();
  for (const { file, scan } of journals) {
    for (const record of scan.records) {
      const existing = bySeq.get(record.seq);
      if (!existing) bySeq.set(record.seq, { record, name: file.name });
      else if (JSON.stringify(existing.record.stmts) !== JSON.stringify(record.stmts)) {
        throw new StoreError(
          'damaged',
          `${existing.name} and ${file.name} in ${dir} hold two different records with seq ${record.seq}; ` +
            'the journals are inconsistent. Nothing was changed: move the .foreman folder aside or restore a backup of it.',
        );
      }
    }
  }
  return [...bySeq.values()].map((entry) => entry.record).sort((a, b) => a.seq - b.seq);
}

function describeDamage(journals: readonly ScannedJournal[]): string {
  const damaged = journals.flatMap(({ file, scan }) =>
    scan.damage.map((region) => `${file.name} has ${region.length} unreadable bytes at byte offset ${region.offset}`),
  );
  return damaged.length ? ` (${damaged.join('; ')})` : '';
}

/** The records of a choice of journals, and what was wrong with those journals. */
export interface JournalView {
  readonly records: JournalRecord[];
  /** Empty, or a parenthesised list of unreadable regions. */
  readonly damage: string;
}

/**
 * Reads journals on demand. Opening `foreman.db` normally needs only the current journal: every
 * older journal was rotated out by a checkpoint whose image (now `foreman.db` or older) includes all
 * of it. Older journals are read only for an older image, or when the current one does not reach
 * back to `foreman.db`, so a clean open does not parse megabytes of history.
 */
export class JournalSet {
  private readonly scans = new Map<GenerationFile, ScannedJournal>();

  constructor(
    private readonly files: readonly GenerationFile[],
    private readonly dir: string,
    private readonly log: (line: string) => void,
  ) {}

  view(all: boolean): JournalView {
    const journals = this.files.filter((file) => all || file.generation === 0).map((file) => this.scan(file));
    return { records: mergeRecords(journals, this.dir), damage: describeDamage(journals) };
  }

  /** Where the current journal's intact records end, if a torn tail follows them. */
  get currentValidBytes(): number | undefined {
    const current = this.current;
    return current?.scan.tornTail ? current.scan.validBytes : undefined;
  }

  /** The records of the current journal; 0 if it was not read. */
  get currentRecords(): number {
    return this.current?.scan.records.length ?? 0;
  }

  /** The current journal's statement table; undefined if it was not read. */
  get currentTable(): StatementTable | undefined {
    return this.current?.scan.table;
  }

  /** Where the current journal's intact records end, torn tail or not; undefined if it was not read. */
  get currentReadBytes(): number | undefined {
    return this.current?.scan.validBytes;
  }

  /**
   * The segment appends go on to: `foreman.journal.next` once it holds anything (a checkpoint had
   * rotated to it), else `foreman.journal`. Only it can end in a torn record: the other was fsync'd
   * whole before the rotation.
   */
  get activeName(): typeof journalName | typeof nextJournalName {
    const next = [...this.scans.values()].find((journal) => journal.file.name === nextJournalName);
    // A segment holding only its header (journalFormat.ts) was prepared, and nothing was written to it.
    return next && (next.scan.records.length > 0 || next.scan.damage.length > 0 || next.scan.tornTail) ? nextJournalName : journalName;
  }

  private get current(): ScannedJournal | undefined {
    const active = this.activeName;
    return [...this.scans.values()].find((journal) => journal.file.name === active);
  }

  /**
   * Notes on torn tails, logged only once the load has succeeded: a torn last record is "never
   * acknowledged" only when the records before it reach the acknowledged mark (see ackFile.ts).
   */
  logTornTails(): void {
    for (const { file, scan } of this.scans.values()) {
      const torn = scan.tornTail;
      if (!torn) continue;
      this.log(
        `${file.name}: ignoring an incomplete last record at byte offset ${torn.offset} (${torn.length} bytes), ` +
          'left by an append that was interrupted and never acknowledged.',
      );
    }
  }

  /** What a person should know about the current journal when writes are missing. */
  describeCurrent(): string {
    const file = this.files.find((candidate) => candidate.name === journalName);
    if (!file) return `${journalName} is missing`;
    const { scan } = this.scan(file);
    if (scan.validBytes === 0 && !scan.tornTail) return `${journalName} is empty`;
    const last = scan.records.at(-1)?.seq;
    const held = last === undefined ? 'holds no intact record' : `ends at seq ${last}`;
    const torn = scan.tornTail ? `, followed by ${scan.tornTail.length} unreadable bytes at byte offset ${scan.tornTail.offset}` : '';
    return `${journalName} ${held}${torn}`;
  }

  private scan(file: GenerationFile): ScannedJournal {
    let scanned = this.scans.get(file);
    if (!scanned) {
      scanned = { file, scan: scanJournal(fs.readFileSync(file.path)) };
      this.scans.set(file, scanned);
    }
    return scanned;
  }
}
