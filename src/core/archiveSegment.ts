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
export type RollupLine = z.infer<typeof rollupLine>;

/** The file name of segment `batch`: zero-padded so a directory listing is in batch order. */
export function segmentFileName(batch: number): string {
  return `${String(batch).padStart(6, '0')}.jsonl`;
}

export const segmentFilePattern = /^(\d{6,})\.jsonl$/;
