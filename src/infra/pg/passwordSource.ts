/**
 * Whether a connection to a password-less store URL already has a password waiting for it, the way
 * the connection itself would find one (connect.ts): PGPASSWORD, else the password file's line for
 * that server. `foreman init --store` asks for a password only when there is none.
 */
import { type PgpassTarget, pgpassPassword } from './pgpass';

/** The server, port, database and user a URL connects to, after libpq's defaults; undefined when it does not parse. */
export function pgpassTargetOf(url: string, env: NodeJS.ProcessEnv = process.env): PgpassTarget | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const user = decodeURIComponent(parsed.username) || env['PGUSER'] || env['USER'] || env['USERNAME'];
  return {
    host: parsed.searchParams.get('host') ?? (decodeURIComponent(parsed.hostname) || env['PGHOST']),
    port: parsed.port ? Number(parsed.port) : env['PGPORT'] ? Number(env['PGPORT']) : undefined,
    database: decodeURIComponent(parsed.pathname.slice(1)) || env['PGDATABASE'] || user,
    user,
  };
}

/** Where the password for `url` would come from without asking: `PGPASSWORD`, the password file, or nowhere. */
export function storedPasswordSource(url: string, env: NodeJS.ProcessEnv = process.env): 'PGPASSWORD' | 'pgpass' | undefined {
  if (env['PGPASSWORD']) return 'PGPASSWORD';
  const target = pgpassTargetOf(url, env);
  return target && pgpassPassword(target, env) !== undefined ? 'pgpass' : undefined;
}
