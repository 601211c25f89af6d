import { z } from 'zod';
import { usageSchema } from '../core/agentEvents';
import { agentConfinements } from '../core/agentConfinement';
import { taskOverlapSchema } from '../core/overlaps';
import { actionNameSchema, fields, livenessSchema, taskStatusSchema, workerStateSchema } from './protocolFields';
import { pageSizes, viewStateSchema } from './viewState';

/** The dashboard's full snapshot (host → webview), part of protocol.ts: what one message shows. */

const { id, folderRoot, text, epochMs, count } = fields;

/** The owner of a worker's machine: the live one, else the one gone last (`ownerId` null: none known). */
export const hostOwnerSchema = z.object({ ownerId: z.string().max(300).nullable(), alive: z.boolean(), goneSince: epochMs.nullable() });

/**
 * One owner of a store several machines share (issue 29), times on the host's clock: the webview
 * ticks the lease's age from `renewedAt`, and shows a gone one with since when.
 */
export const ownerCardSchema = z.object({
  id: z.string().max(300),
  host: z.string().max(200),
  pid: z.number().int().nullable(),
  startedAt: epochMs,
  renewedAt: epochMs,
  alive: z.boolean(),
  goneSince: epochMs.nullable(),
  workTakenBackAt: epochMs.nullable(),
  /** Workers on its machine: how many, and how many of them hold a task. */
  workers: count,
  busy: count,
});
export type OwnerCard = z.infer<typeof ownerCardSchema>;

