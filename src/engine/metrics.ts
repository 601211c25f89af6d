import type { Usage } from '../core/agentEvents';
import { usageTotals } from './agentSessions';
import type { Reader } from './ports';

export interface Metrics {
  /** Applied transitions per entity and state pair (seed 004 §7). */
  readonly transitions: Array<{ entity: string; from: string; to: string; count: number }>;
  /** How long entities stayed in each state, from consecutive audit rows. */
  readonly timeInState: Array<{ entity: string; state: string; count: number; meanMs: number; maxMs: number }>;
  /** Refused transitions and stale attempts, by code. */
  readonly rejected: { total: number; byCode: Record<string, number> };
  readonly idempotency: { hits: number; keys: number };
  readonly queue: Record<string, number>;
  /** Tasks finished in the last hour. */
  readonly throughputPerHour: number;
  /** Tokens and cost of every agent run so far, as the agents reported them. */
  readonly usage: Usage;
}

export function readMetrics(reader: Reader, now: number): Metrics {
  const transitions = reader.all<{ entity: string; from: string; to: string; count: number }>(
    `SELECT entity_type AS entity, from_state AS "from", to_state AS "to", COUNT(*) AS count
     FROM transitions GROUP BY entity_type, from_state, to_state ORDER BY count DESC`,
  );
  const timeInState = reader.all<{ entity: string; state: string; count: number; meanMs: number; maxMs: number }>(
    `SELECT entity AS entity, state AS state, COUNT(*) AS count, CAST(AVG(duration) AS INTEGER) AS meanMs, MAX(duration) AS maxMs
     FROM (SELECT entity_type AS entity, to_state AS state,
                  LEAD(ts_ms) OVER (PARTITION BY entity_type, entity_id ORDER BY seq) - ts_ms AS duration
           FROM transitions)
     WHERE duration IS NOT NULL GROUP BY entity, state ORDER BY entity, state`,
  );
  const byCode: Record<string, number> = {};
  let total = 0;
  for (const row of reader.all<{ code: string; count: number }>('SELECT code, COUNT(*) AS count FROM rejections GROUP BY code')) {
    byCode[row.code] = row.count;
    total += row.count;
  }
  const hits = Number(reader.get<{ value: string }>(`SELECT value FROM meta WHERE key = 'idempotency_hits'`)?.value ?? 0);
  const keys = reader.get<{ n: number }>('SELECT COUNT(*) AS n FROM idempotency_keys')!.n;
  const queue: Record<string, number> = {};
  for (const row of reader.all<{ status: string; count: number }>('SELECT status, COUNT(*) AS count FROM tasks GROUP BY status')) {
    queue[row.status] = row.count;
  }
  const throughputPerHour = reader.get<{ n: number }>(`SELECT COUNT(*) AS n FROM tasks WHERE status = 'done' AND finished_at >= ?`, [
    now - 3600_000,
  ])!.n;
  const usage = usageTotals(reader).total;
  return { transitions, timeInState, rejected: { total, byCode }, idempotency: { hits, keys }, queue, throughputPerHour, usage };
}
