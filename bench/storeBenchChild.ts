/**
 * One measurement of bench/store.bench.ts, run in its own process so that its RSS is its own.
 * Usage: node --import tsx bench/storeBenchChild.ts <seed|journal|memory|naive|better> <tasks> <workDir> <claims>
 * Prints one JSON object.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ok } from '../src/core/result';
import { nextRunnableIdSql } from '../src/engine/queries/taskQueue';
import { SqlJsStore } from '../src/infra/db/index';
import { migrations } from '../src/infra/db/migrations/index';
import { loadSqlJs } from '../src/infra/db/sqlJsModule';
import { openBetter } from './support/betterStore';
import { claimIn, claimSql, seed, transitionSql } from './support/claimWorkload';

const workerId = 'worker-1';
/** The whole schema, for the databases that do not go through the store. */
const schemaSql = migrations.map((migration) => migration.sql).join('\n');
const warmUpClaims = 50;
const warmUpPeeks = 5000;
const peekSql = nextRunnableIdSql.sqlite;

/** Milliseconds each run of `fn` took, after a full GC (run with --expose-gc) so that collecting
 * the seeding's garbage does not land inside the samples. */
function timeEach(times: number, fn: () => void, collectFirst = true): number[] {
  if (collectFirst) (globalThis as { gc?: () => void }).gc?.();
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const start = performance.now();
    fn();
    samples.push(performance.now() - start);
  }
  return samples;
}

const rssMiB = (): number => Math.round((process.memoryUsage().rss / 2 ** 20) * 10) / 10;

async function seedFolder(tasks: number, dir: string): Promise<object> {
  const store = await SqlJsStore.open(dir);
  seed(tasks, (sql, params) => store.write((tx) => ok(tx.run(sql, params))));
  store.close();
  return { imageBytes: fs.statSync(path.join(dir, 'foreman.db')).size };
}

async function journalStore(dir: string, claims: number): Promise<object> {
  const wasmStart = performance.now();
  await loadSqlJs();
  const wasmInitMs = performance.now() - wasmStart;
  const openStart = performance.now();
  const store = await SqlJsStore.open(dir);
  const claimed = store.write(claimIn);
  const openToFirstClaimMs = performance.now() - openStart;
  if (!claimed.ok) throw new Error(claimed.message);
  const durable = timeEach(99, () => store.write(claimIn));
  const rssAfterOpenAnd100Claims = rssMiB();
  durable.push(...timeEach(claims - 99, () => store.write(claimIn)));
  // A crash now: the next open replays every claim since the last checkpoint.
  const crashCopy = `${dir}-crash`;
  fs.cpSync(dir, crashCopy, { recursive: true });
  const reopenStart = performance.now();
  const reopened = await SqlJsStore.open(crashCopy);
  const reopenReplayingMs = performance.now() - reopenStart;
  reopened.close();
  store.close();
  return {
    wasmInitMs,
    openToFirstClaimMs,
    durableClaimMs: durable,
    rssAfterOpenAnd100ClaimsMiB: rssAfterOpenAnd100Claims,
    reopenReplayingMs,
    replayedRecords: claims + 1,
  };
}

/**
 * The store's in-memory claim next to the same statements on a bare sql.js database. The two are
 * measured alternately, so that a noisy neighbour slows both alike and the gap is the store's own
 * bookkeeping (Tx recording, write guard, statement cache).
 */
