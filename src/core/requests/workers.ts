import { z } from 'zod';
import { hostSchema, taskIdSchema, workerIdSchema } from '../ids';
import { attemptSchema, contract, maxAttemptsSchema, noteSchema } from './fields';
import { claimedTaskSchema, workerRowSchema } from './rows';
import { workerStatusSchema } from './statusAnswer';

/** Workers and the work they are handed: each command's request schema beside its answer's. */
export const workerContracts = {
  'worker.add': contract(
    z.object({
      id: workerIdSchema,
      agent: z
        .string()
        .regex(/^[a-z0-9][a-z0-9-]{0,31}$/, 'an agent profile name is kebab-case')
        .default('demo'),
      maxAttempts: maxAttemptsSchema.optional(),
      /** The machine whose owner launches its agents; default: the owner's that adds it (none: any machine). */
      host: hostSchema.optional(),
    }),
    workerRowSchema,
  ),
  'worker.list': contract(z.object({}), z.array(workerStatusSchema)),
  assign: contract(z.object({ worker: workerIdSchema, task: taskIdSchema }), claimedTaskSchema),
  /** Answers null when nothing was runnable. */
  claim: contract(z.object({ worker: workerIdSchema }), claimedTaskSchema.nullable()),
  dispatch: contract(z.object({}), z.array(z.strictObject({ worker: z.string(), task: z.string(), attempt: z.number() }))),
  /** Answers the worker and the worktree its agent works in. */
  start: contract(z.object({ worker: workerIdSchema }), workerRowSchema.extend({ worktree: z.string() })),
  submit: contract(
    z.object({ worker: workerIdSchema, summary: z.string().max(10_000).optional(), attempt: attemptSchema.optional() }),
    workerRowSchema,
  ),
  cancel: contract(
    z.object({ target: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'cancel takes a worker id or a task id') }),
    z.strictObject({ worker: z.string().optional(), task: z.string().optional() }),
  ),
  fail: contract(
    z.object({
      worker: workerIdSchema,
      reason: noteSchema,
      attempt: attemptSchema.optional(),
      /** A failure no further attempt can fix (a budget the task ran into): the task fails for good now. */
      final: z.boolean().optional(),
      /**
       * The worker's agent cannot run at all (its command missing, no login): the worker needs setup
       * and claims nothing; the task goes back to the queue with the attempt unspent.
       */
      setup: z.boolean().optional(),
    }),
    workerRowSchema,
  ),
  reset: contract(z.object({ worker: workerIdSchema }), workerRowSchema),
};
