/**
 * Claims on PostgreSQL (issue 14): eight processes claiming through PgStore with the engine's own
 * statement and transition, against a bare `FOR UPDATE SKIP LOCKED` claim through the same client
 * (the ceiling of a queue on this server: how pg-boss claims), on the same server in the same run;
 * and, as the yardstick of one machine, the engine's claim on a durable sql.js store in one process.
 * The server is a real PostgreSQL started for the run (fsync on, synchronous_commit on).
 *
 * Usage: node --import tsx bench/pgClaims.bench.ts [--tasks 4000] [--processes 8]
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { ok } from '../src/core/result';
import type { Store } from '../src/engine/ports';
import * as q from '../src/engine/queries';
import { SqlJsStore } from '../src/infra/db';
import { PgStore } from '../src/infra/pg/pgStore';
import { startPostgres } from '../test/support/postgres';
import { round, tails } from './support/stats';

const run = promisify(execFile);
const child = path.join(__dirname, 'pgClaimsChild.ts');

function option(name: string, fallback: string): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = Number((index >= 0 ? process.argv[index + 1] : undefined) ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} takes a whole number of at least 1`);
  return value;
}

function queue(store: Store, tasks: number): void {
  store.write((tx) => {
    tx.run('DELETE FROM transitions');
    tx.run('DELETE FROM tasks');
    for (let i = 0; i < tasks; i++) {
      const id = `t-${i}`;
      q.insertTask(tx, { id, title: id, prompt: '', parentId: null, autoDispatch: true, maxAttempts: 3, sortOrder: i, createdAt: 1 });
      q.updateTaskStatus(tx, id, 'idle', 0, 'queued');
    }
    return ok(tasks);
  });
}

interface ChildRun {
  readonly latencies: number[];
  readonly startedAt: number;
  readonly endedAt: number;
}

async function processes(mode: 'engine' | 'raw', url: string, count: number) {
  const startAt = Date.now() + 3_000 + count * 300;
  const outputs = await Promise.all(
    Array.from({ length: count }, (_, i) => run(process.execPath, ['--import', 'tsx', child, mode, url, `w${i}`, String(startAt)])),
  );
  const runs = outputs.map(({ stdout }) => JSON.parse(stdout) as ChildRun);
  const claims = runs.reduce((sum, one) => sum + one.latencies.length, 0);
  const seconds = (Math.max(...runs.map((one) => one.endedAt)) - Math.min(...runs.map((one) => one.startedAt))) / 1000;
  return {
    claimsPerSecond: round(claims / seconds, 0),
    claims,
    latency: tails(
      runs.flatMap((one) => one.latencies),
      2,
    ),
  };
}

async function sqlJsOwner(tasks: number) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'foreman-pgclaims-'));
  const store = await SqlJsStore.open(path.join(dir, '.foreman'));
  try {
    queue(store, tasks);
    const statement = q.compileClaimNext('foreman/{worker}/{task}');
    const latencies: number[] = [];
    const started = performance.now();
    for (;;) {
      const begun = performance.now();
      const result = store.write((tx) => {
        const now = Date.now();
        const claimed = q.claimNextTask(tx, statement, now, 'w0');
        if (claimed) q.insertTransition(tx, now, 'task', claimed.id, 'queued', 'running', 'claim', null, 'w0', claimed.attempt, null, null);
        return ok(claimed);
      });
      if (!result.ok || !result.value) break;
      latencies.push(performance.now() - begun);
    }
    const seconds = (performance.now() - started) / 1000;
    return { claimsPerSecond: round(latencies.length / seconds, 0), claims: latencies.length, latency: tails(latencies, 2) };
  } finally {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const tasks = option('tasks', '4000');
  const count = option('processes', '8');
  const server = await startPostgres();
  try {
    const store = PgStore.open(server.url);
    queue(store, tasks);
    const engine = await processes('engine', server.url, count);
    queue(store, tasks);
    const raw = await processes('raw', server.url, count);
    store.close();
    const sqlJs = await sqlJsOwner(tasks);
    const result = {
      environment: { node: process.version, cpus: os.cpus().length, loadAverage: os.loadavg().map((value) => round(value, 1)) },
      tasks,
      processes: count,
      postgresEngineClaims: engine,
      postgresRawSkipLocked: raw,
      sqlJsOneOwnerInProcess: sqlJs,
      ratios: {
        engineOverRawSkipLocked: round(engine.claimsPerSecond / raw.claimsPerSecond, 2),
        engineOnPostgresOverSqlJsOwner: round(engine.claimsPerSecond / sqlJs.claimsPerSecond, 2),
      },
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await server.stop();
  }
}

void main();