async function memoryStore(tasks: number, claims: number): Promise<object> {
  const store = await SqlJsStore.openInMemory();
  seed(tasks, (sql, params) => store.write((tx) => ok(tx.run(sql, params))));
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  db.exec('PRAGMA journal_mode = MEMORY; PRAGMA foreign_keys = ON;');
  db.exec(schemaSql);
  db.exec('BEGIN');
  seed(tasks, (sql, params) => db.run(sql, params));
  db.exec('COMMIT');
  const claim = db.prepare(claimSql);
  const transition = db.prepare(transitionSql);
  const peek = db.prepare(peekSql);
  const rawClaim = (): void => {
    const now = Date.now();
    db.exec('BEGIN');
    claim.bind([now, workerId, now]);
    claim.step();
    const [id, attempt] = claim.get() as [string, number];
    claim.reset();
    transition.run([now, id, workerId, attempt]);
    db.exec('COMMIT');
  };
  // Warm-up, not counted: these figures are about steady state, unlike the durable open-to-claim.
  // V8 moves hot wasm to its optimising tier only after enough work; at 1k the seeding is too short.
  timeEach(warmUpPeeks, () => {
    peek.bind([Date.now()]);
    peek.step();
    peek.reset();
  });
  timeEach(warmUpClaims, () => store.write(claimIn));
  timeEach(warmUpClaims, rawClaim);
  const viaStore: number[] = [];
  const raw: number[] = [];
  (globalThis as { gc?: () => void }).gc?.();
  for (let i = 0; i < claims; i++) {
    viaStore.push(...timeEach(1, () => store.write(claimIn), false));
    raw.push(...timeEach(1, rawClaim, false));
  }
  return { inMemoryClaimMs: viaStore, rawSqlJsClaimMs: raw };
}

async function naiveExport(image: string, dir: string, claims: number): Promise<object> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database(fs.readFileSync(image));
  db.exec('PRAGMA journal_mode = MEMORY; PRAGMA foreign_keys = ON;');
  const target = path.join(dir, 'naive.db');
  const temp = `${target}.tmp`;
  const samples = timeEach(claims, () => {
    const now = Date.now();
    db.exec('BEGIN');
    const [result] = db.exec(claimSql, [now, workerId, now]);
    const [id, attempt] = (result?.values[0] ?? []) as [string, number];
    db.run(transitionSql, [now, id, workerId, attempt]);
    db.exec('COMMIT');
    const fd = fs.openSync(temp, 'w');
    fs.writeSync(fd, db.export());
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fs.renameSync(temp, target);
  });
  return { durableClaimMs: samples };
}

function betterSqlite(tasks: number, dir: string, claims: number): object {
  const file = path.join(dir, 'better.db');
  const setup = openBetter(file);
  setup.exec(schemaSql);
  const insertAll = setup.transaction(() => seed(tasks, (sql, params) => setup.prepare(sql).run(...params)));
  insertAll();
  setup.close();
  const openStart = performance.now();
  const db = openBetter(file);
  const claim = db.prepare(claimSql);
  const transition = db.prepare(transitionSql);
  const claimOnce = db.transaction(() => {
    const now = Date.now();
    const row = claim.get(now, workerId, now) as { id: string; attempt: number };
    transition.run(now, row.id, workerId, row.attempt);
  });
  claimOnce();
  const openToFirstClaimMs = performance.now() - openStart;
  const samples = timeEach(claims, () => claimOnce());
  const rss = rssMiB();
  db.close();
  return { openToFirstClaimMs, durableClaimMs: samples, rssMiB: rss };
}

async function main(): Promise<void> {
  const [variant, tasksText, dir, claimsText] = process.argv.slice(2);
  const tasks = Number(tasksText);
  const claims = Number(claimsText);
  if (!variant || !dir || !Number.isInteger(tasks) || !Number.isInteger(claims))
    throw new Error('usage: storeBenchChild.ts <variant> <tasks> <dir> <claims>');
  const result =
    variant === 'seed'
      ? await seedFolder(tasks, dir)
      : variant === 'journal'
        ? await journalStore(dir, claims)
        : variant === 'memory'
          ? await memoryStore(tasks, claims)
          : variant === 'naive'
            ? await naiveExport(path.join(dir, '.foreman', 'foreman.db'), dir, claims)
            : variant === 'better'
              ? betterSqlite(tasks, dir, claims)
              : undefined;
  if (!result) throw new Error(`unknown variant ${variant}`);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

if (require.main === module) void main();
