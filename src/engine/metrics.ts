import type { Usage } from '../core/agentEvents';
import { usageTotals } from './agentSessions';
import type { Reader } from './ports';
import {
  countDoneSince,
  countIdempotencyKeys,
  countRejectionsByCode,
  countTasksByStatus,
  countTransitionPairs,
  listRollups,
  readIdempotencyHits,
  summarizeTimeInState,
} from './queries';

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
  /** Tasks moved to the archive by retention, by the status they finished in. */
  readonly archived: Record<string, number>;
}

export function readMetrics(reader: Reader, now: number): Metrics {
  const transitions = withArchivedPairs(reader, countTransitionPairs(reader));
  const timeInState = withArchivedTimes(reader, summarizeTimeInState(reader));
  const byCode: Record<string, number> = {};
  let total = 0;
  for (const row of countRejectionsByCode(reader)) {
    byCode[row.code] = row.count;
    total += row.count;
  }
  const hits = readIdempotencyHits(reader);
  const keys = countIdempotencyKeys(reader);
  const queue = countTasksByStatus(reader);
  const throughputPerHour = countDoneSince(reader, now - 3600_000);
  const usage = usageTotals(reader).total;
  const archived = Object.fromEntries(listRollups(reader, 'finished').map((row) => [row.a, row.count]));
  return { transitions, timeInState, rejected: { total, byCode }, idempotency: { hits, keys }, queue, throughputPerHour, usage, archived };
}

type Pair = Metrics['transitions'][number];

/** The live log's pairs plus those of the archived rows (retention keeps their counts as rollups). */
function withArchivedPairs(reader: Reader, live: Pair[]): Pair[] {
  const byKey = new Map(live.map((pair) => [`${pair.entity}|${pair.from}|${pair.to}`, pair]));
  for (const row of listRollups(reader, 'transition_pair')) {
    const key = `${row.entity}|${row.a}|${row.b}`;
    const pair = byKey.get(key);
    byKey.set(key, { entity: row.entity, from: row.a, to: row.b, count: (pair?.count ?? 0) + row.count });
  }
  return [...byKey.values()].sort((a, b) => b.count - a.count);
}

function withArchivedTimes(
  reader: Reader,
  live: Array<{ entity: string; state: string; count: number; totalMs: number; maxMs: number }>,
): Metrics['timeInState'] {
  const byKey = new Map(live.map((row) => [`${row.entity}|${row.state}`, row]));
  for (const row of listRollups(reader, 'time_in_state')) {
    const key = `${row.entity}|${row.a}`;
    const seen = byKey.get(key) ?? { entity: row.entity, state: row.a, count: 0, totalMs: 0, maxMs: 0 };
    byKey.set(key, { ...seen, count: seen.count + row.count, totalMs: seen.totalMs + row.total, maxMs: Math.max(seen.maxMs, row.max) });
  }
  return [...byKey.values()]
    .sort((a, b) => a.entity.localeCompare(b.entity) || a.state.localeCompare(b.state))
    .map(({ entity, state, count, totalMs, maxMs }) => ({ entity, state, count, meanMs: Math.trunc(totalMs / count), maxMs }));
}
