import { z } from 'zod';
import { taskIdSchema, workerIdSchema } from './ids';

/**
 * Two running (or in-review) tasks that touch the same files (issue 33): what the engine reports
 * on each side, and what a person decided about the pair. The engine computes overlaps from the
 * files each task touched (its agent's edit events and its worktree's diff against the base);
 * the tree, the dashboard and `status --json` show them; the actions below answer them.
 */

/** What a person chose for one pair; `null` while nothing is chosen. */
export const overlapPlans = ['rebase-when-merged'] as const;
export type OverlapPlan = (typeof overlapPlans)[number];

export const taskOverlapSchema = z.object({
  /** The other task of the pair. */
  taskId: taskIdSchema,
  /** The worker that holds the other task, when one does. */
  workerId: workerIdSchema.nullable(),
  title: z.string().max(500),
  /** Files both tasks touched, relative to the repository root, sorted; at most 50 named. */
  files: z.array(z.string().max(1000)).max(50),
  /** True when the changed line ranges of at least one shared file intersect: the louder warning. */
  hunks: z.boolean(),
  /** What this side will do: `rebase-when-merged` rebases this worktree as soon as the other task merges. */
  plan: z.enum(overlapPlans).nullable(),
});
export type TaskOverlap = z.infer<typeof taskOverlapSchema>;

/** The pair an overlap action names: `task` is the one acted on, `other` the one it overlaps. */
export const overlapPairSchema = z.object({ task: taskIdSchema, other: taskIdSchema });
export type OverlapPair = z.infer<typeof overlapPairSchema>;
