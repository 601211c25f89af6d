import { z } from 'zod';
import { claudeHookPayloadSchema, signalOf } from './claudeHook';
import { agentIdSchema, hostSchema, taskIdSchema, titleSchema, workerIdSchema } from './ids';
import { type TaskStatus, taskStatuses } from './taskMachine';
import { agentConfinements } from './agentConfinement';
import { maxPayloadDepth, nestingDepth } from './payloadDepth';
import { overlapPairSchema } from './overlaps';
import { describeIssues } from './zodIssues';

/**
 * Every request the engine takes, from the CLI, the local endpoint or the VS Code host. One zod
 * schema is the only contract; both ends parse with it.
 */

const attemptSchema = z.number().int().min(1, 'an attempt is a positive integer');
const maxAttemptsSchema = z.number().int().min(1).max(20, 'max attempts is between 1 and 20');
const promptSchema = z.string().max(100_000, 'a prompt is at most 100,000 characters');
const noteSchema = z.string().trim().min(1, 'a note must not be empty').max(10_000, 'a note is at most 10,000 characters');
const activitySchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(500, 'at most 500 characters')
  .transform((text) => text.replace(/\s+/g, ' '));
const messageTypeSchema = z.string().regex(/^[a-z][a-z0-9_.-]{0,63}$/, 'a message type is lowercase letters, digits, _ . -');

/** A file of the repository, as a task's `paths` hint names it: relative to its root and inside it. */
const repoPathSchema = z
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

