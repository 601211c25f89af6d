/**
 * A `pg` connection as every Foreman connection to the server opens it (the synchronous client's
 * thread, the listener, the merge lock): the URL as given, TLS from `.foreman/store.json`, and the
 * password from the URL, PGPASSWORD (read by `pg`) or else the password file (pgpass.ts; `pg`'s own
 * reading of it is deprecated). The password never comes from, nor goes to, a file Foreman writes.
 * And how an owner that starts together with others waits its turn (the start-up budget below).
 */
import { Client } from 'pg';
import { pgpassPassword } from './pgpass';
import type { PgTls } from './tls';
import { tlsOptionsOf } from './tls';

export interface PgConnectOptions {
  readonly ssl?: PgTls;
  readonly connectTimeoutMs: number;
  /** Send queued statements without waiting for each answer (the synchronous client's worker). */
  readonly pipeline?: boolean;
}

export function newPgClient(url: string, options: PgConnectOptions): Client {
  const client = new Client({
    connectionString: url,
    connectionTimeoutMillis: options.connectTimeoutMs,
    ...(options.pipeline ? { pipeline: true } : {}),
    ...(options.ssl !== undefined ? { ssl: tlsOptionsOf(options.ssl) } : {}),
  });
  if (!client.password) {
    const password = pgpassPassword({ host: client.host, port: client.port, database: client.database, user: client.user });
    if (password !== undefined) client.password = password;
  }
  return client;
}

/**
 * How long an owner keeps trying to open while the server is busy with the owners that start with
 * it (issue 29: ten owners started at once all open); past it, it says what stood in its way.
 */
export const defaultStartupBudgetMs = 60_000;

/**
 * Whether a failure to open passes once the owners starting together are through: a statement that
 * waited past its time (`timeout`), too many connections at once (53300), a server still starting
 * (57P03), a connection reset under load. A wrong password, an unknown database or host, or nothing
 * listening at the address is said at once.
 */
export function passingConnectFailure(code: string | undefined): boolean {
  return code === 'timeout' || code === '53300' || code === '57P03' || code === 'ECONNRESET';
}

/**
 * The pause before retry `attempt` (0 first): doubling from 100 ms to at most 2 s, each drawn from
 * its upper half so that owners that started together do not retry in step.
 */
export function startupPauseMs(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(2_000, 100 * 2 ** Math.min(attempt, 10));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Blocks this thread for `ms` (opening a store is synchronous: nothing else runs meanwhile anyway). */
export function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.max(0, ms));
}
