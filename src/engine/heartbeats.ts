import type { CommandArgs } from '../core/requests';
import { type Result, notFound, ok, refused } from '../core/result';
import { WorkerState } from '../core/workerMachine';
import { findWorker } from './rows';
import { checkAttempt, moveWorker } from './transitions';
import type { Unit } from './unit';

export interface HeartbeatReceipt {
  readonly worker: string;
  readonly state: WorkerState;
  readonly attempt: number;
  readonly recovered: boolean;
  /** A person's answer to the wait this worker reported (allow or deny), handed to the waiting agent once. */
  readonly answer: 'allow' | 'deny' | null;
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
    const activity = args.activity ?? null;
    const needsInput = args.needsInput ?? null;
    // The agent acting again (its next tool call) ends a wait for input; Foreman's own beats say nothing about it.
    const endsWait = source === 'agent' && activity !== null && needsInput === null ? 1 : 0;
    unit.tx.run(
      `INSERT INTO heartbeats (agent_id, ts_ms, status, current_task, attempt, progress, source, activity, activity_at, needs_input, needs_input_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(agent_id) DO UPDATE SET ts_ms = excluded.ts_ms, status = excluded.status, current_task = excluded.current_task,
         attempt = excluded.attempt,
         progress = CASE WHEN heartbeats.current_task IS excluded.current_task AND heartbeats.attempt IS excluded.attempt
                         THEN COALESCE(excluded.progress, heartbeats.progress) ELSE excluded.progress END, source = excluded.source,
         activity = COALESCE(excluded.activity, heartbeats.activity), activity_at = COALESCE(excluded.activity_at, heartbeats.activity_at),
         needs_input = CASE WHEN excluded.needs_input IS NOT NULL THEN excluded.needs_input WHEN ? THEN NULL ELSE heartbeats.needs_input END,
         needs_input_at = CASE WHEN excluded.needs_input IS NOT NULL THEN excluded.needs_input_at WHEN ? THEN NULL ELSE heartbeats.needs_input_at END,
         input_answer = CASE WHEN excluded.needs_input IS NOT NULL THEN NULL ELSE heartbeats.input_answer END`,
      [
        worker.id,
        unit.now,
        args.status,
        worker.task_id,
        worker.attempt || null,
        args.progress ?? null,
        source,
        activity,
        activity === null ? null : unit.now,
        needsInput,
        needsInput === null ? null : unit.now,
        endsWait,
        endsWait,
      ],
    );
    if (worker.task_id) {
      unit.tx.run('UPDATE task_claims SET lease_until_ms = ? WHERE task_id = ? AND claimed_by = ?', [
        unit.now + this.leaseMs,
        worker.task_id,
        worker.id,
      ]);
    }
    unit.events.push({ kind: 'heartbeat', workerId: worker.id });
    const answer = source === 'agent' ? this.takeAnswer(unit, worker.id) : null;
    if (worker.state !== WorkerState.Stale)
      return ok({ worker: worker.id, state: worker.state, attempt: worker.attempt, recovered: false, answer });
    const moved = moveWorker(unit, worker, 'recover', { reason: 'heartbeat received again', set: { last_error: null } });
    return moved.ok ? ok({ worker: worker.id, state: moved.value, attempt: worker.attempt, recovered: true, answer }) : moved;
  }

  /** The answer waiting for this agent, if any; handed over once (the agent acts on it). */
  private takeAnswer(unit: Unit, workerId: string): 'allow' | 'deny' | null {
    const row = unit.tx.get<{ input_answer: string | null }>('SELECT input_answer FROM heartbeats WHERE agent_id = ?', [workerId]);
    if (row?.input_answer !== 'allow' && row?.input_answer !== 'deny') return null;
    unit.tx.run('UPDATE heartbeats SET input_answer = NULL WHERE agent_id = ?', [workerId]);
    return row.input_answer;
  }

  /**
   * A person answers a worker that waits for input: the wait ends and the answer is kept for the
   * agent's next heartbeat (its hook asks until it gets one). Refused when nothing waits.
   */
  answer(
    unit: Unit,
    workerId: string,
    decision: 'allow' | 'deny',
  ): Result<{ worker: string; decision: 'allow' | 'deny'; question: string }> {
    const worker = findWorker(unit.tx, workerId);
    if (!worker) return notFound('worker', workerId);
    const waiting = unit.tx.get<{ needs_input: string | null; attempt: number | null }>(
      'SELECT needs_input, attempt FROM heartbeats WHERE agent_id = ?',
      [workerId],
    );
    if (worker.state !== WorkerState.Working || !waiting?.needs_input || waiting.attempt !== worker.attempt) {
      return refused('notWaiting', `Worker '${workerId}' is not waiting for an answer (it is ${worker.state}); nothing to ${decision}.`, {
        from: worker.state,
        trigger: 'answer',
      });
    }
    unit.tx.run('UPDATE heartbeats SET input_answer = ?, needs_input = NULL, needs_input_at = NULL WHERE agent_id = ?', [
      decision,
      workerId,
    ]);
    unit.events.push({ kind: 'heartbeat', workerId });
    return ok({ worker: workerId, decision, question: waiting.needs_input });
  }
}
