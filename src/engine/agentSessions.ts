import { type Usage, addUsage, zeroUsage } from '../core/agentEvents';
import { type AgentConfinement, agentConfinements } from '../core/agentConfinement';
import type { CommandArgs } from '../core/requests';
import { type Result, notFound, ok, refused } from '../core/result';
import type { Reader } from './ports';
import {
  type UsageSumRow,
  addSessionUsage,
  findSessionRow,
  findWorker,
  listRollups,
  sumUsage,
  sumUsageByTask,
  sumUsageByWorker,
  sumUsageOfTasks,
  sumUsageOfWorkers,
} from './queries';
import { checkAttempt } from './transitions';
import type { Unit } from './unit';

/** The agent session of one task attempt: what a follow-up resumes, and what its runs cost. */
export interface AgentSession {
  readonly taskId: string;
  readonly attempt: number;
  readonly workerId: string;
  readonly kind: string;
  readonly sessionId: string | null;
  /** Launches and resumes of the agent in this attempt. */
  readonly runs: number;
  readonly usage: Usage;
  /** How its last run was confined; null when no launch said (an older row, a terminal run). */
  readonly confinement: AgentConfinement | null;
}

function usageOf(row: Omit<UsageSumRow, 'key'>): Usage {
  return {
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    cacheReadTokens: row.cache_read_tokens,
    cacheWriteTokens: row.cache_write_tokens,
    costUsd: row.cost_usd,
  };
}

/**
 * Usage reports (ARCHITECTURE §6): each adds to the current attempt of the worker's task, fenced
 * like every other agent message, so a late report of a dead attempt cannot be billed to the next.
 */
export function recordUsage(unit: Unit, args: CommandArgs<'usage'>): Result<AgentSession> {
  const worker = findWorker(unit.tx, args.worker);
  if (!worker) return notFound('worker', args.worker);
  const fenced = checkAttempt(worker.attempt, args.attempt, `worker '${args.worker}'`, 'usage');
  if (!fenced.ok) return fenced;
  if (!worker.task_id) return refused('noTask', `Worker '${args.worker}' holds no task, so there is no run to record usage for.`);
  addSessionUsage(unit.tx, {
    taskId: worker.task_id,
    attempt: worker.attempt,
    workerId: worker.id,
    agentKind: args.kind,
    sessionId: args.sessionId ?? null,
    runs: args.run ? 1 : 0,
    inputTokens: args.inputTokens,
    outputTokens: args.outputTokens,
    cacheReadTokens: args.cacheReadTokens,
    cacheWriteTokens: args.cacheWriteTokens,
    costUsd: args.costUsd,
    confinement: args.confinement ?? null,
    now: unit.now,
  });
  unit.events.push({ kind: 'rowsChanged', workers: [worker.id], tasks: [worker.task_id] });
  const session = findSession(unit.tx, worker.task_id, worker.attempt);
  if (!session)
    throw new Error(`bug: the agent session of ${worker.task_id} attempt ${worker.attempt} is missing right after it was written`);
  return ok(session);
}

export function findSession(reader: Reader, taskId: string, attempt: number): AgentSession | undefined {
  const row = findSessionRow(reader, taskId, attempt);
  if (!row) return undefined;
  return {
    taskId: row.task_id,
    attempt: row.attempt,
    workerId: row.worker_id,
    kind: row.agent_kind,
    sessionId: row.session_id,
    runs: row.runs,
    usage: usageOf(row),
    confinement: agentConfinements.find((known) => known === row.confinement) ?? null,
  };
}

/** Sums per task and per worker, for status views (one grouped read each, not one per row). */
/**
 * Usage per task, per worker and in all. With `only`, per task and per worker for those ids alone
 * (a view re-reading the rows a commit touched); the total is always the whole.
 */
export function usageTotals(
  reader: Reader,
  only?: { readonly workers: readonly string[]; readonly tasks: readonly string[] },
): { byTask: Map<string, Usage>; byWorker: Map<string, Usage>; total: Usage } {
  const byKey = (rows: UsageSumRow[]) => new Map(rows.map((row) => [row.key, usageOf(row)]));
  const byTask = byKey(only ? sumUsageOfTasks(reader, only.tasks) : sumUsageByTask(reader));
  const byWorker = byKey(only ? sumUsageOfWorkers(reader, only.workers) : sumUsageByWorker(reader));
  const live = sumUsage(reader);
  let total = live ? usageOf(live) : zeroUsage;
  // Archived tasks took their sessions along; what they used stays counted in the rollups.
  for (const [workerId, archived] of archivedUsageByWorker(reader)) {
    if (!only || only.workers.includes(workerId)) byWorker.set(workerId, addUsage(byWorker.get(workerId) ?? zeroUsage, archived));
    total = addUsage(total, archived);
  }
  return { byTask, byWorker, total };
}

function archivedUsageByWorker(reader: Reader): Map<string, Usage> {
  const byWorker = new Map<string, Usage>();
  const field = {
    usage_input: 'inputTokens',
    usage_output: 'outputTokens',
    usage_cache_read: 'cacheReadTokens',
    usage_cache_write: 'cacheWriteTokens',
    usage_cost: 'costUsd',
  } as const;
  for (const metric of Object.keys(field) as Array<keyof typeof field>) {
    for (const row of listRollups(reader, metric)) {
      byWorker.set(row.a, { ...(byWorker.get(row.a) ?? zeroUsage), [field[metric]]: row.total });
    }
  }
  return byWorker;
}
