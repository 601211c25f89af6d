/**
 * The server's clock, which the owners of a shared store keep their leases by (issue 29,
 * src/engine/ownerLease.ts): every owner writes and judges leases in the server's time, so clocks
 * that disagree between machines cannot make a live owner look expired. One statement, on the
 * owner's own connection (inside its transaction when it is in one: `clock_timestamp()` is the real
 * time all the same), with the server's start time, after which owners wait a lease before
 * judging anyone's (a restart of the server is an outage every owner had).
 */
import type { LeaseClock, LeaseTime } from '../../engine/ownerLease';
import type { PgStore } from './pgStore';

const serverTimeSql = `SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint AS now_ms,
  (extract(epoch from pg_postmaster_start_time()) * 1000)::bigint AS started_ms`;

export function pgLeaseClock(store: PgStore): LeaseClock {
  return {
    read(): LeaseTime {
      const row = store.read((reader) => reader.get<{ now_ms: unknown; started_ms: unknown }>(serverTimeSql));
      const now = row?.now_ms;
      const startedAt = row?.started_ms;
      if (typeof now !== 'number' || !Number.isFinite(now) || typeof startedAt !== 'number' || !Number.isFinite(startedAt)) {
        throw new Error(`${store.server} answered the time with ${JSON.stringify(row)}, not two numbers of milliseconds`);
      }
      return { now, startedAt };
    },
  };
}