/** A task's pull request in the `pull-request` hand-off (docs/handoff.md): the card's "PR #12" badge, a link to it. */
export const cardPullRequestSchema = z.object({
  number: count,
  /** Only an http(s) address is linked. */
  url: z
    .string()
    .max(2000)
    .regex(/^https?:\/\//, 'an http(s) address'),
  state: z.string().max(20),
  checks: z.string().max(20).optional(),
  comments: count.optional(),
  conflict: z.string().max(1000).optional(),
});
export type CardPullRequest = z.infer<typeof cardPullRequestSchema>;

export const workerCardSchema = z.object({
  id,
  state: workerStateSchema,
  agent: z.string().max(200),
  /** The machine whose owner runs the worker's agents, with several machines on one store (Team setup). */
  host: z.string().max(200).nullable().optional(),
  /** That machine's owner (issue 29); not alive: nothing launches this worker's agents until one runs there again. */
  hostOwner: hostOwnerSchema.optional(),
  taskId: id.nullable(),
  /** The task's title, raw: the webview renders it as text. */
  taskTitle: text.nullable(),
  branch: z.string().max(1000).nullable(),
  attempt: count,
  maxAttempts: count.nullable(),
  lastHeartbeatMs: epochMs.nullable(),
  progress: z.number().min(0).max(1).nullable(),
  liveness: livenessSchema,
  livenessReason: text,
  stateChangedAt: epochMs,
  lastError: text.nullable(),
  note: text.nullable(),
  summary: text.nullable(),
  /** What the agent is doing now ("Bash: npm test") and since when; null before it said anything in this run. */
  activity: z.object({ text, at: epochMs }).nullable(),
  /** Set while the agent waits for a person (a permission request): the worker is not stuck, it needs you. */
  needsInput: z.object({ message: text, at: epochMs }).nullable(),
  /** Tokens and cost of every run this worker made. */
  usage: usageSchema,
  /** How the run of its current attempt is confined (`open`: a warning badge); null with no task or before its launch said. */
  confinement: z.enum(agentConfinements).nullable(),
  /** Its task's pull request, while it has one. */
  pullRequest: cardPullRequestSchema.optional(),
  /**
   * Heartbeats seen in the recent window, on the host's clock (the webview corrects by the offset
   * it measures against `generatedAt`), oldest first. Times, not ages: a card that did not change
   * is the same card in the next message, and is not sent again.
   */
  heartbeatsAt: z.array(epochMs).max(2000),
  /**
   * States the worker entered, on the host's clock, oldest first (the first may start before the
   * window), and whether a heartbeat was due in each: silence is shaded only there.
   */
  states: z.array(z.object({ at: epochMs, expected: z.boolean() })).max(200),
  actions: z.array(actionNameSchema).max(20),
  /**
   * Other running tasks that touch the same files as this worker's task (issue 33), each with the
   * worker that holds it: the card's badge, and an edge to that worker's card.
   */
  overlaps: z.array(taskOverlapSchema).max(50),
});
export type WorkerCard = z.infer<typeof workerCardSchema>;

export const taskItemSchema = z.object({
  id,
  title: text,
  status: taskStatusSchema,
  blockedBy: id.nullable(),
  workerId: id.nullable(),
  attempt: count,
  maxAttempts: count,
  scheduledFor: epochMs.nullable(),
  lastError: text.nullable(),
  manual: z.boolean(),
  /** Tokens and cost of every attempt of this task. */
  usage: usageSchema,
  actions: z.array(actionNameSchema).max(20),
});
export type TaskItem = z.infer<typeof taskItemSchema>;

export const chainViewSchema = z.object({
  parent: taskItemSchema,
  planningPhase: z.enum(['none', 'active', 'finalized']),
  done: count,
  /** The child tasks in chain order. */
  nodes: z.array(taskItemSchema).max(1000),
  /** Blocked-by edges inside the chain: `to` waits for `from`. */
  edges: z.array(z.object({ from: id, to: id })).max(1000),
});
export type ChainView = z.infer<typeof chainViewSchema>;

export const transitionItemSchema = z.object({
  seq: count,
  at: epochMs,
  entity: z.enum(['worker', 'task']),
  id: z.string().max(200),
  from: z.string().max(64),
  to: z.string().max(64),
  trigger: z.string().max(200),
  actor: z.string().max(200),
  reason: text.nullable(),
  attempt: count.nullable(),
  severity: z.enum(['info', 'warning', 'error', 'critical']),
});
export type TransitionItem = z.infer<typeof transitionItemSchema>;

/** Something that waits for a person: an agent's question, a review, a merge, a stuck worker, a task that failed for good. */
export const attentionItemSchema = z.object({
  kind: z.enum(['input', 'review', 'merge', 'stale', 'failed']),
  workerId: id.nullable(),
  taskId: id.nullable(),
  title: text,
  detail: text,
  since: epochMs.nullable(),
  actions: z.array(actionNameSchema).max(20),
});
export type AttentionItem = z.infer<typeof attentionItemSchema>;

const page = <T extends z.ZodType>(item: T) => z.object({ total: count, page: count, pageSize: count, items: z.array(item).max(1000) });

export const statsSchema = z.object({
  queued: count,
  running: count,
  inReview: count,
  done: count,
  failed: count,
  cancelled: count,
  idle: count,
  /** Tasks finished in the last hour (metrics); null until the metrics are read. */
  throughputPerHour: count.nullable(),
  timeInState: z
    .array(z.object({ entity: z.string().max(32), state: z.string().max(64), count, meanMs: z.number(), maxMs: z.number() }))
    .max(200),
  rejected: count.nullable(),
  transitions: count.nullable(),
  /** Tokens and cost of every agent run so far. */
  usage: usageSchema,
});
export type Stats = z.infer<typeof statsSchema>;

export const folderViewSchema = z.object({
  root: folderRoot,
  name: z.string().max(500),
  baseBranch: z.string().max(1000).nullable(),
  /** Why this window does not own the engine (read-only), when it does not. */
  ownerNote: text.nullable(),
  restricted: z.boolean(),
  liveness: z.object({ warnMs: count, staleMs: count, deadMs: count }),
  /** How far back the heartbeat timelines reach. */
  heartbeatWindowMs: count,
  workerCounts: z.record(z.string(), count),
  /** The owners of a store several machines share; empty with one owner. */
  owners: z.array(ownerCardSchema).max(200),
  attention: z.array(attentionItemSchema).max(500),
  workers: page(workerCardSchema),
  chains: page(chainViewSchema),
  /** Free tasks (in no chain): the tab being viewed, its page, and how many each tab holds. */
  tasks: page(taskItemSchema).extend({ status: taskStatusSchema, counts: z.record(z.string(), count) }),
  activity: z.object({
    /** False until the host has read the transition log once. */
    loaded: z.boolean(),
    /** Matching transitions in the host's window (the newest are sent first). */
    matching: count,
    items: z.array(transitionItemSchema).max(pageSizes.activityMax),
    workers: z.array(id).max(10_000),
    states: z.array(z.string().max(64)).max(100),
  }),
  stats: statsSchema,
});
export type FolderView = z.infer<typeof folderViewSchema>;

export const dashboardSnapshotSchema = z.object({
  /** The host's clock when the snapshot was built; ages are computed against it (clocks may differ). */
  generatedAt: epochMs,
  folders: z.array(z.object({ root: folderRoot, name: z.string().max(500), ownerNote: text.nullable(), restricted: z.boolean() })).max(100),
  view: viewStateSchema,
  folder: folderViewSchema.nullable(),
});
export type DashboardSnapshot = z.infer<typeof dashboardSnapshotSchema>;
