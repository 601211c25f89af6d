import { z } from 'zod';
import { taskIdSchema, titleSchema } from '../ids';
import { chainStepSchema, contract, maxAttemptsSchema, promptSchema, repoPathSchema } from './fields';
import { chainViewSchema, taskRowSchema } from './rows';

/** Tasks, chains and plans: each command's request schema beside its answer's. */
export const taskContracts = {
  'task.add': contract(
    z.object({
      title: titleSchema,
      id: taskIdSchema.optional(),
      prompt: promptSchema.default(''),
      after: taskIdSchema.optional(),
      maxAttempts: maxAttemptsSchema.optional(),
      manual: z.boolean().default(false),
      /** Its agent plans first (Claude Code's plan mode) and waits for a person to approve the plan before it changes anything. */
      planFirst: z.boolean().default(false),
      /** Files the task is expected to touch (repository-relative): the dispatcher prefers work that overlaps no running task. */
      paths: z.array(repoPathSchema).max(100, 'at most 100 paths').optional(),
    }),
    taskRowSchema,
  ),
  'chain.add': contract(
    z.object({
      name: titleSchema,
      steps: z.array(chainStepSchema).min(1, 'a chain needs at least one task').max(500, 'a chain has at most 500 tasks'),
    }),
    chainViewSchema,
  ),
  'plan.start': contract(z.object({ parent: taskIdSchema }), taskRowSchema),
  'plan.add': contract(z.object({ parent: taskIdSchema, title: titleSchema, prompt: promptSchema.default('') }), taskRowSchema),
  'plan.finalize': contract(z.object({ parent: taskIdSchema }), chainViewSchema),
  retry: contract(z.object({ task: taskIdSchema }), taskRowSchema),
};
