/**
 * `foreman doctor`'s checks of a store (issue 14), one function per backend (storeBackends.ts):
 * reachable, its schema version against this Foreman's, and on a shared server the clock. They read
 * and never write: PostgreSQL is reached with a client of its own (no migration, no lock), so the
 * check runs beside a live owner; sql.js is opened as a one-shot CLI call would when nobody owns it.
 */
import type { Store } from '../../engine/ports';
import { acquireOwnerLock, migrations, readOwner } from '../db';
import { PgError, SyncPgClient, describeServer } from '../pg/syncClient';
import { pgpassFile, pgpassPassword, pgpassProblem } from '../pg/pgpass';
import type { StoreConfig } from './storeConfig';

export type CheckStatus = 'pass' | 'warn' | 'fail' | 'skip';

/** One line of the report. */
export interface DoctorCheck {
  readonly name: 'workspace' | 'store' | 'schema' | 'clock' | 'remote';
  readonly status: CheckStatus;
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

/** What a store check takes from `foreman doctor`. */
export interface StoreCheckOptions {
  /** A line before each slow step, for a person watching. */
  readonly progress: (line: string) => void;
  /** How long the server may take to answer. Default 5 s. */
  readonly connectTimeoutMs?: number;
}

/** Above this clock difference a warning: liveness compares times that different machines wrote. */
export const skewWarnMs = 1_000;
/** Above this it fails: heartbeats would look late (or early) by a good part of the default 30 s warning. */
export const skewFailMs = 10_000;

/** The schema this Foreman's code knows. */
const codeSchemaVersion = migrations.at(-1)?.version ?? 0;

/** Reachability, schema version and clock skew on one connection; later checks are skipped when it cannot connect. */
export function checkPostgres(config: Extract<StoreConfig, { kind: 'postgres' }>, options: StoreCheckOptions): DoctorCheck[] {
  const { progress } = options;
  const server = describeServer(config.url);
  progress(`connecting to ${server}…`);
  const client = new SyncPgClient(config.url, {
    connectTimeoutMs: options.connectTimeoutMs ?? 5_000,
    statementTimeoutMs: (options.connectTimeoutMs ?? 5_000) + 5_000,
    ...(config.ssl !== undefined ? { ssl: config.ssl } : {}),
  });
  const checks: DoctorCheck[] = [];
  try {
    let version: string;
    try {
      version = client.query<{ version: string }>(`SELECT current_setting('server_version') AS version`).rows[0]?.version ?? '?';
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const password = passwordSource(config.url);
      // Where the password came from, or why none was found (a password file others can read is ignored): in words too, not only in --json.
      const said = password.startsWith('nowhere')
        ? `${message.replace(/[.\s]+$/, '')}. No password was found: ${password.replace(/^nowhere:?\s*/, '')}`
        : `${message.replace(/[.\s]+$/, '')} (password from ${password})`;
      return [
        { name: 'store', status: 'fail', message: said, details: { kind: 'postgres', server, password } },
        { name: 'schema', status: 'skip', message: 'not checked: no connection' },
        { name: 'clock', status: 'skip', message: 'not checked: no connection' },
      ];
    }
    const password = passwordSource(config.url);
    checks.push({
      name: 'store',
      status: 'pass',
      message: `PostgreSQL ${version} at ${server} (password from ${password})`,
      details: { kind: 'postgres', server, serverVersion: version, password },
    });
    checks.push(schemaCheck(pgSchemaVersion(client)));
    progress('measuring the clock against the server…');
    checks.push(clockCheck(client));
  } catch (error) {
    const message = error instanceof PgError || error instanceof Error ? error.message : String(error);
    checks.push({ name: checks.length === 1 ? 'schema' : 'clock', status: 'fail', message });
  } finally {
    client.close();
  }
  return checks;
}

/** Where the connection's password comes from; a person debugging a refused login needs to know. */
function passwordSource(url: string): string {
  if (process.env['PGPASSWORD']) return 'PGPASSWORD';
  const file = pgpassFile();
  let target: { host: string; port: number | undefined; database: string | undefined; user: string | undefined };
  try {
    const parsed = new URL(url);
    target = {
      host: parsed.searchParams.get('host') ?? decodeURIComponent(parsed.hostname),
      port: parsed.port ? Number(parsed.port) : undefined,
      database: decodeURIComponent(parsed.pathname.slice(1)) || undefined,
      user: decodeURIComponent(parsed.username) || process.env['PGUSER'],
    };
  } catch {
    return 'nowhere: the URL does not parse';
  }
  if (target.database === undefined) target = { ...target, database: target.user };
  if (pgpassPassword(target) !== undefined) return file;
  const problem = pgpassProblem(file);
  return `nowhere: PGPASSWORD is not set and ${problem ?? `${file} has no line for this server`}`;
}

function pgSchemaVersion(client: SyncPgClient): number {
  const table = client.query<{ found: string | null }>(`SELECT to_regclass('meta')::text AS found`).rows[0]?.found;
  if (!table) return 0;
  return Number(client.query<{ value: string }>(`SELECT value FROM meta WHERE key = 'schema_version'`).rows[0]?.value ?? 0);
}

function schemaCheck(version: number): DoctorCheck {
  const details = { schemaVersion: version, codeSchemaVersion };
  if (version === codeSchemaVersion)
    return { name: 'schema', status: 'pass', message: `schema version ${version}, as this Foreman's`, details };
  if (version > codeSchemaVersion) {
    return {
      name: 'schema',
      status: 'fail',
      message: `schema version ${version} is newer than this Foreman's (${codeSchemaVersion}): update Foreman on this machine`,
      details,
    };
  }
  return {
    name: 'schema',
    status: 'fail',
    message:
      version === 0
        ? `the database has no Foreman schema yet (this Foreman's is ${codeSchemaVersion}): run \`foreman init --store <url>\``
        : `schema version ${version} is older than this Foreman's (${codeSchemaVersion}): \`foreman init\` or the next owner to start migrates it`,
    details,
  };
}

/**
 * This machine's clock against the server's, from the sample with the shortest round trip: the
 * server's reading is taken to fall in the middle of it, so the error is at most half of it.
 */
function clockCheck(client: SyncPgClient): DoctorCheck {
  let best: { skewMs: number; roundTripMs: number } | undefined;
  for (let sample = 0; sample < 5; sample++) {
    const sent = Date.now();
    const serverMs = client.query<{ ms: number }>(`SELECT extract(epoch from clock_timestamp()) * 1000 AS ms`).rows[0]?.ms ?? NaN;
    const received = Date.now();
    const roundTripMs = received - sent;
    if (!best || roundTripMs < best.roundTripMs) best = { skewMs: Math.round(serverMs - (sent + received) / 2), roundTripMs };
  }
  const { skewMs, roundTripMs } = best ?? { skewMs: NaN, roundTripMs: NaN };
  const details = { skewMs, roundTripMs };
  const said = `this machine's clock is ${Math.abs(skewMs)} ms ${skewMs > 0 ? 'behind' : 'ahead of'} the server's (round trip ${roundTripMs} ms)`;
  if (!Number.isFinite(skewMs)) return { name: 'clock', status: 'fail', message: 'the server did not give its time', details };
  if (Math.abs(skewMs) > skewFailMs) return { name: 'clock', status: 'fail', message: `${said}: synchronise it (NTP)`, details };
  if (Math.abs(skewMs) > skewWarnMs) return { name: 'clock', status: 'warn', message: `${said}: synchronise it (NTP)`, details };
  return { name: 'clock', status: 'pass', message: said, details };
}

/** Opens the sql.js store when nobody owns it; a live owner has it open already, which is the check. */
export async function checkSqlJs(dir: string, open: () => Promise<Store>, options: StoreCheckOptions): Promise<DoctorCheck[]> {
  options.progress('opening the sql.js store…');
  const owner = readOwner(dir);
  if (owner) {
    return [
      { name: 'store', status: 'pass', message: `sql.js, open in its owner (pid ${owner.pid}, ${owner.role})`, details: { kind: 'sqljs' } },
      { name: 'schema', status: 'skip', message: 'checked by its owner when it opened the store' },
    ];
  }
  const lock = acquireOwnerLock(dir, { role: 'cli' });
  if (!lock.ok) return [{ name: 'store', status: 'pass', message: `sql.js, being opened by another process`, details: { kind: 'sqljs' } }];
  try {
    const store = await open();
    try {
      const version = Number(
        store.read((reader) => reader.get<{ value: string }>(`SELECT value FROM meta WHERE key = 'schema_version'`))?.value,
      );
      return [
        { name: 'store', status: 'pass', message: `sql.js in ${dir} opens`, details: { kind: 'sqljs' } },
        schemaCheck(Number.isFinite(version) ? version : 0),
      ];
    } finally {
      store.close();
    }
  } catch (error) {
    return [{ name: 'store', status: 'fail', message: error instanceof Error ? error.message : String(error), details: { kind: 'sqljs' } }];
  } finally {
    lock.value.release();
  }
}
