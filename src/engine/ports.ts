/**
 * The engine's view of the outside world. Implementations live in src/infra; tests may pass
 * strict fakes only where the real part is out of reach.
 */
import type { Result } from '../core/result';
import type { AgentConfinement } from '../core/agentConfinement';
import type { SegmentDraft, SegmentRead } from '../core/archiveSegment';

/** A value bound to a `?` placeholder. Time and ids are always parameters, never computed in SQL. */
export type SqlValue = string | number | null | Uint8Array;
export type Row = Record<string, SqlValue>;

/** Read access inside a transaction or a read. Only SELECT statements. */
export interface Reader {
  get<T extends object = Row>(sql: string, params?: readonly SqlValue[]): T | undefined;
  all<T extends object = Row>(sql: string, params?: readonly SqlValue[]): T[];
}

/** Write access inside `Store.write`. Every write statement is recorded for the redo journal. */
export interface Tx extends Reader {
  /** Runs an INSERT/UPDATE/DELETE and returns the number of rows it changed. */
  run(sql: string, params?: readonly SqlValue[]): number;
  /** Runs a write statement with a RETURNING clause and returns the rows it returned. */
  returning<T extends object = Row>(sql: string, params?: readonly SqlValue[]): T[];
  /**
   * Runs a write whose outcome nobody reads (an audit row, a message, a heartbeat): the store may
   * hold it and send it with the next statement (PostgreSQL pipelines them, pgTx.ts). It runs in
   * order all the same, and one that fails fails the transaction. Absent: the store runs it at once
   * (`appendRow`, queries/appendRow.ts).
   */
  append?(sql: string, params?: readonly SqlValue[]): void;
}

export interface WriteOptions {
  /**
   * false: the journal record is written but not fsync'd (heartbeats; ARCHITECTURE §2 allows
   * losing the last seconds of them). The next durable write syncs it along. A function is asked
   * once `fn` has succeeded, before the commit: a heartbeat is durable only when it moved a state.
   */
  readonly durable?: boolean | (() => boolean);
  /**
   * For a store that several owners share (PostgreSQL's NOTIFY): called once `fn` succeeded, before
   * the commit, for the rows it changed; undefined: which rows is not known (the others read all).
   * A write that names no worker and no task (a plain heartbeat) is not announced at all.
   */
  readonly changed?: () => ChangedRows | undefined;
  /** The others need not hear of this write (a lease renewal): no notification. */
  readonly quiet?: boolean;
}

/**
 * The workers and tasks a write changed, by id, and what the other owners of a shared store must do
 * about it (issue 29: an owner acts only on what concerns it). An optional field that is absent is
 * not known: the receiver does what it would for any change.
 */
export interface ChangedRows {
  readonly workers: readonly string[];
  readonly tasks: readonly string[];
  /** Whether work may have become runnable (a task queued, a worker freed): the dispatchers run. */
  readonly mayHaveWork?: boolean;
  /** The workers whose liveness deadline may have come nearer (they moved into a watched state). */
  readonly liveness?: readonly string[];
  /** The hosts of the changed workers (null: a worker of any host): whose owners look at them. */
  readonly hosts?: readonly (string | null)[];
  /**
   * Only views want to hear of this change, unless it moved another machine's workers (their
   * owners act on that): no work became runnable, no row changed outside a transition. A shared
   * store then announces it only when it did move another machine's worker; views read the rest
   * from the transitions on their timer (engine/externalChanges.ts).
   */
  readonly onlyForViews?: boolean;
}

/**
 * Who this engine is when several owners share one store (issue 14): a unique id per running owner,
 * and the machine it runs on, whose workers' agents it launches.
 */
export interface OwnerIdentity {
  readonly id: string;
  readonly host: string;
  readonly pid?: number;
}

/** The durable, single-writer store (ARCHITECTURE §2). */
export interface Store {
  /**
   * Where the store's SQL can do more in one statement than SQLite's: `postgres` runs a claim with
   * its audit and lease rows as one statement (data-modifying CTEs, queries/taskQueue.ts). Absent:
   * SQLite's, which every query also runs on.
   */
  readonly dialect?: 'postgres';
  read<T>(fn: (reader: Reader) => T): T;
  /**
   * Runs `fn` in one transaction. A success is committed and journalled (fsync'd unless
   * `durable: false`) before this returns; a failure or an exception rolls everything back.
   */
  write<T>(fn: (tx: Tx) => Result<T>, options?: WriteOptions): Result<T>;
  /** Writes a checkpoint now (image + rename + journal truncation). */
  checkpoint(): void;
  close(): void;
  /**
   * Group commit, where the store has it (sql.js): durable writes inside `fn` are written now and
   * fsync'd together soon after; whoever reports such a write waits for `whenSaved()` first.
   * A store without it saves each write as it commits (PostgreSQL).
   */
  savingLater?<T>(fn: () => T): T;
  /** Resolves once every durable write so far is saved; rejects if saving failed. */
  whenSaved?(): Promise<void>;
}

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): { dispose(): void };
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const handle = setTimeout(fn, ms);
    handle.unref?.();
    return { dispose: () => clearTimeout(handle) };
  },
};

