import type { PullRequestView } from './pullRequestView';
import type { Usage } from '../core/agentEvents';
import type { AgentConfinement } from '../core/agentConfinement';
import type { TaskOverlap } from '../core/overlaps';
import type { Liveness } from '../core/policies';
import type { HostOwner, OwnerStatus } from './teamView';

/** What `foreman status --json` and the views read: the answer of the `status` request (statusView.ts builds it). */

/** A worker as `foreman status --json` and the UI show it. */
export interface WorkerStatus {
  readonly id: string;
  readonly state: string;
  readonly agent: string;
  /** The machine whose owner launches its agents; null: any (a store with one owner). */
  readonly host: string | null;
  readonly taskId: string | null;
  readonly branch: string | null;
  readonly attempt: number;
  /** Epoch ms of the last heartbeat, or null when it never sent one. */
  readonly lastHeartbeatMs: number | null;
  readonly heartbeatAgeMs: number | null;
  readonly progress: number | null;
  readonly liveness: Liveness;
  readonly livenessReason: string;
  readonly stateChangedAt: number;
  readonly lastError: string | null;
  readonly note: string | null;
  readonly summary: string | null;
  /** What the agent last said it was doing ("Bash: npm test"), with when; null before it said anything in this state. */
  readonly activity: { readonly text: string; readonly at: number } | null;
  /** Set while a WORKING agent waits for a person (a permission request); such a worker is not STALE. */
  readonly needsInput: { readonly message: string; readonly at: number } | null;
  /** Tokens and cost of every run this worker made. */
  readonly usage: Usage;
  /**
   * The agent's own session of the attempt the worker holds (Claude Code session id, Codex thread
   * id): what `claude --resume` / `codex resume` continue by hand. Absent before the agent said it.
   */
  readonly sessionId?: string;
  /** The agent kind whose session `sessionId` is (claude, codex). */
  readonly sessionKind?: string;
  /**
   * How the run of the attempt the worker holds is confined (`open`: unconfined, shown with a
   * warning); null with no task, or before its launch said.
   */
  readonly confinement: AgentConfinement | null;
  /**
   * Present only on an IDLE worker whose last task was a manual one that failed and now waits for
   * a person (the queue never hands a manual task out by itself): Retry runs it on this worker again.
   */
  readonly lastTaskFailed?: LastTaskFailure;
  /** PAUSED on its agent's usage or rate limit: when it resumes the same session (epoch ms). */
  readonly pausedUntil?: number;
  /**
   * On a store several owners share, for a worker bound to a machine: that machine's owner. Not
   * alive: a dead (or stopped) machine's worker, which nothing launches until an owner runs there.
   */
  readonly hostOwner?: HostOwner;
  /** Running or in-review tasks that touched files the current task touched (docs/overlaps.md); [] when none. */
  readonly overlaps: readonly TaskOverlap[];
}

/** A manual task that failed on this worker and waits: what `livenessReason` then says, as data. */
export interface LastTaskFailure {
  readonly taskId: string;
  readonly title: string;
  /** `queued`: requeued with attempts left; `failed`: no attempt left, Retry grants one. */
  readonly status: string;
  readonly reason: string;
}

export interface TaskStatusView {
  readonly id: string;
  readonly title: string;
  readonly status: string;
  readonly blockedBy: string | null;
  readonly workerId: string | null;
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly parentId: string | null;
  readonly planningPhase: string;
  readonly scheduledFor: number | null;
  readonly lastError: string | null;
  readonly manual: boolean;
  /** Tokens and cost of every attempt of this task; zero when no agent reported any. */
  readonly usage: Usage;
  /** Its pull request, in a `pull-request` workspace (docs/handoff.md). */
  readonly pullRequest?: PullRequestView;
  /** Running or in-review tasks this one overlaps (docs/overlaps.md); [] when none. */
  readonly overlaps: readonly TaskOverlap[];
}

export interface StatusSnapshot {
  readonly baseBranch: string | null;
  readonly workers: WorkerStatus[];
  readonly tasks: TaskStatusView[];
  /** Tokens and cost of every run so far. */
  readonly usage: Usage;
  /** The owners of a store several machines share, with their leases (teamView.ts); empty with one owner. */
  readonly owners: OwnerStatus[];
  /** With a `limit`: which part of the tasks this is, and how many there are of each status. */
  readonly page?: StatusPage;
}

export interface StatusPage {
  readonly limit: number;
  /** Tasks in the store; those the filters match; those shown. */
  readonly total: number;
  readonly matching: number;
  readonly shown: number;
  /** Every task by status, whatever the filters. */
  readonly counts: Readonly<Record<string, number>>;
  /** Finished tasks moved to the archive (retention), not among these: `foreman history <id>` reads one. */
  readonly archived: number;
}
