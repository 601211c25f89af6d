import { type Usage, zeroUsage } from '../core/agentEvents';
import type { CommandArgs } from '../core/requests';
import { type Result, notFound, ok, refused } from '../core/result';
import type { Reader } from './ports';
import { findWorker } from './rows';
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
}

interface SessionRow {
  task_id: string;
  attempt: number;
  worker_id: string;
  agent_kind: string;
  session_id: string | null;
  runs: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
}

interface UsageRow {
  key: string;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
}

function usageOf(row: Omit<UsageRow, 'key'>): Usage {
  return { inputTokens: row.input_tokens, outputTokens: row.output_tokens, costUsd: row.cost_usd };
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
  unit.tx.run(
    `INSERT INTO agent_sessions (task_id, attempt, worker_id, agent_kind, session_id, runs, input_tokens, output_tokens, cost_usd, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(task_id, attempt) DO UPDATE SET worker_id = excluded.worker_id, agent_kind = excluded.agent_kind,
       session_id = COALESCE(excluded.session_id, agent_sessions.session_id), runs = agent_sessions.runs + excluded.runs,
       input_tokens = agent_sessions.input_tokens + excluded.input_tokens, output_tokens = agent_sessions.output_tokens + excluded.output_tokens,
       cost_usd = agent_sessions.cost_usd + excluded.cost_usd, updated_at = excluded.updated_at`,
    [
      worker.task_id,
      worker.attempt,
      worker.id,
      args.kind,
      args.sessionId ?? null,
      args.run ? 1 : 0,
      args.inputTokens,
      args.outputTokens,
      args.costUsd,
      unit.now,
    ],
  );
  return ok(findSession(unit.tx, worker.task_id, worker.attempt)!);
}

export function findSession(reader: Reader, taskId: string, attempt: number): AgentSession | undefined {
  const row = reader.get<SessionRow>('SELECT * FROM agent_sessions WHERE task_id = ? AND attempt = ?', [taskId, attempt]);
  if (!row) return undefined;
  return {
    taskId: row.task_id,
    attempt: row.attempt,
    workerId: row.worker_id,
    kind: row.agent_kind,
    sessionId: row.session_id,
    runs: row.runs,
    usage: usageOf(row),
  };
}

/** Sums per task and per worker, for status views (one grouped read each, not one per row). */
export function usageTotals(reader: Reader): { byTask: Map<string, Usage>; byWorker: Map<string, Usage>; total: Usage } {
  const sums = (column: 'task_id' | 'worker_id') =>
    new Map(
      reader
        .all<UsageRow>(
          `SELECT ${column} AS key, SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens, SUM(cost_usd) AS cost_usd
           FROM agent_sessions GROUP BY ${column}`,
        )
        .map((row) => [row.key, usageOf(row)]),
    );
  const byTask = sums('task_id');
  const total = reader.get<Omit<UsageRow, 'key'>>(
    `SELECT COALESCE(SUM(input_tokens), 0) AS input_tokens, COALESCE(SUM(output_tokens), 0) AS output_tokens,
            COALESCE(SUM(cost_usd), 0) AS cost_usd FROM agent_sessions`,
  );
  return { byTask, byWorker: sums('worker_id'), total: total ? usageOf(total) : zeroUsage };
}
