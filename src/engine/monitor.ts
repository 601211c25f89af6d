import { type LivenessVerdict, Liveness, formatDuration, judgeLiveness } from '../core/policies';
import { WorkerState } from '../core/workerMachine';
import type { Reader } from './ports';
import { type WorkerSigns, findWorkerSigns, listWorkerSigns } from './queries';
import type { EngineSettings } from './settings';
import { type StateService, needsSetup } from './stateService';
import { moveWorker } from './transitions';
import type { Unit } from './unit';

/** "14:05:30" in the owner's local time: when a paused worker resumes. */
function clockTime(epochMs: number): string {
  return new Date(epochMs).toTimeString().slice(0, 8);
}

/**
 * Liveness (ARCHITECTURE §4): WARN, STALE and DEAD from the last sign of life, with a reason. The
 * monitor never polls: the engine asks it for the next deadline and sets one timer for it.
 */
export type AgentSignals = (
  workerId: string,
) => { alive: boolean; pid?: number; lastOutputAt?: number; exitedReason?: string; stalled?: string } | undefined;

export class Monitor {
  private signals: AgentSignals = () => undefined;

  /** Adds the launched agents' process and output signals to the heartbeat (ARCHITECTURE §4). */
  useSignals(signals: AgentSignals): void {
    this.signals = signals;
  }

  constructor(
    private readonly settings: EngineSettings,
    private readonly state: StateService,
  ) {}

  /** The verdict for every worker (or for these ones), for status views. */
  verdicts(reader: Reader, now: number, ids?: readonly string[]): Map<string, LivenessVerdict & { lastHeartbeatMs: number | null }> {
    const verdicts = new Map<string, LivenessVerdict & { lastHeartbeatMs: number | null }>();
    const workers = ids ? ids.flatMap((id) => findWorkerSigns(reader, id) ?? []) : this.workers(reader);
    for (const worker of workers) {
      verdicts.set(worker.id, { ...this.judge(worker, now), lastHeartbeatMs: worker.heartbeat_ms });
    }
    return verdicts;
  }

  judge(worker: WorkerSigns, now: number): LivenessVerdict {
    switch (worker.state) {
      case WorkerState.Idle:
      case WorkerState.Completed:
        return { level: Liveness.Idle, reason: 'idle' };
      case WorkerState.Failed:
        if (worker.last_error?.startsWith(needsSetup)) return { level: Liveness.Dead, reason: worker.last_error };
        return { level: Liveness.Dead, reason: worker.last_error ? `failed: ${worker.last_error}` : 'failed' };
      case WorkerState.Paused: {
        const until = worker.paused_until ?? now;
        const when = `resumes at ${clockTime(until)}${until > now ? ` (in ${formatDuration(until - now)})` : ''}`;
        return { level: Liveness.Ok, reason: `paused: ${worker.last_error ?? 'usage limit'} — ${when}` };
      }
      case WorkerState.InReview:
      case WorkerState.Approved: {
        const waiting = now - worker.state_changed_at;
        const overdue = worker.state === WorkerState.InReview && waiting >= this.settings.reviewTimeoutMs;
        return overdue
          ? { level: Liveness.Warn, reason: `review overdue: waiting ${formatDuration(waiting)}` }
          : {
              level: Liveness.Ok,
              reason: `waiting for ${worker.state === WorkerState.InReview ? 'review' : 'merge'} ${formatDuration(waiting)}`,
            };
      }
      default: {
        const waiting = this.waitingForInput(worker);
        if (waiting)
          return {
            level: Liveness.Ok,
            reason: `waiting for you: ${waiting} (since ${formatDuration(now - (worker.needs_input_at ?? now))})`,
          };
        const stalled = this.stalled(worker.id);
        if (stalled) return { level: Liveness.Stale, reason: stalled };
        const { at, kind } = this.lastSign(worker);
        const verdict = judgeLiveness(this.settings.liveness, now, at, kind);
        return { ...verdict, reason: this.withSignals(worker.id, verdict.reason, now) };
      }
    }
  }

