/**
 * The engine's in-memory claim against a raw sql.js claim of the same SQL on the same image
 * (issue 13: engine claim ≤ 1.5× raw). The engine path is the real one: `Engine.execute` of a
 * parsed `claim` request, through the transactor (idempotency, events, state-change messages) on
 * a `SqlJsStore` in memory. The baseline is a bare sql.js database, seeded the same way, that runs
 * the very statements the engine ran — recorded by a thin wrapper around the engine's store and
 * replayed with the same parameters through prepared statements, in one BEGIN/COMMIT — so both
 * databases stay identical and the gap is the engine's own work, not its SQL. The two alternate
 * claim by claim, so a noisy neighbour slows both alike.
 *
 * Also printed, for reference: the minimal two-statement claim of bench/store.bench.ts (the task's
 * UPDATE … RETURNING and one transition), run on the raw database and rolled back, i.e. what a
 * claim would cost if it did nothing else (no worker, no lease, no state-change message).
 *
 * Every size runs in a child process of its own (a fresh heap), after 2,000 claims on a throwaway
 * engine and database of 5,000 tasks, so both paths are measured optimised (steady state). The recording wrapper is inside
 * the engine's timing: a few array pushes per statement, counted against the engine.
 *
 * The children run this file bundled by esbuild, as the product ships (support/bundle.ts: under tsx
 * the ratio was 0.1–0.25 higher); `--sources` runs them from sources under tsx all the same.
 *
 * Usage: node --import tsx bench/engineClaim.bench.ts [--sizes 1000,100000,1000000] [--claims 500] [--sources] [--quick]
 * Prints one JSON object; times in ms.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Database, Statement } from 'sql.js';
import { parseCommand } from '../src/core/requests';
import { type Result, ok } from '../src/core/result';
import { type Reader, type Row, type Sql, type SqlValue, type Store, type Tx, type WriteOptions, sqlText } from '../src/engine/ports';
import { defaultEngineSettings } from '../src/engine/settings';
import { SqlJsStore } from '../src/infra/db';
import { migrations } from '../src/infra/db/migrations/index';
import { loadSqlJs } from '../src/infra/db/sqlJsModule';
import { claimSql, seed, transitionSql } from './support/claimWorkload';
import { benchEngine } from './support/benchEngine';
import { bundleChild } from './support/bundle';
import { givenOption, numberOption, numbersOption, quick } from './support/options';
import { round, tails } from './support/stats';

const warmUpClaims = 100;
const jitWarmUp = quick ? { tasks: 500, claims: 100 } : { tasks: 5000, claims: 2000 };

/** One statement the engine ran, in order: what the raw database replays. */
type Recorded = readonly [sql: string, params: readonly SqlValue[]];

/** The engine's store, passing every statement through and noting it for the replay. */
class RecordingStore implements Store {
  recorded: Recorded[] = [];

  constructor(private readonly inner: Store) {}

  read<T>(fn: (reader: Reader) => T): T {
    return this.inner.read((reader) => fn(this.recording(reader)));
  }

  write<T>(fn: (tx: Tx) => Result<T>, options?: WriteOptions): Result<T> {
    return this.inner.write((tx) => fn(this.recording(tx)), options);
  }

  checkpoint(): void {
    this.inner.checkpoint();
  }

  close(): void {
    this.inner.close();
  }

  private recording(inner: Reader): RecordingTx {
    return new RecordingTx(inner, this.recorded);
  }
}

/** A Reader or Tx that notes each statement before passing it on (a class: no closures per call). */
class RecordingTx implements Tx {
  constructor(
    private readonly inner: Reader,
    private readonly recorded: Recorded[],
  ) {}

  get fileSpace(): Tx['fileSpace'] {
    return (this.inner as Tx).fileSpace;
  }

  get<T extends object = Row>(sql: Sql, params?: readonly SqlValue[]): T | undefined {
    this.recorded.push([sqlText(sql, 'sqlite'), params ?? []]);
    return this.inner.get<T>(sql, params);
  }

  all<T extends object = Row>(sql: Sql, params?: readonly SqlValue[]): T[] {
    this.recorded.push([sqlText(sql, 'sqlite'), params ?? []]);
    return this.inner.all<T>(sql, params);
  }

  run(sql: Sql, params?: readonly SqlValue[]): number {
    this.recorded.push([sqlText(sql, 'sqlite'), params ?? []]);
    return (this.inner as Tx).run(sql, params);
  }

  returning<T extends object = Row>(sql: Sql, params?: readonly SqlValue[]): T[] {
    this.recorded.push([sqlText(sql, 'sqlite'), params ?? []]);
    return (this.inner as Tx).returning<T>(sql, params);
  }
}

/** A bare sql.js database: the statements prepared once by text, nothing else around them. */
class RawDatabase {
  private readonly statements = new Map<string, Statement>();

  constructor(readonly db: Database) {}

  /** Replays statements as one transaction, stepping every row out as the engine read it. */
  replay(statements: readonly Recorded[]): void {
    this.db.exec('BEGIN');
    for (const [sql, params] of statements) {
      let statement = this.statements.get(sql);
      if (!statement) {
        statement = this.db.prepare(sql);
        this.statements.set(sql, statement);
      }
      statement.bind(params as SqlValue[]);
      while (statement.step()) statement.get();
      statement.reset();
    }
    this.db.exec('COMMIT');
  }
}

