/**
 * A real PostgreSQL server for tests (issue 14), started from Debian's `postgresql` package the way a
 * person would start a private one: `initdb` in a temp folder, `pg_ctl start` on a free port on
 * 127.0.0.1 with its socket in that folder, a password (scram-sha-256) for the one role. PostgreSQL
 * refuses to run as root, so under root (CI) the folder is given to the package's unprivileged
 * `postgres` user and every server command runs as that user (`runuser`). `.ci/run` installs the
 * package; `stop()` ends the server and removes the folder.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { SyncPgClient } from '../../src/infra/pg/syncClient';

const run = promisify(execFile);

export interface TestPostgres {
  /** `postgres://foreman:<password>@127.0.0.1:<port>/foreman` */
  readonly url: string;
  readonly password: string;
  readonly port: number;
  readonly dataDir: string;
  /** Stops the server (fast shutdown: open connections are ended); `start` brings it back on the same port. */
  stopServer(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and removes its folder. */
  stop(): Promise<void>;
}

/** The folder holding `initdb` and `pg_ctl`: on PATH, or Debian's versioned folder. */
function serverBin(): string {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && fs.existsSync(path.join(dir, 'initdb')) && fs.existsSync(path.join(dir, 'pg_ctl'))) return dir;
  }
  const debian = '/usr/lib/postgresql';
  const versions = fs.existsSync(debian) ? fs.readdirSync(debian).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) {
    const bin = path.join(debian, version, 'bin');
    if (fs.existsSync(path.join(bin, 'initdb'))) return bin;
  }
  throw new Error('PostgreSQL is not installed: install Debian\'s "postgresql" package (.ci/run does).');
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Runs a server program, as `postgres` when this process is root. */
async function asServerUser(program: string, args: readonly string[]): Promise<void> {
  const isRoot = process.getuid?.() === 0;
  const [file, argv] = isRoot ? ['runuser', ['-u', 'postgres', '--', program, ...args]] : [program, [...args]];
  try {
    await run(file, argv, { timeout: 60_000 });
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    throw new Error(`${path.basename(program)} ${args.join(' ')} failed: ${String(stderr || stdout || error)}`, { cause: error });
  }
}

export async function startPostgres(): Promise<TestPostgres> {
  const bin = serverBin();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'foreman-pg-'));
  const dataDir = path.join(root, 'data');
  const password = `pw-${Math.random().toString(36).slice(2)}`;
  const passwordFile = path.join(root, 'password');
  fs.writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  if (process.getuid?.() === 0) {
    const { stdout } = await run('id', ['-u', 'postgres']).catch(() => {
      throw new Error('running as root, and there is no "postgres" user to run PostgreSQL as: install Debian\'s "postgresql" package.');
    });
    const uid = Number(stdout.trim());
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    for (const file of [root, passwordFile]) fs.chownSync(file, uid, Number(gid.trim()));
  }
  await asServerUser(path.join(bin, 'initdb'), [
    '-D',
    dataDir,
    '-U',
    'foreman',
    `--pwfile=${passwordFile}`,
    '--auth=scram-sha-256',
    '--encoding=UTF8',
    '--no-sync',
  ]);
  const port = await freePort();
  const options = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=on`;
  const start = (): Promise<void> =>
    asServerUser(path.join(bin, 'pg_ctl'), ['-D', dataDir, '-o', options, '-l', path.join(root, 'server.log'), '-w', 'start']);
  const stopServer = (): Promise<void> => asServerUser(path.join(bin, 'pg_ctl'), ['-D', dataDir, '-m', 'fast', '-w', 'stop']);
  await start();
  const url = `postgres://foreman:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  return {
    url,
    password,
    port,
    dataDir,
    start,
    stopServer,
    async stop() {
      try {
        await stopServer();
      } catch {
        // Already stopped.
      }
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

/** A new, empty database on the server at `url` (whose role may create databases); returns its URL. */
export function createDatabase(url: string, name: string): string {
  const admin = new SyncPgClient(url);
  try {
    admin.query(`CREATE DATABASE ${name}`);
  } finally {
    admin.close();
  }
  const database = new URL(url);
  database.pathname = `/${name}`;
  return database.toString();
}
