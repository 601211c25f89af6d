/**
 * Two owners on one PostgreSQL (issue 14's benchmark), in one run on one server:
 *
 *   twoOwnersOnPostgres  two owner processes (machine-a and machine-b, each an engine with its owner
 *                        identity, lease and NOTIFY), each with `--workers` workers that claim one
 *                        task each through the engine's front door and then heartbeat `--rounds`
 *                        times each;
 *   oneOwnerOnSqlJs      the same work for all the workers through one engine on a durable sql.js
 *                        store: one machine, today's default;
 *   rawSkipLocked        two processes claiming the same number of tasks with a bare
 *                        `FOR UPDATE SKIP LOCKED` statement (how pg-boss claims): the ceiling of a
 *                        queue on this server.
 *
 * Claims and heartbeats per second (over the span from the first start to the last end), latency
 * median/p99/max, and the owner's CPU per heartbeat. The server runs on the same machine as the
 * owners (2 cores here), so its CPU competes with theirs; across machines it would not.
 *
 * Usage: node --import tsx bench/twoOwners.bench.ts [--workers 1000] [--rounds 3]. Prints one JSON object.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { ok } from '../src/core/result';
import * as q from '../src/engine/queries';
import { SqlJsStore } from '../src/infra/db';
import { PgStore } from '../src/infra/pg/pgStore';
import { SyncPgClient } from '../src/infra/pg/syncClient';
import { startPostgres } from '../test/support/postgres';
import { rawClaims, spanPerSecond } from './support/rawClaims';
import { round, tails } from './support/stats';

const run = promisify(execFile);
const ownerChild = path.join(__dirname, 'twoOwnersChild.ts');

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = Number((index >= 0 ? process.argv[index + 1] : undefined) ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} takes a whole number of at least 1`);
  return value;
}

interface OwnerRun {
  readonly claims: number[];
  readonly claimsSpan: [number, number];
  readonly heartbeats: number[];
  readonly heartbeatsSpan: [number, number];
  readonly heartbeatCpuMs: number;
}


/** The figures of some owner processes' runs, together. */
function figures(runs: readonly OwnerRun[]) {
  const claims = runs.flatMap((one) => one.claims);
  const heartbeats = runs.flatMap((one) => one.heartbeats);
  const cpuMs = runs.reduce((sum, one) => sum + one.heartbeatCpuMs, 0);
  return {
    owners: runs.length,
    claims: {
      perSecond: spanPerSecond(
        claims.length,
        runs.map((one) => one.claimsSpan),
      ),
      latency: tails(claims, 2),
    },
    heartbeats: {
      perSecond: spanPerSecond(
        heartbeats.length,
        runs.map((one) => one.heartbeatsSpan),
      ),
      latency: tails(heartbeats, 2),
      ownerCpuMsPerHeartbeat: round(cpuMs / heartbeats.length, 3),
    },
  };
}

async function owners(
  mode: 'pg' | 'sqljs',
  target: string,
  machines: ReadonlyArray<[string, string, string]>,
  workers: number,
  rounds: number,
) {
  const startAt = Date.now() + 4_000 + machines.length * 1_000;
  const outputs = await Promise.all(
    machines.map(([owner, host, prefix]) =>
      run(
        process.execPath,
        ['--import', 'tsx', ownerChild, mode, target, owner, host, prefix, String(workers), String(rounds), String(startAt)],
        {
          maxBuffer: 64 * 2 ** 20,
        },
      ),
    ),
  );
  return figures(outputs.map(({ stdout }) => JSON.parse(stdout) as OwnerRun));
}

async function rawSkipLocked(url: string, processes: number) {
  return { processes, claims: await rawClaims(url, processes, Date.now() + 3_000 + processes * 300) };
}

