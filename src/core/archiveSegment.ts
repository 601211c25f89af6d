import { z } from 'zod';
import { transitionEventSchema } from './transitionLog';

/**
 * One line of an archive segment (`.foreman/archive/NNNNNN.jsonl`, issue 13). A segment holds what
 * one retention batch took out of the live database, whole: the tasks (as stored), their agent
 * sessions, the transitions (the same shape as `transitions.jsonl` lines), the messages, the
 * rollups that keep the metrics complete, and last an `end` line that seals it. Rows are read back
 * loosely (`passthrough`): a segment is a record, and only the keys the store acts on are checked.
 */
const rollupLine = z.object({
  kind: z.literal('rollup'),
  metric: z.enum([
    'transition_pair',
    'time_in_state',
    'finished',
    'usage_input',
    'usage_output',
    'usage_cache_read',
    'usage_cache_write',
    'usage_cost',
  ]),
  entity: z.string(),
  a: z.string(),
  b: z.string(),
  count: z.number().int().min(0),
  total: z.number(),
  max: z.number(),
});

export const archiveLineSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('task'), id: z.string().min(1), status: z.enum(['done', 'cancelled']) }).passthrough(),
  z.object({ kind: z.literal('session'), task_id: z.string().min(1), attempt: z.number().int() }).passthrough(),
  transitionEventSchema.extend({ kind: z.literal('transition') }),
  z.object({ kind: z.literal('message'), seq: z.number().int().positive(), id: z.string().min(1) }).passthrough(),
  rollupLine,
  z.object({ kind: z.literal('end'), batch: z.number().int().positive(), lines: z.number().int().min(0) }),
]);
export type ArchiveLine = z.infer<typeof archiveLineSchema>;

/**
 * A segment's last line, which seals it: the count and sha256 of the lines before it, and since
 * issue 28 the store the segment belongs to (`store`), the hash of the whole previous segment
 * (`previous`, null for segment 1) and the lowest transition seq it holds (`first_seq`, null when
 * none). Segments written before issue 28 have only the first three: they read, unchained.
 */
export const segmentEndSchema = z.object({
  kind: z.literal('end'),
  batch: z.number().int().positive(),
  lines: z.number().int().min(0),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  store: z.string().min(1).optional(),
  previous: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable()
    .optional(),
  first_seq: z.number().int().positive().nullable().optional(),
});
export type SegmentEnd = z.infer<typeof segmentEndSchema>;

/** A segment to write: its lines, and what its `end` line seals besides them. */
export interface SegmentDraft {
  readonly batch: number;
  readonly lines: readonly string[];
  /** The identity of the store whose rows these are (`meta.store_id`). */
  readonly store: string;
  /** The hash of segment `batch - 1` as a whole file; null for the first segment, or when it is unknown. */
  readonly previous: string | null;
  /** The lowest transition seq among the lines; null when they hold none. */
  readonly firstSeq: number | null;
  /** The ids of the tasks the segment holds, for the archive's index. */
  readonly tasks: readonly string[];
}

/** What reading segment `batch` found: the sealed segment, or why there is none. */
export type SegmentRead =
  | {
      readonly state: 'sealed';
      /** The lines before the `end` line. */
      readonly lines: string[];
      readonly end: SegmentEnd;
      /** The sha256 of the whole file, `end` line included: what the next segment seals as `previous`. */
      readonly hash: string;
    }
  | { readonly state: 'missing' }
  /** Present, but its `end` line does not seal what comes before it (torn, edited, or not a segment). */
  | { readonly state: 'unsealed' };

/**
 * One line of the archive's index (`.foreman/archive/index.jsonl`): which tasks a segment holds, so
 * that `foreman history` can say which segment held a task whose segment is missing.
 */
export const archiveIndexLineSchema = z.object({
  batch: z.number().int().positive(),
  store: z.string().min(1),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  tasks: z.array(z.string()),
});
export type ArchiveIndexLine = z.infer<typeof archiveIndexLineSchema>;

/** Why a segment file is not the next one of this store's chain; undefined when it is. */
export type ChainBreak =
  | { readonly kind: 'unsealed' }
  | { readonly kind: 'renamed'; readonly holds: number }
  | { readonly kind: 'foreign'; readonly store: string }
  | { readonly kind: 'unchained' }
  | { readonly kind: 'previous' };

/**
 * Whether sealed segment `batch` continues a chain whose previous segment has hash `previous`
 * (null: none or unknown), for store `store`. A segment from before identities (no `store`) is
 * `unchained`: the caller decides whether it may be this store's by other means.
 */
export function chainBreakOf(read: SegmentRead, batch: number, store: string, previous: string | null): ChainBreak | undefined {
  if (read.state !== 'sealed') return { kind: 'unsealed' };
  if (read.end.batch !== batch) return { kind: 'renamed', holds: read.end.batch };
  if (read.end.store === undefined) return { kind: 'unchained' };
  if (read.end.store !== store) return { kind: 'foreign', store: read.end.store };
  if (previous !== null && (read.end.previous ?? null) !== previous) return { kind: 'previous' };
  return undefined;
}

/** A chain break in words, after the segment's file name. */
export function describeChainBreak(problem: ChainBreak, batch: number, store: string): string {
  switch (problem.kind) {
    case 'unsealed':
      return 'is not sealed (torn, edited, or not a segment)';
    case 'renamed':
      return `holds segment ${problem.holds}, not ${batch} (renamed or reordered)`;
    case 'foreign':
      return `belongs to another store (${problem.store}; this store is ${store})`;
    case 'unchained':
      return "was written before segments named their store, and is not part of this store's recorded chain";
    case 'previous':
      return `does not follow segment ${batch - 1} (it seals another segment as its previous: reordered, replaced or edited)`;
  }
}
export type RollupLine = z.infer<typeof rollupLine>;

/** The file name of segment `batch`: zero-padded so a directory listing is in batch order. */
export function segmentFileName(batch: number): string {
  return `${String(batch).padStart(6, '0')}.jsonl`;
}

export const segmentFilePattern = /^(\d{6,})\.jsonl$/;
