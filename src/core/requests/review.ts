import { z } from 'zod';
import { taskIdSchema, workerIdSchema } from '../ids';
import { contract, noteSchema } from './fields';
import { workerRowSchema } from './rows';

/** What a merge landed where, beside the worker row it returns (`foreman merge` prints it). */
export const mergeReportSchema = z.strictObject({
  taskId: z.string(),
  title: z.string(),
  branch: z.string(),
  base: z.string(),
  /** The base's commit before and after the merge. */
  baseBefore: z.string(),
  baseAfter: z.string(),
});
export type MergeReport = z.infer<typeof mergeReportSchema>;

/** Review and hand-off of finished work (docs/handoff.md): each command's request schema beside its answer's. */
export const reviewContracts = {
  approve: contract(z.object({ worker: workerIdSchema }), workerRowSchema),
  'request-changes': contract(z.object({ worker: workerIdSchema, note: noteSchema }), workerRowSchema),
  /** `merged` is absent when a repeated request id is answered from the first result. */
  merge: contract(z.object({ worker: workerIdSchema }), workerRowSchema.extend({ merged: mergeReportSchema.optional() })),
  /** The failed checks of a task's pull request go to its agent, resuming its session. Answers the worker sent back to work. */
  'send-failure': contract(
    z.object({ task: taskIdSchema }),
    workerRowSchema.extend({ pullRequest: z.number(), checks: z.array(z.string()), conflict: z.string().optional() }),
  ),
  /**
   * The line comments people left on a task's pull request and not sent yet go to its agent, with
   * `note` (VS Code's own line comments) before them, resuming its session.
   */
  'send-review': contract(
    z.object({ task: taskIdSchema, note: noteSchema.optional() }),
    workerRowSchema.extend({ pullRequest: z.number(), comments: z.number() }),
  ),
};
