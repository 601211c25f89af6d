import type { Reader, Tx } from '../ports';

/**
 * The `agent_sessions` table: per task attempt, the agent's own session (what a follow-up
 * resumes) and the tokens and money its runs used. Sums are computed from it, never stored.
 */

/** A session as stored. */
export interface SessionRow {
  task_id: string;
  attempt: number;
  worker_id: string;
  agent_kind: string;
  session_id: string | null;
  runs: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number;
  /** How the last run was confined (core/agentConfinement.ts); null before it was recorded. */
  confinement: string | null;
  updated_at: number;
}

/** Summed usage; `key` is the task or worker id for grouped sums. */
export interface UsageSumRow {
  key: string;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number;
}

export interface UsageReport {
  readonly taskId: string;
  readonly attempt: number;
  readonly workerId: string;
  readonly agentKind: string;
  /** Kept from an earlier report when this one has none. */
  readonly sessionId: string | null;
  /** Launches and resumes this report counts (0 or 1). */
  readonly runs: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly costUsd: number;
  /** Kept from an earlier report when this one has none. */
  readonly confinement: string | null;
  readonly now: number;
}

/** Adds a usage report to its attempt's row, creating it on the first report. */
export function addSessionUsage(tx: Tx, report: UsageReport): void {
  tx.run(
    `INSERT INTO agent_sessions (task_id, attempt, worker_id, agent_kind, session_id, runs, input_tokens, output_tokens,
                                 cache_read_tokens, cache_write_tokens, cost_usd, confinement, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(task_id, attempt) DO UPDATE SET worker_id = excluded.worker_id, agent_kind = excluded.agent_kind,
       session_id = COALESCE(excluded.session_id, agent_sessions.session_id), runs = agent_sessions.runs + excluded.runs,
       input_tokens = agent_sessions.input_tokens + excluded.input_tokens, output_tokens = agent_sessions.output_tokens + excluded.output_tokens,
       cache_read_tokens = agent_sessions.cache_read_tokens + excluded.cache_read_tokens,
       cache_write_tokens = agent_sessions.cache_write_tokens + excluded.cache_write_tokens,
       cost_usd = agent_sessions.cost_usd + excluded.cost_usd,
       confinement = COALESCE(excluded.confinement, agent_sessions.confinement), updated_at = excluded.updated_at`,
    [
      report.taskId,
      report.attempt,
      report.workerId,
      report.agentKind,
      report.sessionId,
      report.runs,
      report.inputTokens,
      report.outputTokens,
      report.cacheReadTokens,
      report.cacheWriteTokens,
      report.costUsd,
      report.confinement,
      report.now,
    ],
  );
}

export function findSessionRow(reader: Reader, taskId: string, attempt: number): SessionRow | undefined {
  return reader.get<SessionRow>('SELECT * FROM agent_sessions WHERE task_id = ? AND attempt = ?', [taskId, attempt]);
}

/** Usage summed per task. */
export function sumUsageByTask(reader: Reader): UsageSumRow[] {
  return reader.all<UsageSumRow>(
    `SELECT task_id AS key, SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens,
                  SUM(cache_read_tokens) AS cache_read_tokens, SUM(cache_write_tokens) AS cache_write_tokens, SUM(cost_usd) AS cost_usd
           FROM agent_sessions GROUP BY task_id`,
  );
}

/** Usage summed per task, for these tasks only (at most `maxIdsPerRead`). */
export function sumUsageOfTasks(reader: Reader, taskIds: readonly string[]): UsageSumRow[] {
  if (!taskIds.length) return [];
  return reader.all<UsageSumRow>(
    `SELECT task_id AS key, SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens,
                  SUM(cache_read_tokens) AS cache_read_tokens, SUM(cache_write_tokens) AS cache_write_tokens, SUM(cost_usd) AS cost_usd
           FROM agent_sessions WHERE task_id IN (${taskIds.map(() => '?').join(', ')}) GROUP BY task_id`,
    [...taskIds],
  );
}

/** Usage summed per worker, for these workers only (at most `maxIdsPerRead`). */
export function sumUsageOfWorkers(reader: Reader, workerIds: readonly string[]): UsageSumRow[] {
  if (!workerIds.length) return [];
  return reader.all<UsageSumRow>(
    `SELECT worker_id AS key, SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens,
                  SUM(cache_read_tokens) AS cache_read_tokens, SUM(cache_write_tokens) AS cache_write_tokens, SUM(cost_usd) AS cost_usd
           FROM agent_sessions WHERE worker_id IN (${workerIds.map(() => '?').join(', ')}) GROUP BY worker_id`,
    [...workerIds],
  );
}

/** Usage summed per worker. */
export function sumUsageByWorker(reader: Reader): UsageSumRow[] {
  return reader.all<UsageSumRow>(
    `SELECT worker_id AS key, SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens,
                  SUM(cache_read_tokens) AS cache_read_tokens, SUM(cache_write_tokens) AS cache_write_tokens, SUM(cost_usd) AS cost_usd
           FROM agent_sessions GROUP BY worker_id`,
  );
}

/** Usage of every session, zero when there is none. */
export function sumUsage(reader: Reader): Omit<UsageSumRow, 'key'> | undefined {
  return reader.get<Omit<UsageSumRow, 'key'>>(
    `SELECT COALESCE(SUM(input_tokens), 0) AS input_tokens, COALESCE(SUM(output_tokens), 0) AS output_tokens,
            COALESCE(SUM(cache_read_tokens), 0) AS cache_read_tokens, COALESCE(SUM(cache_write_tokens), 0) AS cache_write_tokens,
            COALESCE(SUM(cost_usd), 0) AS cost_usd FROM agent_sessions`,
  );
}