  /** Applies the verdicts that change state: WORKING → STALE, STALE → FAILED (a failed attempt). */
  sweep(unit: Unit, cause = ''): number {
    let moved = 0;
    for (const worker of this.workers(unit.tx)) {
      const verdict = this.judge(worker, unit.now);
      const reason = cause ? `${verdict.reason} (${cause})` : verdict.reason;
      if (worker.state === WorkerState.Working && (verdict.level === Liveness.Stale || verdict.level === Liveness.Dead)) {
        if (moveWorker(unit, worker, 'heartbeatTimeout', { reason, set: { last_error: reason } }).ok) moved++;
      } else if (worker.state === WorkerState.Stale && verdict.level === Liveness.Dead) {
        if (this.state.fail(unit, worker.id, `dead: ${reason}`).ok) moved++;
      } else if (worker.state === WorkerState.Paused && unit.now >= (worker.paused_until ?? 0)) {
        if (this.state.resume(unit, worker).ok) moved++;
      } else if (worker.state === WorkerState.InReview && this.settings.reviewTimeoutMovesToStale && verdict.level === Liveness.Warn) {
        if (moveWorker(unit, worker, 'reviewTimeout', { reason }).ok) moved++;
      }
    }
    return moved;
  }

  /**
   * The supervisor's word that a live agent is stalled (it stopped beating for it): the reason
   * leads, since "no heartbeat for 40s" would hide that the agent has been retrying for minutes.
   */
  private stalled(workerId: string): string | undefined {
    const signals = this.signals(workerId);
    if (!signals?.alive || !signals.stalled) return undefined;
    return `${signals.stalled}; process alive (pid ${signals.pid ?? '?'})`;
  }

  private withSignals(workerId: string, reason: string, now: number): string {
    const signals = this.signals(workerId);
    if (!signals) return reason;
    if (!signals.alive) return signals.exitedReason ? `${reason}; ${signals.exitedReason}` : `${reason}; agent process not running`;
    const output = signals.lastOutputAt === undefined ? 'no output yet' : `last output ${formatDuration(now - signals.lastOutputAt)} ago`;
    return `${reason}; process alive (pid ${signals.pid ?? '?'}), ${output}`;
  }

  /**
   * What a WORKING agent waits for a person for, if it does: a permission request is not silence,
   * so the worker is not taken for STALE while it waits — unless its process is gone.
   */
  private waitingForInput(worker: WorkerSigns): string | undefined {
    if (worker.state !== WorkerState.Working || !worker.needs_input || worker.needs_input_at === null) return undefined;
    if (worker.needs_input_at < worker.state_changed_at || worker.heartbeat_attempt !== worker.attempt) return undefined;
    return this.signals(worker.id)?.alive === false ? undefined : worker.needs_input;
  }

  /**
   * Each worker's next liveness deadline (undefined: none), for all workers or for `ids` only (one
   * indexed read each: the waker updates the workers a commit touched, not the whole crew).
   */
  deadlines(reader: Reader, ids?: Iterable<string>): Map<string, number | undefined> {
    const found = new Map<string, number | undefined>();
    if (ids === undefined) {
      for (const worker of this.workers(reader)) found.set(worker.id, this.deadlineOf(worker));
      return found;
    }
    for (const id of ids) {
      const worker = findWorkerSigns(reader, id);
      found.set(id, worker ? this.deadlineOf(worker) : undefined);
    }
    return found;
  }

  private deadlineOf(worker: WorkerSigns): number | undefined {
    const { at } = this.lastSign(worker);
    if (worker.state === WorkerState.Working && !this.waitingForInput(worker)) return at + this.settings.liveness.staleMs;
    if (worker.state === WorkerState.Stale) return at + this.settings.liveness.deadMs;
    if (worker.state === WorkerState.Paused) return worker.paused_until ?? at;
    if (worker.state === WorkerState.InReview && this.settings.reviewTimeoutMovesToStale) {
      return worker.state_changed_at + this.settings.reviewTimeoutMs;
    }
    return undefined;
  }

  /** A heartbeat, or failing that the last transition, is the latest sign of life. */
  private lastSign(worker: WorkerSigns): { at: number; kind: 'heartbeat' | 'assignment' } {
    const beat = worker.heartbeat_ms ?? 0;
    if (worker.state === WorkerState.Stale) {
      // A STALE worker went silent about `staleMs` before it was marked; that is its last sign.
      return { at: Math.max(beat, worker.state_changed_at - this.settings.liveness.staleMs), kind: beat ? 'heartbeat' : 'assignment' };
    }
    return beat >= worker.state_changed_at ? { at: beat, kind: 'heartbeat' } : { at: worker.state_changed_at, kind: 'assignment' };
  }

  private workers(reader: Reader): WorkerSigns[] {
    return listWorkerSigns(reader);
  }
}
