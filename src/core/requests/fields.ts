import { z } from 'zod';
import { titleSchema } from '../ids';

/** Request fields several command groups share. */

export const attemptSchema = z.number().int().min(1, 'an attempt is a positive integer');
export const maxAttemptsSchema = z.number().int().min(1).max(20, 'max attempts is between 1 and 20');
export const promptSchema = z.string().max(100_000, 'a prompt is at most 100,000 characters');
export const noteSchema = z.string().trim().min(1, 'a note must not be empty').max(10_000, 'a note is at most 10,000 characters');
export const activitySchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(500, 'at most 500 characters')
  .transform((text) => text.replace(/\s+/g, ' '));

/** A file of the repository, as a task's `paths` hint names it: relative to its root and inside it. */
export const repoPathSchema = z
  .string()
  .trim()
  .min(1, 'a path must not be empty')
  .max(1000)
  .refine(
    (path) => !/^([/\\]|[A-Za-z]:)/.test(path) && !path.split(/[/\\]/).includes('..'),
    'a path is relative to the repository root and stays inside it (no leading / and no ..)',
  );

/** One entry of a chain: a task title and optional prompt. */
export const chainStepSchema = z.object({ title: titleSchema, prompt: promptSchema.optional() });
export type ChainStep = z.infer<typeof chainStepSchema>;

/** A request schema and its answer's schema, side by side: the whole contract of one command. */
export interface Contract<Req extends z.ZodType = z.ZodType, Ans extends z.ZodType = z.ZodType> {
  readonly request: Req;
  readonly answer: Ans;
}

export const contract = <Req extends z.ZodType, Ans extends z.ZodType>(request: Req, answer: Ans): Contract<Req, Ans> => ({
  request,
  answer,
});