/** Content-addressed storage for message payloads over the inline limit. */
export interface BlobStore {
  /** Stores the bytes (atomically) and returns their reference, `sha256-<hex>`. */
  put(bytes: Uint8Array): string;
  get(ref: string): Uint8Array | undefined;
}

export type ExportStream = 'messages' | 'transitions';

/** The last line of an export file, as far as the exporter trusts it. */
export interface ExportedLine {
  readonly seq: number;
  readonly store: string | undefined;
}

/** Where incremental JSONL exports go (`.foreman/bus.jsonl`, `.foreman/transitions.jsonl`). */
export interface ExportSink {
  /** Appends complete lines durably; `lastSeq` is the seq of the last line. */
  append(stream: ExportStream, lines: readonly string[], lastSeq: number): void;
  /**
   * The seq and store of the last complete line in the file (a crash between append and bookkeeping
   * never duplicates lines); `store` is undefined for a line written before lines named their store.
   * Undefined when the file holds no line.
   */
  lastExported(stream: ExportStream): ExportedLine | undefined;
  /** The file of `stream`, for messages. */
  fileOf(stream: ExportStream): string;
}

/**
 * Where retention puts finished history (issue 13): append-only segments, each sealed whole or
 * absent, never changed once written.
 */
export interface ArchiveSink {
  /**
   * Writes segment `draft.batch` (the lines, then the `end` line that seals them, their store and the
   * previous segment's hash) durably, reads it back, notes its tasks in the index, and returns the
   * segment's hash; throws unless it reads back as written.
   */
  write(draft: SegmentDraft): string;
  /**
   * The same, with the file work (writes, fsyncs, read-back) off the calling thread; false, with
   * nothing written, when segment `batch` appeared meanwhile (another call wrote it).
   */
  writeInBackground(draft: SegmentDraft): Promise<string | false>;
  /** Removes segment `batch`, written by this store but never applied, once its rows have changed. */
  discard(batch: number): void;
  /** Notes in the index that segment `batch` (of hash `hash`) holds these tasks, unless it says so already. */
  index(batch: number, store: string, hash: string, tasks: readonly string[]): void;
  /** Segment `batch`: sealed (its lines without the `end` line, the seal, its hash), missing, or unsealed. */
  read(batch: number): SegmentRead;
  /** The numbers of the segment files present, in order. */
  batches(): number[];
  /** Where segment `batch` is, for messages. */
  fileOf(batch: number): string;
  /** Why the archive cannot be written (a file stands where its folder goes); undefined when it can. */
  problem(): string | undefined;
}

/** The task at hand for git and agent operations. */
export interface WorkRef {
  readonly workerId: string;
  readonly taskId: string;
  readonly attempt: number;
  readonly branch: string;
}

export type MergeStrategy = 'rebase' | 'merge' | 'squash';

/**
 * Where a task's work is when it is merged: `worktree`, the worker's worktree in this clone (its
 * own machine); `remote`, the shared remote's copy of its branch (a worker of another machine).
 */
export type MergeSource = 'worktree' | 'remote';

/** Git as the engine needs it (ARCHITECTURE §5); implemented with simple-git in src/infra/git. */
export interface GitPort {
  /**
   * Creates or reuses the worker's worktree on the task branch, started from `startPoint` when new.
   * `previous` names the work the worktree may still hold, so it can be snapshotted before a switch.
   */
  prepare(work: WorkRef, startPoint: string, previous?: { taskId: string; attempt: number }): Promise<Result<{ worktree: string }>>;
  /** The file list of a branch against the base, for "show changes". */
  changedFiles(branch: string): Promise<string[]>;
  /** A file's text at a ref ('' when absent). */
  fileAt(ref: string, file: string): Promise<string>;
  /** Saves uncommitted and untracked changes to `refs/foreman/wip/<task>/<attempt>` without touching the worktree. */
  snapshot(work: WorkRef, reason: string): Promise<string | undefined>;
  /** Commits whatever the agent left, with the Foreman trailers. */
  commitLeftovers(work: WorkRef, message: string): Promise<string | undefined>;
  /**
   * Rebases (or merges, or squashes) the task branch into the base; one merge at a time. `message`
   * (the task's title and summary) is the merge or squash commit's, and that of any edits still uncommitted.
   * `source: 'remote'` (another machine's worker): this clone's own worktree for the worker is put on
   * the remote's copy of the branch first, whatever it held.
   */
  merge(
    work: WorkRef,
    strategy: MergeStrategy,
    verify?: (worktree: string) => Promise<Result<void>>,
    message?: string,
    source?: MergeSource,
  ): Promise<Result<{ baseBefore: string; baseAfter: string }>>;
  branchExists(branch: string): Promise<boolean>;
  worktreePath(workerId: string): string;
  /**
   * Pushes a submitted task branch to the crew's shared remote (fast-forward only), so any machine
   * can review it; nothing to do without one. Absent in ports that have no remote at all.
   */
  publish?(work: WorkRef): Promise<Result<void>>;
}

