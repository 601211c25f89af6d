import { type ChainBreak, type SegmentRead, chainBreakOf, describeChainBreak } from '../core/archiveSegment';
import type { ArchiveSink, Reader, Tx } from './ports';
import { readMeta, writeMeta } from './queries';
import { readStoreId } from './storeIdentity';

/**
 * The archive's chain as the store records it (issue 28): the last segment whose rows left the
 * live tables, and that segment's hash. Each segment seals the previous one's hash, so the store's
 * record of the last one vouches for the whole chain, and a segment file past it is either the
 * next link (one a crash left unapplied) or not this store's.
 */

/** The last segment whose rows have left the live tables. */
const appliedBatchKey = 'archive_batch';
/** The hash of that segment, as a whole file (written since issue 28). */
const appliedHashKey = 'archive_hash';

/** What the store records of its archive: `foreman validate-transitions --archive` and `history` check the files against it. */
export interface ArchiveState {
  /** This store's identity; null for a store that has none yet (made before identities, never exported since). */
  readonly store: string | null;
  /** The last segment applied; 0: none. */
  readonly batch: number;
  /** That segment's hash; null when none is recorded (no segment, or one applied before issue 28). */
  readonly hash: string | null;
}

export function readArchiveState(reader: Reader): ArchiveState {
  return { store: readStoreId(reader) ?? null, batch: appliedBatch(reader), hash: readMeta(reader, appliedHashKey) ?? null };
}

export function appliedBatch(reader: Reader): number {
  return Number(readMeta(reader, appliedBatchKey) ?? 0);
}

export function recordApplied(tx: Tx, batch: number, hash: string): void {
  writeMeta(tx, appliedBatchKey, String(batch));
  writeMeta(tx, appliedHashKey, hash);
}

/**
 * The hash the next segment seals as its previous: the recorded one, or, for a store whose last
 * segment was applied before hashes were recorded, that segment's as it is on disk (null when it is
 * not there to read: the chain starts again at the next segment).
 */
export function headHash(reader: Reader, sink: ArchiveSink, applied = appliedBatch(reader)): string | null {
  const recorded = readMeta(reader, appliedHashKey);
  if (recorded !== undefined) return recorded;
  if (applied === 0) return null;
  const last = sink.read(applied);
  return last.state === 'sealed' ? last.hash : null;
}

/** Why segment `batch` is not the next link after segment `applied` (whose hash is `head`); undefined when it is. */
export function nextLinkBreak(
  read: SegmentRead,
  batch: number,
  applied: number,
  store: string,
  head: string | null,
): ChainBreak | { kind: 'gap' } | undefined {
  if (batch !== applied + 1) return { kind: 'gap' };
  return chainBreakOf(read, batch, store, head);
}

/**
 * A segment file past the store's last that is not its next link: refused with what to do. Moving
 * it aside unblocks retention, which goes on after the recorded chain; nothing is ever deleted.
 */
export function strayMessage(
  sink: ArchiveSink,
  batch: number,
  applied: number,
  store: string,
  problem: ChainBreak | { kind: 'gap' },
): string {
  const file = sink.fileOf(batch);
  const why =
    problem.kind === 'gap'
      ? `is numbered past segment ${applied + 1}, the next this store would write`
      : describeChainBreak(problem, batch, store);
  const ends = applied === 0 ? 'this store has archived nothing yet' : `this store's archive ends at segment ${applied}`;
  return (
    `archive: ${file} ${why}; ${ends}, and a segment past it must continue it. Nothing was archived. ` +
    `Move that file aside (for example \`mv ${file} ${file}.stray\`: retention then reads only NNNNNN.jsonl names) and run again: ` +
    `retention then goes on after segment ${applied}.`
  );
}
