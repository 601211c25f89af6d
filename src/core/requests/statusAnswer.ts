import { z } from 'zod';
import { agentConfinements } from '../agentConfinement';
import { usageSchema } from '../agentEvents';
import { taskOverlapSchema } from '../overlaps';
import { Liveness } from '../policies';

/** The answer of `status` (and `worker.list`): what `foreman status --json` and the views read. */

const overlapsSchema = z.array(taskOverlapSchema).readonly();

/** A manual task that failed on a worker and waits: what `livenessReason` then says, as data. */
export const lastTaskFailureSchema = z.strictObject({
  taskId: z.string(),
  title: z.string(),
  /** `queued`: requeued with attempts left; `failed`: no attempt left, Retry grants one. */
  status: z.string(),
  reason: z.string(),
});

/** The owner of a worker's machine: whether anything there launches its agents (issue 29). */
export const hostOwnerSchema = z.strictObject({
  /** The machine's live owner, else the one gone last; null when none is known. */
  ownerId: z.string().nullable(),
  alive: z.boolean(),
  /** Since when that owner is gone; null while it is alive, or when no owner is known. */
  goneSince: z.number().nullable(),
});

/** A worker as `foreman status --json` and the UI show it. */
export const workerStatusSchema = z.strictObject({
  id: z.string(),
  state: z.string(),
  agent: z.string(),
  /** The machine whose owner launches its agents; null: any (a store with one owner). */
  host: z.string().nullable(),
  taskId: z.string().nullable(),
  branch: z.string().nullable(),
  attempt: z.number(),
  /** Epoch ms of the last heartbeat, or null when it never sent one. */
  lastHeartbeatMs: z.number().nullable(),
  heartbeatAgeMs: z.number().nullable(),
  progress: z.number().nullable(),
  liveness: z.enum(Liveness),
  livenessReason: z.string(),
  stateChangedAt: z.number(),
  lastError: z.string().nullable(),
  note: z.string().nullable(),
  summary: z.string().nullable(),
  /** What the agent last said it was doing ("Bash: npm test"), with when; null before it said anything in this state. */
  activity: z.strictObject({ text: z.string(), at: z.number() }).nullable(),
  /** Set while a WORKING agent waits for a person (a permission request); such a worker is not STALE. */
  needsInput: z.strictObject({ message: z.string(), at: z.number() }).nullable(),
  /** Tokens and cost of every run this worker made. */
  usage: usageSchema,
  /** The agent's own session of the attempt the worker holds (what `claude --resume` continues); absent before the agent said it. */
  sessionId: z.string().optional(),
  /** The agent kind whose session `sessionId` is (claude, codex). */
  sessionKind: z.string().optional(),
  /** How the run of the attempt the worker holds is confined; null with no task, or before its launch said. */
  confinement: z.enum(agentConfinements).nullable(),
  /** Only on an IDLE worker whose last task was a manual one that failed and now waits for a person. */
  lastTaskFailed: lastTaskFailureSchema.optional(),
  /** PAUSED on its agent's usage or rate limit: when it resumes the same session (epoch ms). */
  pausedUntil: z.number().optional(),
  /** On a store several owners share, for a worker bound to a machine: that machine's owner. */
  hostOwner: hostOwnerSchema.optional(),
  /** Running or in-review tasks that touched files the current task touched (docs/overlaps.md); [] when none. */
  overlaps: overlapsSchema,
});

/** A task's pull request as `status` shows it: "in PR #12" until the forge says merged or closed. */
export const pullRequestViewSchema = z.strictObject({
  number: z.number(),
  url: z.string(),
  state: z.string(),
  /** The checks last read on it; absent before the first reading. */
  checks: z
    .strictObject({
      sha: z.string(),
      state: z.enum(['none', 'pending', 'success', 'failure']),
      failed: z.array(z.strictObject({ name: z.string(), logTail: z.string().optional(), url: z.string().optional() })),
    })
    .optional(),
  /** Line comments people left on it that are not sent to the agent yet; absent before the first reading. */
  comments: z.number().optional(),
  /** The base branch it conflicts with, while the forge says it does. */
  conflict: z.string().optional(),
});

export const taskStatusViewSchema = z.strictObject({
  id: z.string(),
  title: z.string(),
  status: z.string(),
  blockedBy: z.string().nullable(),
  workerId: z.string().nullable(),
  attempt: z.number(),
  maxAttempts: z.number(),
  parentId: z.string().nullable(),
  planningPhase: z.string(),
  scheduledFor: z.number().nullable(),
  lastError: z.string().nullable(),
  manual: z.boolean(),
  /** Tokens and cost of every attempt of this task; zero when no agent reported any. */
  usage: usageSchema,
  /** Its pull request, in a `pull-request` workspace (docs/handoff.md). */
  pullRequest: pullRequestViewSchema.optional(),
  /** Running or in-review tasks this one overlaps (docs/overlaps.md); [] when none. */
  overlaps: overlapsSchema,
});

/** One owner of a shared store as `status` shows it (issue 29), times on the reader's clock. */
export const ownerStatusSchema = z.strictObject({
  id: z.string(),
  /** The machine whose workers' agents it runs. */
  host: z.string(),
  pid: z.number().nullable(),
  startedAt: z.number(),
  /** When it last renewed its lease. */
  renewedAt: z.number(),
  /** How long ago that was. */
  leaseAgeMs: z.number(),
  /** Its lease has not run out. */
  alive: z.boolean(),
  /** Since when it is gone; null while alive. */
  goneSince: z.number().nullable(),
  /** When another owner took its running work back; null while nobody has. */
  workTakenBackAt: z.number().nullable(),
});

export const statusPageSchema = z.strictObject({
  limit: z.number(),
  /** Tasks in the store; those the filters match; those shown. */
  total: z.number(),
  matching: z.number(),
  shown: z.number(),
  /** Every task by status, whatever the filters. */
  counts: z.record(z.string(), z.number()),
  /** Finished tasks moved to the archive (retention), not among these: `foreman history <id>` reads one. */
  archived: z.number(),
});

export const statusSnapshotSchema = z.strictObject({
  baseBranch: z.string().nullable(),
  workers: z.array(workerStatusSchema),
  tasks: z.array(taskStatusViewSchema),
  /** Tokens and cost of every run so far. */
  usage: usageSchema,
  /** The owners of a store several machines share, with their leases; empty with one owner. */
  owners: z.array(ownerStatusSchema),
  /** With a `limit`: which part of the tasks this is, and how many there are of each status. */
  page: statusPageSchema.optional(),
});
