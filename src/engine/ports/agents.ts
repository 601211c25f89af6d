import type { AgentConfinement } from '../../core/agentConfinement';
import type { Result } from '../../core/result';
import type { WorkRef } from './git';

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

/** Which run a message or an interrupt reached. */
export interface AgentTalk {
  readonly taskId: string;
  readonly attempt: number;
  /** The agent had been interrupted and waited for this message. */
  readonly waited: boolean;
}

/** Launched agents (ARCHITECTURE §6); implemented by the AgentSupervisor in src/infra/agents. */
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
