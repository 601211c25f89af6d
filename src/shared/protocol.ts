import { z } from 'zod';
import { usageSchema } from '../core/agentEvents';
import { agentConfinements } from '../core/agentConfinement';
import { idPattern } from '../core/ids';
import { taskStatuses } from '../core/taskMachine';
import { workerStates } from '../core/workerMachine';

/**
 * The dashboard's only contract between the extension host and the webview (STYLE rule 7). Both
 * sides parse what they receive with these schemas; anything that does not parse is dropped and
 * logged, never acted upon. The host answers the webview's `ready` with a full snapshot, then sends
 * deltas against the revision before (what changed: sections, and the worker cards that differ);
 * a webview that does not hold that revision (it was hidden, or reloaded) sends `ready` again and
 * gets a full snapshot. The webview sends its view state, actions and errors.
 */

/** Bump when a message changes shape; a webview of another version is answered with nothing. */
export const protocolVersion = 7;

const id = z.string().regex(idPattern);
/** A workspace folder's path, as the host's sessions know it. */
const folderRoot = z.string().min(1).max(4096);
const text = z.string().max(20_000);
const epochMs = z.number().int().nonnegative();
const count = z.number().int().nonnegative();

export const workerStateSchema = z.enum(workerStates as [string, ...string[]]);
export const taskStatusSchema = z.enum(taskStatuses as [string, ...string[]]);
export const livenessSchema = z.enum(['OK', 'WARN', 'STALE', 'DEAD', 'IDLE']);

/** What a person can do from the dashboard; the host maps each to a Foreman command. */
export const ActionName = {
  assign: 'assign',
  start: 'start',
  approve: 'approve',
  requestChanges: 'requestChanges',
  merge: 'merge',
  cancel: 'cancel',
  reset: 'reset',
  retry: 'retry',
  cancelTask: 'cancelTask',
  showChanges: 'showChanges',
  showLog: 'showLog',
  openTerminal: 'openTerminal',
  addWorker: 'addWorker',
  newTask: 'newTask',
  newChain: 'newChain',
  /** Answers an agent that waits for a person (a permission request): let the tool run. */
  allow: 'allow',
  /** Answers an agent that waits for a person: refuse the tool call. */
  deny: 'deny',
  /** A message to a working agent, mid-run (the action's `note` holds it). */
  sendMessage: 'sendMessage',
  /** Ends a working agent's turn, keeping its session; it then waits for a message. */
  interrupt: 'interrupt',
} as const;
export type ActionName = (typeof ActionName)[keyof typeof ActionName];
export const actionNameSchema = z.enum(Object.values(ActionName) as [ActionName, ...ActionName[]]);

// ---------------------------------------------------------------- view state (webview → host)

/** The free-task tabs, in the order they show. */
export const taskTabOrder = ['queued', 'running', 'idle', 'failed', 'cancelled', 'done'] as const;

export const pageSizes = { workers: 60, chains: 8, tasks: 50, activityStep: 200, activityMax: 2000 } as const;

/** What the person is looking at: kept by the webview (survives reloads) and applied by the host. */
export const viewStateSchema = z.object({
  /** The folder shown; null: the first one. */
  folder: folderRoot.nullable().default(null),
  workersPage: count.max(100_000).default(0),
  chainsPage: count.max(100_000).default(0),
  /** The free-task tab the person picked, and its page; null until they pick one (the first tab with tasks shows). */
  taskStatus: taskStatusSchema.nullable().default(null),
  taskPage: count.max(100_000).default(0),
  /** Activity timeline filter; null fields match everything. */
  activity: z
    .object({
      worker: id.nullable().default(null),
      task: id.nullable().default(null),
      state: z
        .string()
        .regex(/^[A-Za-z_]{1,32}$/)
        .nullable()
        .default(null),
      limit: z.number().int().min(pageSizes.activityStep).max(pageSizes.activityMax).default(pageSizes.activityStep),
    })
    .default({ worker: null, task: null, state: null, limit: pageSizes.activityStep }),
});
export type ViewState = z.output<typeof viewStateSchema>;
export const defaultViewState: ViewState = viewStateSchema.parse({});

// ---------------------------------------------------------------- snapshot (host → webview)

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

