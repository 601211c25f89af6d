/**
 * A `pg` connection as every Foreman connection to the server opens it (the synchronous client's
 * thread, the listener, the merge lock): the URL as given, TLS from `.foreman/store.json`, and the
 * password from the URL, PGPASSWORD (read by `pg`) or else the password file (pgpass.ts; `pg`'s own
 * reading of it is deprecated). The password never comes from, nor goes to, a file Foreman writes.
 */
import { Client } from 'pg';
import { pgpassPassword } from './pgpass';
import type { PgTls } from './tls';
import { tlsOptionsOf } from './tls';

export interface PgConnectOptions {
  readonly ssl?: PgTls;
  readonly connectTimeoutMs: number;
}

export function newPgClient(url: string, options: PgConnectOptions): Client {
  const client = new Client({
    connectionString: url,
    connectionTimeoutMillis: options.connectTimeoutMs,
    ...(options.ssl !== undefined ? { ssl: tlsOptionsOf(options.ssl) } : {}),
  });
  if (!client.password) {
    const password = pgpassPassword({ host: client.host, port: client.port, database: client.database, user: client.user });
    if (password !== undefined) client.password = password;
  }
  return client;
}