/** How an agent's run ended, judged by its adapter (ARCHITECTURE §6). */
export type AgentVerdict =
  /** `summary`: the agent's own last message, the review summary. */
  | { readonly outcome: 'success'; readonly summary?: string }
  /** A failed attempt: retried while attempts remain. */
  | { readonly outcome: 'failed'; readonly reason: string }
  /** Only a change of settings fixes it (a flag the CLI refuses, a budget reached): the task fails at once. */
  | { readonly outcome: 'configuration'; readonly reason: string }
  /** The worker's agent cannot run (no login): the worker needs setup; the task is queued again, its attempt unspent. */
  | { readonly outcome: 'setup'; readonly reason: string }
  /** Its plan's usage or rate limit: the worker pauses until `resumesAt` (when known), its attempt unspent. */
  | { readonly outcome: 'limit'; readonly reason: string; readonly resumesAt?: number };

export interface AgentExit {
  readonly code: number | null;
  readonly signal: string | null;
  /** "pid 4121 exited 1 at 12:03:04" */
  readonly reason: string;
  /** The adapter's judgement; absent where there is none (a terminal closed by hand). */
  readonly verdict?: AgentVerdict;
}

export interface AgentLaunch extends WorkRef {
  readonly worktree: string;
  readonly prompt: string;
  readonly agent: string;
  /** The agent session to continue (review notes, a merge conflict); a fresh start when it is gone. */
  readonly resumeSession?: string;
  /** What a resumed session is told (the note alone: it remembers the task); `prompt` when it starts afresh. */
  readonly resumePrompt?: string;
  /** Extra environment of this launch (FOREMAN_PORT). */
  readonly env?: Readonly<Record<string, string>>;
  /** The agent plans first and waits for a person to approve its plan (a plan-first task's first run). */
  readonly planFirst?: boolean;
}

export interface LaunchedAgent {
  /** Absent for an agent in a terminal (the host owns its process). */
  readonly pid?: number;
  readonly logFile: string;
  readonly exited: Promise<AgentExit>;
  /** Whether it continues `resumeSession` (false also when that session was gone). */
  readonly resumed: boolean;
  /** Its agent kind and how the run is confined, when the launch knows (not for a terminal run). */
  readonly kind?: string;
  readonly confinement?: AgentConfinement;
}

/** Launched agents (ARCHITECTURE §6); implemented by the AgentSupervisor in src/infra/agents. */
/** Which run a message or an interrupt reached. */
export interface AgentTalk {
  readonly taskId: string;
  readonly attempt: number;
  /** The agent had been interrupted and waited for this message. */
  readonly waited: boolean;
}

export interface AgentPort {
  launch(launch: AgentLaunch): Result<LaunchedAgent>;
  cancel(workerId: string): Promise<AgentExit | undefined>;
  signals(workerId: string): { alive: boolean; pid?: number; lastOutputAt?: number; exitedReason?: string } | undefined;
  /** A person's message to the worker's running agent; refused when it cannot take one now (Codex, no agent). */
  tell?(workerId: string, text: string): Result<AgentTalk>;
  /** Ends the running turn of the worker's agent, keeping its session; it then waits for a message. */
  interrupt?(workerId: string): Result<AgentTalk>;
  /**
   * After an owner restart: whether this attempt's agent was stopped, its work saved, by its
   * watchdog when the last owner went away or stopped (taken once), and in what words.
   */
  stoppedWithOwner?(work: { taskId: string; attempt: number }): { reason: string } | undefined;
}

/**
 * Worktree setup before an agent starts a task: files copied from the main checkout, the setup
 * command (an install step), and a port per worker. Implemented in src/infra/agents.
 */
export interface WorktreeSetupPort {
  /** The worker's own port (stable, shared with no other worker); undefined when no range is set. */
  portFor(workerId: string): Result<number | undefined>;
  /** Copies the files and runs the setup command in the worktree; its output goes to the attempt's log. */
  prepare(
    work: WorkRef,
    worktree: string,
    env: Readonly<Record<string, string>>,
    onProgress: (line: string) => void,
  ): Promise<Result<unknown>>;
}