/**
 * A list in a delta: the items that are new or differ from those held (by key: a worker's id, a
 * chain's parent id, an attention item's kind and ids), and the keys in order when they changed.
 */
const listDeltaSchema = <T extends z.ZodType>(item: T) =>
  z.object({
    /** The list's keys in order, when they are not the ones held. */
    keys: z.array(z.string().max(300)).max(1000).optional(),
    /** Each with its key (repeated keys are told apart by occurrence: "a", "a#2"). */
    changed: z.array(z.object({ key: z.string().max(300), item })).max(1000),
  });
const pageDeltaSchema = <T extends z.ZodType>(item: T) => listDeltaSchema(item).extend({ total: count, page: count, pageSize: count });

/**
 * What changed in the folder shown since the revision before: each field given replaces the one
 * held; the long lists (worker cards, chains, what needs you) carry only the items that changed.
 */
export const folderDeltaSchema = folderViewSchema
  .omit({ workers: true, chains: true, attention: true })
  .partial()
  .extend({
    workers: pageDeltaSchema(workerCardSchema).optional(),
    chains: pageDeltaSchema(chainViewSchema).optional(),
    attention: listDeltaSchema(attentionItemSchema).optional(),
  });
export type FolderDelta = z.infer<typeof folderDeltaSchema>;

export const dashboardDeltaSchema = z.object({
  generatedAt: epochMs,
  folders: dashboardSnapshotSchema.shape.folders.optional(),
  view: viewStateSchema.optional(),
  folder: folderDeltaSchema,
});
export type DashboardDelta = z.infer<typeof dashboardDeltaSchema>;

// ---------------------------------------------------------------- messages

export const actionTargetSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('worker'), id }),
  z.object({ kind: z.literal('task'), id }),
  z.object({ kind: z.literal('folder') }),
]);
export type ActionTarget = z.infer<typeof actionTargetSchema>;

/** Messages from the webview. */
export const webviewMessageSchema = z.discriminatedUnion('type', [
  /** The webview has loaded (again) and wants a snapshot; carries its saved view state. */
  z.object({ type: z.literal('ready'), protocol: z.literal(protocolVersion), view: viewStateSchema.optional() }),
  /** The person changed what they look at (folder, page, filter). */
  z.object({ type: z.literal('view'), view: viewStateSchema }),
  /** Do something; answered by one `actionResult` with the same `requestId`. */
  z.object({
    type: z.literal('action'),
    requestId: z.string().regex(/^[A-Za-z0-9-]{1,64}$/),
    folder: folderRoot,
    action: actionNameSchema,
    target: actionTargetSchema,
    /** Request changes: the reviewer's note for the agent; Send message: the message for it. */
    note: z.string().trim().min(1).max(10_000).optional(),
  }),
  /** Something failed inside the webview; the host writes it to its log. */
  z.object({ type: z.literal('error'), message: z.string().max(2000) }),
]);
export type WebviewMessage = z.infer<typeof webviewMessageSchema>;

/** Messages from the host. */
export const hostMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('snapshot'), revision: count, snapshot: dashboardSnapshotSchema }),
  /** Changes against `baseRevision`; a webview holding another revision asks again with `ready`. */
  z.object({ type: z.literal('delta'), revision: count, baseRevision: count, delta: dashboardDeltaSchema }),
  z.object({ type: z.literal('actionResult'), requestId: z.string().max(64), ok: z.boolean(), message: text.optional() }),
]);
export type HostMessage = z.infer<typeof hostMessageSchema>;

/** A handler for every message type: adding a type without handling it is a compile error. */
export type HandlerMap<M extends { type: string }> = { readonly [K in M['type']]: (message: Extract<M, { type: K }>) => void };

/** Parses and dispatches one message; returns the problem when it does not parse. */
export function dispatchMessage<M extends { type: string }>(
  schema: z.ZodType<M>,
  handlers: HandlerMap<M>,
  raw: unknown,
): { ok: true } | { ok: false; problem: string } {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    return {
      ok: false,
      problem: parsed.error.issues
        .slice(0, 3)
        .map((issue) => `${issue.path.join('.') || 'message'}: ${issue.message}`)
        .join('; '),
    };
  }
  const message = parsed.data;
  (handlers[message.type as M['type']] as (message: M) => void)(message);
  return { ok: true };
}
