import type { CommandArgs } from '../core/requests';
import { type Result, notFound, ok } from '../core/result';
import { WorkerState } from '../core/workerMachine';
import { findWorker } from './rows';
import { checkAttempt, moveWorker } from './transitions';
import type { Unit } from './unit';

export interface HeartbeatReceipt {
  readonly worker: string;
  readonly state: WorkerState;
  readonly attempt: number;
  readonly recovered: boolean;
}

/**
 * Heartbeats (seed 002): an upsert per worker that renews the task's lease. They are written
 * without an fsync of their own (ARCHITECTURE §2: losing the last seconds of them is acceptable),
 * except when one brings a STALE worker back, which is a transition and therefore durable.
 */
export class HeartbeatService {
  constructor(private readonly leaseMs: number) {}

  /** Whether this heartbeat will change a state (and so must be written durably). */
  recovers(unit: Pick<Unit, 'tx'>, workerId: string): boolean {
    return findWorker(unit.tx, workerId)?.state === WorkerState.Stale;
  }

  beat(unit: Unit, args: CommandArgs<'heartbeat'>, source: 'agent' | 'supervisor' = 'agent'): Result<HeartbeatReceipt> {
    const worker = findWorker(unit.tx, args.worker);
    if (!worker) return notFound('worker', args.worker);
    const fenced = checkAttempt(worker.attempt, args.attempt, `worker '${args.worker}'`, 'heartbeat');
    if (!fenced.ok) return fenced;
    unit.tx.run(
      `INSERT INTO heartbeats (agent_id, ts_ms, status, current_task, attempt, progress, source) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(agent_id) DO UPDATE SET ts_ms = excluded.ts_ms, status = excluded.status, current_task = excluded.current_task,
         attempt = excluded.attempt, progress = COALESCE(excluded.progress, heartbeats.progress), source = excluded.source`,
      [worker.id, unit.now, args.status, worker.task_id, worker.attempt || null, args.progress ?? null, source],
    );
    if (worker.task_id) {
      unit.tx.run('UPDATE task_claims SET lease_until_ms = ? WHERE task_id = ? AND claimed_by = ?', [
        unit.now + this.leaseMs,
        worker.task_id,
        worker.id,
      ]);
    }
    unit.events.push({ kind: 'heartbeat', workerId: worker.id });
    if (worker.state !== WorkerState.Stale)
      return ok({ worker: worker.id, state: worker.state, attempt: worker.attempt, recovered: false });
    const moved = moveWorker(unit, worker, 'recover', { reason: 'heartbeat received again', set: { last_error: null } });
    return moved.ok ? ok({ worker: worker.id, state: moved.value, attempt: worker.attempt, recovered: true }) : moved;
  }
}
