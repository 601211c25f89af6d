/**
 * A launched agent as the supervisor keeps it (agentSupervisor.ts): the run its callers see, the
 * liveness signals the monitor reads, and the supervisor's own state for a run that still lives.
 */
import type { AgentExit } from '../../engine/ports';
import type { AgentEvent } from '../../core/agentEvents';
import type { AgentConfinement } from '../../core/agentConfinement';
import type { AgentConversation } from './agentConversation';
import type { AgentVitals } from './agentVitals';
import type { PlanApproval, PlanAnswer } from './planApproval';

/** A launched agent process. `lastOutputAt` is read from the log when asked (epoch ms; undefined before any output). */
export interface AgentRun {
  readonly workerId: string;
  readonly taskId: string;
  readonly attempt: number;
  /** The profile's agent kind: claude, codex, aider, command. */
  readonly kind: string;
  readonly pid: number;
  readonly logFile: string;
  readonly startedAt: number;
  /** Whether it continues an earlier session of the agent. */
  readonly resumed: boolean;
  /** How the run is confined (its adapter's plan). */
  readonly confinement: AgentConfinement;
  readonly lastOutputAt: number | undefined;
  readonly exited: Promise<AgentExit>;
}

/** What the monitor combines with heartbeats and commits into a liveness verdict. */
export interface AgentSignals {
  readonly alive: boolean;
  readonly pid?: number;
  readonly lastOutputAt?: number;
  readonly exitedReason?: string;
  /** Why the agent counts as stalled although its process lives ("no output from the agent for 5m00s"). */
  readonly stalled?: string;
}

/** What the supervisor tells its owner about a run; each may be async, and a failure is logged, never thrown into a timer. */
export interface RunCallbacks {
  /** `activity`: what the agent is at, when Foreman can say. */
  readonly onHeartbeat?: (run: AgentRun, activity?: string) => unknown;
  /** The agent stalled (see AgentVitals): once per stall, and no heartbeat for it until it acts again. */
  readonly onStall?: (run: AgentRun, reason: string) => unknown;
  /**
   * Its stall is a rate limit it keeps retrying (every retry a 429): pause it instead, resuming
   * after `waitMs` (the agent's own next try). Without it such a stall is reported as any other.
   */
  readonly onRateLimit?: (run: AgentRun, reason: string, waitMs: number) => unknown;
  /** The agent's events as they are read (tool calls, usage, its session). */
  readonly onEvents?: (run: AgentRun, events: readonly AgentEvent[]) => unknown;
  /** A person's answer to the agent's plan, taken once (plan-first runs: planApproval.ts). */
  readonly takeAnswer?: (run: AgentRun) => Promise<PlanAnswer | undefined>;
  /** Called before `exited` resolves. */
  readonly onExit?: (run: AgentRun, outcome: AgentExit) => unknown;
}

/** The supervisor's state for a run whose process lives. */
export interface LiveRun {
  readonly run: AgentRun;
  /** Set once cancel began; the exit reason then says so. */
  cancelled: boolean;
  /** Set once SIGKILL had to follow SIGTERM. */
  escalated: boolean;
  cancelling?: Promise<AgentExit>;
  /** Read from the agent's stream when it has one: what says it is stalled. */
  readonly vitals?: AgentVitals;
  /** The stall reported, until the agent shows life again. */
  stalled?: string;
  /** Its stdin, when the agent takes a person's messages while it runs (agentConversation.ts). */
  readonly conversation?: AgentConversation;
  /** A plan-first run's plan, waiting for a person or approved (planApproval.ts). */
  readonly planApproval?: PlanApproval;
}

/** What a worker whose agent a person interrupted is at (tell/interrupt). */
export const interruptedActivity = 'interrupted: waiting for your message (foreman tell) or a cancel';

/** What a worker whose plan waits for a person is at. */
export const planWaitActivity = 'waiting for you to approve its plan (foreman answer)';
