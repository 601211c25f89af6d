/**
 * The fsyncs of a store's journal and the acknowledged mark that follows each: the mark names a
 * record only once an fsync covering it has returned. A failed fsync leaves the store broken, and
 * whoever waits on it hears `outcomeUnknown` (journal.ts `JournalSyncFailed` says why).
 */
import { JournalSyncFailed } from './journal';
import { type Disk, outcomeUnknown } from './storeDisk';
import { StoreError } from './storeError';

/** What syncing needs from its store. */
export interface SyncHost {
  /** False once the store is broken or closed: an fsync returning then raises no mark. */
  readonly open: () => boolean;
  /** Why the store broke; empty while it is open, or once it closed. */
  readonly brokenBecause: () => string;
  readonly markBroken: (reason: string) => void;
  readonly log: (line: string) => void;
}

/** Makes every appended record durable, then says so in foreman.ack, up to `seq` (the last appended). */
export function syncJournal(disk: Disk, seq: number, host: SyncHost): void {
  try {
    disk.journal.sync();
  } catch (error) {
    if (!(error instanceof JournalSyncFailed)) throw error;
    host.markBroken(error.message);
    throw outcomeUnknown(error);
  }
  raiseAck(disk, seq, host.log);
}

/**
 * The group's fsync (groupSave.ts), on the thread pool (issue 34). Its writes are committed in memory
 * and written to the journal, up to `seq` (later ones wait for the next save); the mark rises to
 * `seq` only once it returns. When the fsync fails (or the store broke or closed before it) they may
 * be on disk or not: the waiters hear `outcomeUnknown`, never "not done".
 */
export function saveGroup(disk: Disk | undefined, seq: number, host: SyncHost): Promise<void> {
  if (!host.open() || !disk) {
    throw new StoreError(
      'outcomeUnknown',
      `Foreman cannot tell whether the last changes were saved (${host.brokenBecause() || 'the store closed before saving them'}). ` +
        'They may or may not be recorded; look (foreman status, foreman history <id>) before repeating them.',
    );
  }
  const saving = disk.journal.syncAsync().then(
    () => {
      if (host.open()) raiseAck(disk, seq, host.log);
    },
    (error: unknown) => {
      if (!(error instanceof JournalSyncFailed)) throw error;
      host.markBroken(error.message);
      throw outcomeUnknown(error);
    },
  );
  // A checkpoint's image flushes wait for it (checkpointer.ts): they must not queue ahead of it.
  const settled = saving.then(
    () => undefined,
    () => undefined,
  );
  disk.journalSyncing = settled;
  void settled.then(() => {
    if (disk.journalSyncing === settled) disk.journalSyncing = undefined;
  });
  return saving;
}

/** Only after the journal's fsync: the mark must never name a record that is not on disk. */
export function raiseAck(disk: Disk, seq: number, log: (line: string) => void): void {
  disk.ack.raise(
    seq,
    (error) => log(`Updating the acknowledged mark in ${disk.dir} failed (${String(error)}); the write itself is saved.`),
    (line) => log(line),
  );
}
