import { z } from 'zod';
import { agentConfinements } from '../agentConfinement';
import { usageSchema } from '../agentEvents';
import { claudeHookPayloadSchema, signalOf } from '../claudeHook';
import { workerIdSchema } from '../ids';
import { activitySchema, attemptSchema, contract, noteSchema } from './fields';
import { workerRowSchema, workerStateSchema } from './rows';

const tokensSchema = z.number().int().min(0, 'tokens are a whole number ≥ 0').default(0);

/** What a worker's agent reports and what a person says to it: each command's request schema beside its answer's. */
export const agentContracts = {
  heartbeat: contract(
    z
      .object({
        worker: workerIdSchema,
        status: z.enum(['working', 'idle', 'blocked']).default('working'),
        progress: z.number().min(0, 'progress is between 0 and 1').max(1, 'progress is between 0 and 1').optional(),
        attempt: attemptSchema.optional(),
        /** What the agent is doing now, one line: "Bash: npm test". An agent's activity also ends a wait for input. */
        activity: activitySchema.optional(),
        /** The agent waits for a person ("permission to run Bash: rm -rf build"); not STALE while it waits. */
        needsInput: activitySchema.optional(),
        /**
         * A Claude Code hook payload, forwarded unread by `foreman hook claude` (the thin CLI loads no
         * zod): read here, at the owner's boundary, into the activity or wait it means.
         */
        claudeHook: claudeHookPayloadSchema.optional(),
        /** Files the agent just edited (absolute, or relative to its worktree): the overlap check reads them (docs/overlaps.md). */
        touched: z.array(z.string().min(1).max(1000)).max(50, 'at most 50 touched files per beat').optional(),
      })
      .transform(({ claudeHook, ...beat }) => (claudeHook ? { ...beat, ...signalOf(claudeHook) } : beat)),
    z.strictObject({
      worker: z.string(),
      state: workerStateSchema,
      attempt: z.number(),
      recovered: z.boolean(),
      /** A person's answer to the wait this worker reported (allow or deny), handed to the waiting agent once. */
      answer: z.enum(['allow', 'deny']).nullable(),
      /** The person's note with the answer (why a plan was rejected), if they wrote one. */
      note: z.string().optional(),
    }),
  ),
  /**
   * The supervisor saw its agent stall (no event for too long, or its own retries going on past a
   * bound): the WORKING worker goes STALE with this reason. The agent acting again recovers it.
   * `moved`: the worker went STALE now (false: it was no longer WORKING, nothing to do).
   */
  stall: contract(
    z.object({ worker: workerIdSchema, attempt: attemptSchema, reason: noteSchema }),
    z.strictObject({ worker: z.string(), state: workerStateSchema, moved: z.boolean() }),
  ),
  /**
   * The worker's agent hit its plan's usage or rate limit: the WORKING worker is PAUSED until
   * `until` (epoch ms), its attempt unspent, then resumes the same session.
   */
  pause: contract(
    z.object({ worker: workerIdSchema, attempt: attemptSchema, reason: noteSchema, until: z.number().int().min(0) }),
    workerRowSchema,
  ),
  /** A person's answer to a worker that waits for input (a permission request): allow or deny. */
  answer: contract(
    z.object({
      worker: workerIdSchema,
      decision: z.enum(['allow', 'deny'], { message: "the answer is 'allow' or 'deny'" }),
      /** Why, for the agent to read: a rejected plan's note says what to change. */
      note: noteSchema.optional(),
    }),
    z.strictObject({ worker: z.string(), decision: z.enum(['allow', 'deny']), question: z.string() }),
  ),
  /**
   * A person's message to a worker's running agent (Send Message): it reaches the agent mid-run.
   * Answers which run took it; `waited`: it had been interrupted and waited for one.
   */
  tell: contract(
    z.object({
      worker: workerIdSchema,
      text: z.string().trim().min(1, 'a message must not be empty').max(10_000, 'a message is at most 10,000 characters'),
    }),
    z.strictObject({ worker: z.string(), taskId: z.string(), attempt: z.number(), waited: z.boolean() }),
  ),
  /** Ends the current turn of a worker's agent, keeping its session: it then waits for a message. */
  interrupt: contract(
    z.object({ worker: workerIdSchema }),
    z.strictObject({ worker: z.string(), taskId: z.string(), attempt: z.number() }),
  ),
  /** Tokens and cost of an agent run (added to its task attempt), and the agent's own session id. */
  usage: contract(
    z.object({
      worker: workerIdSchema,
      attempt: attemptSchema.optional(),
      /** The agent kind that reported it: claude, codex, aider, command. */
      kind: z
        .string()
        .regex(/^[a-z][a-z0-9-]{0,31}$/, 'an agent kind is lowercase letters, digits, -')
        .default('command'),
      sessionId: z
        .string()
        .regex(/^[A-Za-z0-9._:-]{1,200}$/, 'a session id is 1-200 letters, digits or . _ : -')
        .optional(),
      inputTokens: tokensSchema,
      outputTokens: tokensSchema,
      /** Input tokens read from / written to the prompt cache, counted apart from `inputTokens`. */
      cacheReadTokens: tokensSchema,
      cacheWriteTokens: tokensSchema,
      costUsd: z.number().min(0, 'a cost is ≥ 0').max(1_000_000).default(0),
      /** A new run of the agent began (a launch or a resume), counted per attempt. */
      run: z.boolean().default(false),
      /** How the run is confined, said by Foreman at its launch (core/agentConfinement.ts). */
      confinement: z.enum(agentConfinements).optional(),
    }),
    z.strictObject({
      taskId: z.string(),
      attempt: z.number(),
      workerId: z.string(),
      kind: z.string(),
      sessionId: z.string().nullable(),
      /** Launches and resumes of the agent in this attempt. */
      runs: z.number(),
      usage: usageSchema,
      /** How its last run was confined; null when no launch said (an older row, a terminal run). */
      confinement: z.enum(agentConfinements).nullable(),
    }),
  ),
};
