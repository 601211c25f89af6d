import type { Usage } from '../core/agentEvents';
import { usageTotals } from './agentSessions';
import type { Reader } from './ports';
import {
  countDoneSince,
  countIdempotencyKeys,
  countRejectionsByCode,
  countTasksByStatus,
  countTransitionPairs,
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
}

export function readMetrics(reader: Reader, now: number): Metrics {
  const transitions = countTransitionPairs(reader);
  const timeInState = summarizeTimeInState(reader);
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
  return { transitions, timeInState, rejected: { total, byCode }, idempotency: { hits, keys }, queue, throughputPerHour, usage };
}