const commands = {
  'worker.add': z.object({
    id: workerIdSchema,
    agent: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{0,31}$/, 'an agent profile name is kebab-case')
      .default('demo'),
    maxAttempts: maxAttemptsSchema.optional(),
    /** The machine whose owner launches its agents; default: the owner's that adds it (none: any machine). */
    host: hostSchema.optional(),
  }),
  'worker.list': z.object({}),
  'task.add': z.object({
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
  'chain.add': z.object({
    name: titleSchema,
    steps: z.array(chainStepSchema).min(1, 'a chain needs at least one task').max(500, 'a chain has at most 500 tasks'),
  }),
  'plan.start': z.object({ parent: taskIdSchema }),
  'plan.add': z.object({ parent: taskIdSchema, title: titleSchema, prompt: promptSchema.default('') }),
  'plan.finalize': z.object({ parent: taskIdSchema }),
  assign: z.object({ worker: workerIdSchema, task: taskIdSchema }),
  claim: z.object({ worker: workerIdSchema }),
  dispatch: z.object({}),
  start: z.object({ worker: workerIdSchema }),
  submit: z.object({ worker: workerIdSchema, summary: z.string().max(10_000).optional(), attempt: attemptSchema.optional() }),
  approve: z.object({ worker: workerIdSchema }),
  'request-changes': z.object({ worker: workerIdSchema, note: noteSchema }),
  merge: z.object({ worker: workerIdSchema }),
  /** The failed checks of a task's pull request go to its agent, resuming its session (docs/handoff.md). */
  'send-failure': z.object({ task: taskIdSchema }),
  /**
   * The line comments people left on a task's pull request and not sent yet go to its agent, with
   * `note` (VS Code's own line comments) before them, resuming its session (docs/handoff.md).
   */
  'send-review': z.object({ task: taskIdSchema, note: noteSchema.optional() }),
  cancel: z.object({ target: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'cancel takes a worker id or a task id') }),
  fail: z.object({
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
  reset: z.object({ worker: workerIdSchema }),
  retry: z.object({ task: taskIdSchema }),
  heartbeat: z
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
  /**
   * The supervisor saw its agent stall (no event for too long, or its own retries going on past a
   * bound): the WORKING worker goes STALE with this reason. The agent acting again recovers it.
   */
  stall: z.object({ worker: workerIdSchema, attempt: attemptSchema, reason: noteSchema }),
  /**
   * The worker's agent hit its plan's usage or rate limit: the WORKING worker is PAUSED until
   * `until` (epoch ms), its attempt unspent, then resumes the same session.
   */
  pause: z.object({ worker: workerIdSchema, attempt: attemptSchema, reason: noteSchema, until: z.number().int().min(0) }),
  /** A person's answer to a worker that waits for input (a permission request): allow or deny. */
  answer: z.object({
    worker: workerIdSchema,
    decision: z.enum(['allow', 'deny'], { message: "the answer is 'allow' or 'deny'" }),
    /** Why, for the agent to read: a rejected plan's note says what to change. */
    note: noteSchema.optional(),
  }),
  /** A person's message to a worker's running agent (Send Message): it reaches the agent mid-run. */
  tell: z.object({
    worker: workerIdSchema,
    text: z.string().trim().min(1, 'a message must not be empty').max(10_000, 'a message is at most 10,000 characters'),
  }),
  /** Ends the current turn of a worker's agent, keeping its session: it then waits for a message. */
  interrupt: z.object({ worker: workerIdSchema }),
  /** Tokens and cost of an agent run (added to its task attempt), and the agent's own session id. */
  usage: z.object({
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
    inputTokens: z.number().int().min(0, 'tokens are a whole number ≥ 0').default(0),
    outputTokens: z.number().int().min(0, 'tokens are a whole number ≥ 0').default(0),
    /** Input tokens read from / written to the prompt cache, counted apart from `inputTokens`. */
    cacheReadTokens: z.number().int().min(0, 'tokens are a whole number ≥ 0').default(0),
    cacheWriteTokens: z.number().int().min(0, 'tokens are a whole number ≥ 0').default(0),
    costUsd: z.number().min(0, 'a cost is ≥ 0').max(1_000_000).default(0),
    /** A new run of the agent began (a launch or a resume), counted per attempt. */
    run: z.boolean().default(false),
    /** How the run is confined, said by Foreman at its launch (core/agentConfinement.ts). */
    confinement: z.enum(agentConfinements).optional(),
  }),
  send: z.object({
    from: agentIdSchema,
    to: agentIdSchema.optional(),
    type: messageTypeSchema,
    payload: z
      .unknown()
      .optional()
      .refine((payload) => nestingDepth(payload, maxPayloadDepth) <= maxPayloadDepth, {
        message: `a payload nests at most ${maxPayloadDepth} arrays or objects deep; flatten it`,
      }),
    id: z.uuid('a message id is a UUID').optional(),
    correlationId: z.string().max(200).optional(),
    inReplyTo: z.string().max(200).optional(),
  }),
  poll: z.object({ agent: agentIdSchema, limit: z.number().int().min(1).max(1000).default(100) }),
  ack: z.object({ agent: agentIdSchema, seq: z.number().int().min(0) }),
  status: z.object({
    /** At most this many tasks; without it, every task matching the filters (what the views read). */
    limit: z.number().int().min(1).max(1_000_000).optional(),
    statuses: z
      .array(z.enum(taskStatuses as [TaskStatus, ...TaskStatus[]], { message: `a task status is one of ${taskStatuses.join(', ')}` }))
      .min(1)
      .optional(),
    /** Tasks this worker holds or last held. */
    worker: workerIdSchema.optional(),
    /** Tasks created, started or finished at or after this epoch ms. */
    since: z.number().int().nonnegative().optional(),
    /**
     * Only these rows, found or not (a view's model re-reads what a commit touched; an id that is
     * missing from the answer is gone). The other filters do not apply with it.
     */
    ids: z.object({ workers: z.array(workerIdSchema).max(10_000), tasks: z.array(taskIdSchema).max(10_000) }).optional(),
  }),
  transitions: z.object({
    entity: z.string().max(63).optional(),
    limit: z.number().int().min(1).max(100_000).default(200),
    /** Only transitions after this seq (a reader that has seen up to it asks for what is new). */
    afterSeq: z.number().int().min(0).optional(),
    /** The latest `limit` transitions instead of the first (a view that shows the recent ones). */
    latest: z.boolean().default(false),
  }),
  metrics: z.object({}),
  export: z.object({}),
  compact: z.object({}),
  /** Overlapping tasks (docs/overlaps.md): `task` is stopped, its work kept, and queued again blocked by `other`. */
  'overlap.run-after': overlapPairSchema,
  /** When `other` merges, `task`'s worktree is rebased onto the new base at once and its agent told. */
  'overlap.rebase-when-merged': overlapPairSchema,
  /** The pair is no longer reported as overlapping. */
  'overlap.ignore': overlapPairSchema,
  /** Retention: one batch of finished work older than the window (the settings' unless given) to the archive. */
  archive: z.object({
    olderThanMs: z.number().int().min(0).optional(),
    limit: z.number().int().min(1).max(10_000).default(1000),
  }),
  /** What the store records of its archive: its identity, the last segment applied and that segment's hash. */
  'archive.state': z.object({}),
} as const;

export type CommandName = keyof typeof commands;
export const commandNames = Object.keys(commands) as CommandName[];
export type CommandArgs<C extends CommandName> = z.output<(typeof commands)[C]>;
export type CommandInput<C extends CommandName> = z.input<(typeof commands)[C]>;

/** The zod schema of a command's arguments: what other doors (the MCP server) show and parse with. */
export function argsSchemaOf<C extends CommandName>(command: C): (typeof commands)[C] {
  return commands[command];
}

export { readOnlyCommands, type ReadCommand } from './readCommands';

/** One command's request. Code generic in the command takes this: its `command` is exactly `C`. */
export interface RequestOf<C extends CommandName> {
  readonly command: C;
  readonly args: CommandArgs<C>;
  /** Idempotency key (seed 004 §3): the same id twice applies once and returns the first result. */
  readonly requestId?: string;
  /** Who asked: "cli", "vscode", a worker id… recorded in the audit log. */
  readonly actor: string;
}

/** A parsed request; without a type argument, the union of every command's request (narrow on `command`). */
export type Request<C extends CommandName = CommandName> = C extends CommandName ? RequestOf<C> : never;

/** What a caller writes before parsing: defaults not yet applied, no actor. */
export type RequestInput<C extends CommandName = CommandName> = C extends CommandName
  ? { readonly command: C; readonly args: CommandInput<C>; readonly requestId?: string }
  : never;

const envelopeSchema = z.object({
  command: z.enum(commandNames as [CommandName, ...CommandName[]], { message: `unknown command; known: ${commandNames.join(', ')}` }),
  args: z.unknown().default({}),
  requestId: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,128}$/, 'a request id is 1-128 letters, digits or . _ : -')
    .optional(),
  actor: z
    .string()
    .regex(/^[A-Za-z0-9._:@-]{1,64}$/, 'an actor is 1-64 safe characters')
    .default('cli'),
});

export type ParsedRequest = { ok: true; request: Request } | { ok: false; message: string };

/** Parses anything that claims to be a request, at every boundary. */
export function parseRequest(input: unknown): ParsedRequest {
  const envelope = envelopeSchema.safeParse(input);
  if (!envelope.success) return { ok: false, message: describeIssues(envelope.error) };
  const { command, args, requestId, actor } = envelope.data;
  const parsedArgs = commands[command].safeParse(args);
  if (!parsedArgs.success) return { ok: false, message: `${command}: ${describeIssues(parsedArgs.error)}` };
  const request = { command, args: parsedArgs.data, actor, ...(requestId ? { requestId } : {}) } as Request;
  return { ok: true, request };
}

/** `parseRequest` for a command the caller names: the parsed request is that command's. */
export function parseCommand<C extends CommandName>(
  command: C,
  args: CommandInput<C>,
  envelope: { readonly actor?: string; readonly requestId?: string } = {},
): { ok: true; request: RequestOf<C> } | { ok: false; message: string } {
  const parsed = parseRequest({ ...envelope, command, args });
  // parseRequest parsed `args` with this very command's schema.
  return parsed.ok ? { ok: true, request: parsed.request as RequestOf<C> } : parsed;
}