/** `count` queued tasks and, per prefix, `workers` idle workers on its host, in a few statements. */
function seedPostgres(url: string, count: number, hosts: ReadonlyArray<[string, string]>, workers: number): void {
  const client = new SyncPgClient(url);
  try {
    client.query('DELETE FROM transitions');
    client.query('DELETE FROM task_claims');
    client.query('DELETE FROM heartbeats');
    client.query('DELETE FROM workers');
    client.query('DELETE FROM tasks');
    client.query(
      `INSERT INTO tasks (id, title, prompt, status, sort_order, created_at, max_attempts)
       SELECT 't-' || n, 'task ' || n, '', 'queued', n, 1000, 3 FROM generate_series(0, $1 - 1) AS n`,
      [count],
    );
    for (const [prefix, host] of hosts) {
      client.query(
        `INSERT INTO workers (id, state, agent, state_changed_at, created_at, host)
         SELECT $2 || '-' || n, 'IDLE', 'demo', 1000, 1000, $3 FROM generate_series(0, $1 - 1) AS n`,
        [workers, prefix, host],
      );
    }
  } finally {
    client.close();
  }
}

async function seedSqlJs(dir: string, count: number, prefix: string, workers: number): Promise<void> {
  const store = await SqlJsStore.open(dir);
  try {
    store.write((tx) => {
      for (let i = 0; i < count; i++) {
        const id = `t-${i}`;
        q.insertTask(tx, { id, title: id, prompt: '', parentId: null, autoDispatch: true, maxAttempts: 3, sortOrder: i, createdAt: 1000 });
        q.updateTaskStatus(tx, id, 'idle', 0, 'queued');
      }
      for (let i = 0; i < workers; i++) q.insertWorker(tx, `${prefix}-${i}`, 'demo', null, 1000);
      return ok(undefined);
    });
  } finally {
    store.close();
  }
}

async function main(): Promise<void> {
  const workers = option('workers', 1000);
  const rounds = option('rounds', 3);
  const server = await startPostgres();
  const sqlJsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'foreman-two-owners-'));
  try {
    PgStore.open(server.url).close(); // migrates
    const machines: Array<[string, string, string]> = [
      ['owner-a', 'machine-a', 'a'],
      ['owner-b', 'machine-b', 'b'],
    ];
    seedPostgres(
      server.url,
      2 * workers,
      [
        ['a', 'machine-a'],
        ['b', 'machine-b'],
      ],
      workers,
    );
    const twoOwners = await owners('pg', server.url, machines, workers, rounds);
    seedPostgres(server.url, 2 * workers, [], 0);
    const raw = await rawSkipLocked(server.url, 2);
    const foremanDir = path.join(sqlJsDir, '.foreman');
    await seedSqlJs(foremanDir, 2 * workers, 'w', 2 * workers);
    const oneOwner = await owners('sqljs', foremanDir, [['owner', 'this-machine', 'w']], 2 * workers, rounds);
    const result = {
      bench: 'twoOwners',
      environment: { node: process.version, cpus: os.cpus().length, loadAverage: os.loadavg().map((value) => round(value, 1)) },
      workers: 2 * workers,
      heartbeatRounds: rounds,
      twoOwnersOnPostgres: twoOwners,
      oneOwnerOnSqlJs: oneOwner,
      rawSkipLocked: raw,
      ratios: {
        claimsTwoOwnersOverOneSqlJsOwner: round(twoOwners.claims.perSecond / oneOwner.claims.perSecond, 2),
        claimsTwoOwnersOverRawSkipLocked: round(twoOwners.claims.perSecond / raw.claims.perSecond, 2),
        heartbeatsTwoOwnersOverOneSqlJsOwner: round(twoOwners.heartbeats.perSecond / oneOwner.heartbeats.perSecond, 2),
        cpuPerHeartbeatPostgresOverSqlJs: round(
          twoOwners.heartbeats.ownerCpuMsPerHeartbeat / oneOwner.heartbeats.ownerCpuMsPerHeartbeat,
          2,
        ),
      },
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    fs.rmSync(sqlJsDir, { recursive: true, force: true });
    await server.stop();
  }
}

void main();