async function measureSize(tasks: number, claims: number): Promise<object> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'foreman-engine-claim-'));
  const foremanDir = path.join(dir, '.foreman');
  const inner = await SqlJsStore.openInMemory();
  const store = new RecordingStore(inner);
  const settings = { ...defaultEngineSettings, concurrency: claims + warmUpClaims };
  const engine = benchEngine(store, settings, dir, foremanDir);
  const SQL = await loadSqlJs();
  const raw = new RawDatabase(new SQL.Database());
  try {
    // The store's own connection pragmas (storeLoader.ts configure), so the two differ in work, not settings.
    raw.db.exec(
      'PRAGMA journal_mode = MEMORY; PRAGMA locking_mode = EXCLUSIVE; PRAGMA foreign_keys = ON; PRAGMA auto_vacuum = INCREMENTAL;',
    );
    raw.db.exec(migrations.map((migration) => migration.sql).join('\n'));
    const seedStart = performance.now();
    seed(tasks, (sql, params) => inner.write((tx) => ok(tx.run(sql, params))));
    raw.db.exec('BEGIN');
    seed(tasks, (sql, params) => raw.db.run(sql, params));
    raw.db.exec('COMMIT');
    const seedMs = performance.now() - seedStart;

    // One idle worker per claim (a worker claims only when IDLE), added through the engine and
    // replayed on the raw database, so both hold the same workers.
    const workers = warmUpClaims + claims;
    for (let n = 0; n < workers; n++) {
      const added = await engine.execute(request('worker.add', { id: `w${n}` }));
      if (!added.ok) throw new Error(added.message);
    }
    raw.replay(store.recorded);

    const claimAs = async (worker: string): Promise<number> => {
      const claim = request('claim', { worker });
      store.recorded = [];
      const started = performance.now();
      const claimed = await engine.execute(claim);
      const elapsed = performance.now() - started;
      if (!claimed.ok || !claimed.value) throw new Error(`claim by ${worker} took nothing`);
      return elapsed;
    };
    const rawClaim = (): number => {
      const started = performance.now();
      raw.replay(store.recorded);
      return performance.now() - started;
    };
    const minimal = minimalClaim(raw.db);

    for (let n = 0; n < warmUpClaims; n++) {
      await claimAs(`w${n}`);
      rawClaim();
      minimal();
    }
    const statementsPerClaim = store.recorded.length;
    const claimStatements = store.recorded.map(([sql]) => sql.replace(/\s+/g, ' ').slice(0, 60));
    const engineMs: number[] = [];
    const rawMs: number[] = [];
    const minimalMs: number[] = [];
    (globalThis as { gc?: () => void }).gc?.();
    for (let n = warmUpClaims; n < workers; n++) {
      engineMs.push(await claimAs(`w${n}`));
      rawMs.push(rawClaim());
      minimalMs.push(minimal());
    }
    const [engineTails, rawTails] = [tails(engineMs, 4), tails(rawMs, 4)];
    return {
      tasks,
      claims,
      seedMs: round(seedMs, 0),
      statementsPerClaim,
      claimStatements,
      engineClaim: engineTails,
      rawSameSqlClaim: rawTails,
      minimalRawClaim: tails(minimalMs, 4),
      engineOverRaw: {
        median: round(engineTails['medianMs']! / rawTails['medianMs']!, 2),
        p99: round(engineTails['p99Ms']! / rawTails['p99Ms']!, 2),
      },
    };
  } finally {
    engine.dispose();
    store.close();
    raw.db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function request<C extends 'claim' | 'worker.add'>(command: C, args: Parameters<typeof parseCommand<C>>[1]) {
  const parsed = parseCommand(command, args);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.request;
}

/** bench/store.bench.ts's claim (task UPDATE … RETURNING and one transition), rolled back. */
function minimalClaim(db: Database): () => number {
  const claim = db.prepare(claimSql);
  const transition = db.prepare(transitionSql);
  return () => {
    const started = performance.now();
    const now = Date.now();
    db.exec('BEGIN');
    claim.bind([now, 'minimal', now]);
    if (claim.step()) {
      const [id, attempt] = claim.get() as [string, number];
      claim.reset();
      transition.run([now, id, 'minimal', attempt]);
    } else claim.reset();
    db.exec('ROLLBACK');
    return performance.now() - started;
  };
}

async function main(): Promise<void> {
  const claims = numberOption('claims', 500, 50);
  const child = givenOption('child');
  if (child) {
    // Warms the JIT on a throwaway engine and database first: an owner that has run a while has
    // its claim path optimised, and a small size has too few queued tasks to warm it in place.
    await measureSize(jitWarmUp.tasks, jitWarmUp.claims);
    process.stdout.write(`${JSON.stringify(await measureSize(Number(child), claims))}\n`);
    return;
  }
  const sizes = numbersOption('sizes', '1000,100000,1000000', '1000');
  if (sizes.some((size) => !Number.isInteger(size) || size < 1) || !(claims >= 50)) {
    throw new Error('usage: --sizes 1000,100000 --claims 500 (at least 50)');
  }
  const fromSources = process.argv.includes('--sources');
  const bundle = fromSources ? undefined : await bundleChild(__filename);
  const results = sizes.map((size) => {
    const script = bundle ? [bundle] : ['--import', 'tsx', __filename];
    const output = execFileSync(
      process.execPath,
      ['--expose-gc', '--max-old-space-size=4096', ...script, '--child', String(size), '--claims', String(claims)],
      { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 },
    );
    return JSON.parse(output) as { tasks: number; engineOverRaw: { median: number } };
  });
  const report = {
    environment: { node: process.version, cpus: os.cpus().length, loadAverage1m: round(os.loadavg()[0] ?? 0, 2) },
    code: fromSources ? 'from sources under tsx (--sources)' : 'bundled by esbuild as dist/ is',
    results,
    target: 'engine claim median ≤ 1.5× the raw claim of the same SQL, at every size',
    met: results.every((result) => result.engineOverRaw.median <= 1.5),
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}

void main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
