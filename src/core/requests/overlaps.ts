import { z } from 'zod';
import { overlapPairSchema } from '../overlaps';
import { contract } from './fields';

/** What a person decides about two overlapping tasks (docs/overlaps.md): each command's request schema beside its answer's. */
export const overlapContracts = {
  /** `task` is stopped, its work kept, and queued again blocked by `other`; `wip`: the commit that keeps its work, when there was any. */
  'overlap.run-after': contract(
    overlapPairSchema,
    z.strictObject({ task: z.string(), other: z.string(), blockedBy: z.string(), wip: z.string().nullable() }),
  ),
  /**
   * When `other` merges, `task`'s worktree is rebased onto the new base at once and its agent told.
   * `rebased`: `other` had merged already and the worktree was rebased now (null: the plan waits for the merge).
   */
  'overlap.rebase-when-merged': contract(
    overlapPairSchema,
    z.strictObject({ task: z.string(), other: z.string(), plan: z.literal('rebase-when-merged'), rebased: z.string().nullable() }),
  ),
  /** The pair is no longer reported as overlapping. */
  'overlap.ignore': contract(overlapPairSchema, z.strictObject({ task: z.string(), other: z.string(), ignored: z.literal(true) })),
};
