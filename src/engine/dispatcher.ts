import { WorkerState } from '../core/workerMachine';
import type { Reader } from './ports';
import type { OverlapForecast } from './overlaps/overlapForecast';
import type { QueuePicker } from './queuePicker';
import { countBusyWorkers, countBusyWorkersOnHost, listRunnableCandidates, listWorkersIn, listWorkersInOnHost } from './queries';
import type { TaskRow } from './rows';
import type { StateService } from './stateService';
import type { Unit } from './unit';

/** How many runnable tasks, in queue order, the dispatcher looks at to avoid an overlap. */
const overlapCandidates = 8;

export interface Assignment {
  readonly worker: string;
  readonly task: string;
  readonly attempt: number;
}

/** How many workers may hold running work (ASSIGNED, WORKING or STALE) at once. */
export interface DispatchLimits {
  /** On this owner's machine (with one owner: in all). */
  readonly concurrency: number;
  /** Across every machine of a shared store; undefined: no team-wide cap. */
  readonly teamConcurrency?: number | undefined;
}

/**
 * Hands runnable tasks to idle workers while the concurrency limits allow, preferring the worker
 * that had the task before (its worktree already holds the previous attempt's branch). Workers of
 * an agent profile that is paused on a usage limit wait with it.
 */
export class Dispatcher {
  constructor(
    private readonly limits: DispatchLimits,
    private readonly picker: QueuePicker,
    private readonly state: StateService,
    /** With several owners: this owner's machine; it hands tasks only to workers it can launch (this host's or any host's). */
    private readonly host?: string,
    /** Expected files of tasks not yet started (docs/overlaps.md): among runnable tasks, one overlapping no running task goes first. */
    private readonly forecast?: OverlapForecast,
  ) {}

  /**
   * Whether a dispatch could hand anything out: room in the crew and a runnable task. Read-only, so
   * the common answers (a full crew, nothing runnable) open no transaction (issue 34); `dispatch`
   * looks again inside its own.
   */
  mayAssign(reader: Reader, now: number): boolean {
    return this.room(reader) > 0 && this.picker.peek(reader, now) !== undefined;
  }

  dispatch(unit: Unit): Assignment[] {
    const assignments: Assignment[] = [];
    let room = this.room(unit.tx);
    // It runs after every commit that frees a worker or a task; a full crew is the common answer.
    if (room <= 0) return assignments;
    const everyIdle =
      this.host === undefined ? listWorkersIn(unit.tx, WorkerState.Idle) : listWorkersInOnHost(unit.tx, WorkerState.Idle, this.host);
    // A profile whose agent is paused on its plan's limit would run straight into the same limit.
    const limited = new Set(listWorkersIn(unit.tx, WorkerState.Paused).map((worker) => worker.agent));
    const idle = limited.size ? everyIdle.filter((worker) => !limited.has(worker.agent)) : everyIdle;
    while (room > 0 && idle.length > 0) {
      const task = this.next(unit);
      if (!task) break;
      const preferred = idle.findIndex((worker) => worker.id === task.last_worker_id);
      const [worker] = idle.splice(preferred >= 0 ? preferred : 0, 1);
      if (!worker) break;
      const claimed = this.picker.claimTask(unit, task, worker.id);
      if (!claimed) continue;
      const taken = this.state.takeTask(unit, worker, claimed);
      if (!taken.ok) throw new Error(`bug: idle worker ${worker.id} refused its assignment: ${taken.message}`);
      assignments.push({ worker: worker.id, task: claimed.id, attempt: claimed.attempt });
      room--;
    }
    return assignments;
  }

  /** The next runnable task: in queue order, except that a task expected to overlap running work waits for one that is not. */
  private next(unit: Unit): TaskRow | undefined {
    if (!this.forecast || this.forecast.isEmpty(unit.tx)) return this.picker.peek(unit.tx, unit.now);
    const forecast = this.forecast;
    const candidates = listRunnableCandidates(unit.tx, unit.now, overlapCandidates);
    return candidates.find((task) => !forecast.collides(unit.tx, task)) ?? candidates[0];
  }

  /**
   * Places left: `concurrency` counts this machine's busy workers only (each machine's CPU and
   * memory are its own; another machine's agents must not keep this one's idle), and the team's
   * cap, when set, every busy worker.
   */
  private room(reader: Reader): number {
    const { concurrency, teamConcurrency } = this.limits;
    const everywhere = this.host === undefined || teamConcurrency !== undefined ? countBusyWorkers(reader) : 0;
    const here = this.host === undefined ? everywhere : countBusyWorkersOnHost(reader, this.host);
    const local = concurrency - here;
    return teamConcurrency === undefined ? local : Math.min(local, teamConcurrency - everywhere);
  }
}
