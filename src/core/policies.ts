/** Picking, backoff and liveness policies: pure functions of settings and time. */

export interface LivenessSettings {
  /** No heartbeat for this long: WARN. */
  readonly warnMs: number;
  /** No heartbeat for this long: STALE (the worker moves to STALE). */
  readonly staleMs: number;
  /** No heartbeat for this long: DEAD (a STALE worker moves to FAILED). */
  readonly deadMs: number;
}

/** Seed 002's levels: 30 s WARN, 100 s STALE, 5 min DEAD. */
export const defaultLiveness: LivenessSettings = { warnMs: 30_000, staleMs: 100_000, deadMs: 300_000 };

/** When a live agent that streams events counts as stalled (src/infra/agents/agentVitals.ts). */
export interface AgentStallSettings {
  /** Nothing from the agent (no event, no tool running) for this long. */
  readonly silenceMs: number;
  /** The agent's own retries of its model call going on for this long. */
  readonly retryMs: number;
  /** Whether a usage or rate limit pauses the worker until the reset (false: an ordinary failed attempt). */
  readonly pauseOnLimits: boolean;
  /** How long to pause when the agent does not say when its limit resets. */
  readonly limitPauseMs: number;
}

export const defaultAgentStall: AgentStallSettings = { silenceMs: 300_000, retryMs: 120_000, pauseOnLimits: true, limitPauseMs: 900_000 };

export const Liveness = { Ok: 'OK', Warn: 'WARN', Stale: 'STALE', Dead: 'DEAD', Idle: 'IDLE' } as const;
export type Liveness = (typeof Liveness)[keyof typeof Liveness];

export interface LivenessVerdict {
  readonly level: Liveness;
  /** Why, in words a person can read: "no heartbeat for 2m10s". */
  readonly reason: string;
}

export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

/**
 * Liveness of a worker that holds a task, from its last sign of life (a heartbeat, or the moment
 * it was assigned when it never sent one).
 */
export function judgeLiveness(
  settings: LivenessSettings,
  now: number,
  lastSignMs: number,
  lastSignKind: 'heartbeat' | 'assignment',
): LivenessVerdict {
  const silent = now - lastSignMs;
  const reason =
    lastSignKind === 'heartbeat'
      ? `no heartbeat for ${formatDuration(silent)}`
      : `no heartbeat since it was assigned ${formatDuration(silent)} ago`;
  if (silent >= settings.deadMs) return { level: Liveness.Dead, reason };
  if (silent >= settings.staleMs) return { level: Liveness.Stale, reason };
  if (silent >= settings.warnMs) return { level: Liveness.Warn, reason };
  // "heartbeat 0s ago" only when a heartbeat is the sign: beside a HEARTBEAT column of "-" (or of
  // an older beat, from before the assignment) it would contradict it.
  if (lastSignKind === 'assignment') return { level: Liveness.Ok, reason };
  return { level: Liveness.Ok, reason: `heartbeat ${formatDuration(silent)} ago` };
}

export interface BackoffSettings {
  readonly baseMs: number;
  readonly maxMs: number;
}

export const defaultBackoff: BackoffSettings = { baseMs: 5_000, maxMs: 300_000 };

/** Exponential backoff before retry number `attempt` (1-based attempt that just failed). */
export function retryDelay(settings: BackoffSettings, failedAttempt: number): number {
  return Math.min(settings.maxMs, settings.baseMs * 2 ** Math.max(0, failedAttempt - 1));
}

/** A task may be retried while its attempts are not used up. */
export function hasAttemptsLeft(attempt: number, maxAttempts: number): boolean {
  return attempt < maxAttempts;
}
