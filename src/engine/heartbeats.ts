import type { CommandArgs } from '../core/requests';
import { type Result, notFound, ok, refused } from '../core/result';
import { WorkerState } from '../core/workerMachine';
import { answerInputWait, clearInputAnswer, findInputAnswer, findInputWait, findWorker, renewTaskLease, upsertHeartbeat } from './queries';
import { checkAttempt, moveWorker } from './transitions';
import type { Unit } from './unit';

export interface HeartbeatReceipt {
  readonly worker: string;
  readonly state: WorkerState;
  readonly attempt: number;
  readonly recovered: boolean;
  /** A person's answer to the wait this worker reported (allow or deny), handed to the waiting agent once. */
  readonly answer: 'allow' | 'deny' | null;
  /** The person's note with the answer (why a plan was rejected), if they wrote one. */
  readonly note?: string;
}

/**
 * Heartbeats (seed 002): an upsert per worker that renews the task's lease. They are written
 * without an fsync of their own (ARCHITECTURE §2: losing the last seconds of them is acceptable),
 * except when one brings a STALE worker back, which is a transition and therefore durable. On a
 * shared store a beat notifies no other owner (its `heartbeat` event names no row: unit.ts
 * `changedRowsOf`); whoever needs another machine's liveness reads it from the table on a timer.
 */
export class HeartbeatService {
  constructor(private readonly leaseMs: number) {}

  beat(unit: Unit, args: CommandArgs<'heartbeat'>, source: 'agent' | 'supervisor' = 'agent'): Result<HeartbeatReceipt> {
    const worker = findWorker(unit.tx, args.worker);
    if (!worker) return notFound('worker', args.worker);
    const fenced = checkAttempt(worker.attempt, args.attempt, `worker '${args.worker}'`, 'heartbeat');
    if (!fenced.ok) return fenced;
    const activity = args.activity ?? null;
    const needsInput = args.needsInput ?? null;
    // The agent acting again (its next tool call) ends a wait for input; Foreman's own beats say nothing about it.
    const endsWait = source === 'agent' && activity !== null && needsInput === null;
    upsertHeartbeat(
      unit.tx,
      worker.id,
      unit.now,
      args.status,
      worker.task_id,
      worker.attempt || null,
      args.progress ?? null,
      source,
      activity,
      needsInput,
      endsWait,
    );
    if (worker.task_id) renewTaskLease(unit.tx, worker.task_id, worker.id, unit.now + this.leaseMs);
    const touched = args.touched?.length ? { touched: args.touched } : {};
    unit.events.push({ kind: 'heartbeat', workerId: worker.id, mayEndWait: endsWait, ...touched });
    const { answer, note } = source === 'agent' ? this.takeAnswer(unit, worker.id) : { answer: null };
    const said = note ? { note } : {};
    if (worker.state !== WorkerState.Stale)
      return ok({ worker: worker.id, state: worker.state, attempt: worker.attempt, recovered: false, answer, ...said });
    const moved = moveWorker(unit, worker, 'recover', { reason: 'heartbeat received again', set: { last_error: null } });
    return moved.ok ? ok({ worker: worker.id, state: moved.value, attempt: worker.attempt, recovered: true, answer, ...said }) : moved;
  }

  /**
   * The supervisor's report that a live agent stalled: a WORKING worker goes STALE with the reason
   * (then the crew stops the agent, keeping its work, as for any STALE worker). A worker that is no
   * longer WORKING, or a report of an older attempt, moves nothing.
   */
  stall(unit: Unit, args: CommandArgs<'stall'>): Result<{ worker: string; state: WorkerState; moved: boolean }> {
    const worker = findWorker(unit.tx, args.worker);
    if (!worker) return notFound('worker', args.worker);
    const fenced = checkAttempt(worker.attempt, args.attempt, `worker '${args.worker}'`, 'stall');
    if (!fenced.ok) return fenced;
    if (worker.state !== WorkerState.Working) return ok({ worker: worker.id, state: worker.state, moved: false });
    const moved = moveWorker(unit, worker, 'heartbeatTimeout', { reason: args.reason, set: { last_error: args.reason } });
    return moved.ok ? ok({ worker: worker.id, state: moved.value, moved: true }) : moved;
  }

  /** The answer waiting for this agent, if any; handed over once (the agent acts on it). */
  private takeAnswer(unit: Unit, workerId: string): { answer: 'allow' | 'deny' | null; note?: string } {
    const found = findInputAnswer(unit.tx, workerId);
    const answer = found?.answer;
    if (answer !== 'allow' && answer !== 'deny') return { answer: null };
    clearInputAnswer(unit.tx, workerId);
    return found?.note ? { answer, note: found.note } : { answer };
  }

  /**
   * A person answers a worker that waits for input: the wait ends and the answer is kept for the
   * agent's next heartbeat (its hook asks until it gets one). Refused when nothing waits.
   */
  answer(
    unit: Unit,
    workerId: string,
    decision: 'allow' | 'deny',
    note?: string,
  ): Result<{ worker: string; decision: 'allow' | 'deny'; question: string }> {
    const worker = findWorker(unit.tx, workerId);
    if (!worker) return notFound('worker', workerId);
    const waiting = findInputWait(unit.tx, workerId);
    if (worker.state !== WorkerState.Working || !waiting?.needs_input || waiting.attempt !== worker.attempt) {
      return refused('notWaiting', `Worker '${workerId}' is not waiting for an answer (it is ${worker.state}); nothing to ${decision}.`, {
        from: worker.state,
        trigger: 'answer',
      });
    }
    answerInputWait(unit.tx, workerId, decision, note ?? null);
    unit.events.push({ kind: 'heartbeat', workerId, mayEndWait: true });
    return ok({ worker: workerId, decision, question: waiting.needs_input });
  }
}
