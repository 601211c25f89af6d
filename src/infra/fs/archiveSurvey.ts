import { chainBreakOf, describeChainBreak } from '../../core/archiveSegment';
import type { ArchiveState } from '../../engine/archiveChain';
import type { FileArchiveSink } from './archiveSegments';

/** A segment whose lines belong to this store's trail. */
export interface UsableSegment {
  readonly batch: number;
  /** Its lowest transition seq as its seal gives it; undefined for a segment sealed before seals gave it. */
  readonly firstSeq: number | null | undefined;
}

/** The archive folder checked against what the store records of it. */
export interface ArchiveSurvey {
  /** Segments to read, in order: this store's (or from before segments named their store, within the recorded chain). */
  readonly usable: UsableSegment[];
  /** Each problem once, naming the segment file and what to do. */
  readonly problems: string[];
  /** The recorded segments whose lines cannot be read here: missing, unsealed, another store's, renamed. */
  readonly unavailable: number[];
}

/**
 * Walks the segments the store recorded (1 to its last) and any file past them, checking the chain
 * (issue 28): each recorded segment is there, sealed, numbered as its file, this store's, and seals
 * the hash of the one before; the last is the one the store recorded. Past the recorded chain only
 * its next link (a segment a crash left unapplied) belongs; anything else there is a stray, to be
 * moved aside. `onSegment` sees each usable segment's lines as they are read (one read per segment).
 */
export function surveyArchive(
  sink: FileArchiveSink,
  state: ArchiveState,
  onSegment?: (batch: number, lines: readonly string[]) => void,
): ArchiveSurvey {
  const usable: UsableSegment[] = [];
  const problems: string[] = [];
  const unavailable: number[] = [];
  const present = sink.batches();
  const batches = [...new Set([...Array.from({ length: state.batch }, (_, index) => index + 1), ...present])].sort((a, b) => a - b);
  const store = state.store ?? '(none yet)';
  const folder = sink.dir;
  let previous: string | null | undefined = null;
  for (const batch of batches) {
    const file = sink.fileOf(batch);
    const recorded = batch <= state.batch;
    const read = sink.read(batch);
    if (read.state === 'missing') {
      unavailable.push(batch);
      problems.push(
        `archive: segment ${batch} (${file}) is missing: the store recorded segments 1–${state.batch}; restore it from a backup of ${folder}`,
      );
      previous = undefined;
      continue;
    }
    const broken = chainBreakOf(read, batch, store, previous ?? null);
    const legacy = broken?.kind === 'unchained';
    if (recorded && read.state === 'sealed' && (broken === undefined || legacy || broken.kind === 'previous')) {
      if (broken?.kind === 'previous' && previous !== undefined)
        problems.push(`archive: ${file} ${describeChainBreak(broken, batch, store)}`);
      if (batch === state.batch && state.hash !== null && read.hash !== state.hash) {
        problems.push(`archive: ${file} is not the segment the store recorded as its last (replaced or edited since)`);
      }
      usable.push({ batch, firstSeq: read.end.first_seq });
      onSegment?.(batch, read.lines);
      previous = read.hash;
      continue;
    }
    const next = !recorded && batch === state.batch + 1 && read.state === 'sealed' && broken === undefined;
    if (next && (state.hash === null || read.end.previous === state.hash)) {
      // A segment a crash left written but not applied: its rows are still live, and merge once.
      usable.push({ batch, firstSeq: read.end.first_seq });
      onSegment?.(batch, read.lines);
      previous = read.hash;
      continue;
    }
    if (recorded) {
      unavailable.push(batch);
      problems.push(`archive: ${file} ${describeChainBreak(broken ?? { kind: 'unsealed' }, batch, store)}; its lines are left out`);
    } else {
      const why = broken ? describeChainBreak(broken, batch, store) : `does not continue segment ${state.batch}`;
      problems.push(
        `archive: ${file} ${why}, and is past segment ${state.batch}, the last this store recorded: a stray, left out; move it aside (for example \`mv ${file} ${file}.stray\`)`,
      );
    }
    previous = undefined;
  }
  return { usable, problems, unavailable };
}
