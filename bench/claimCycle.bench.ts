/**
 * Statements per claim cycle (issue 34: ≤ 24): a claim then a fail through Foreman's engine, the
 * cycle bench/clients.bench.ts and bench/ownerTail.bench.ts time, on a `SqlJsStore` in memory,
 * counted at the store port (every `get`, `all`, `run`, `returning` and `append`). The engine runs
 * as a long-running owner does (its background started), so the dispatcher and the waker's reads
 * that follow each commit are counted too, apart: `claim`, `fail`, `dispatcher`.
 *
 * The crew is full, as in the clients bench (concurrency 1): one worker holds a task throughout
 * and another claims and fails, so the fail's freed worker and requeued task wake a dispatcher that
 * has no room. Also printed: the transactions per cycle and the in-memory cycle time (claim, fail,
 * and the dispatcher's turn after it).
 *
 * Usage: node --import tsx bench/claimCycle.bench.ts [--tasks 10000] [--cycles 500] [--quick]
 * Prints one JSON object; times in µs.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ok, type Result } from '../src/core/result';
import type { FileSpace, Reader, Row, Sql, SqlValue, Store, Tx, WriteOptions } from '../src/engine/ports';
import { defaultEngineSettings } from '../src/engine/settings';
import { SqlJsStore } from '../src/infra/db';
import { benchEngine, executorOf } from './support/benchEngine';
import { seed } from './support/claimWorkload';
import { numberOption } from './support/options';
import { round, tails } from './support/stats';

/** What the port saw since the last `take`. */
interface Counts {
  statements: number;
  writes: number;
  reads: number;
  texts: string[];
}

const empty = (): Counts => ({ statements: 0, writes: 0, reads: 0, texts: [] });

/** The engine's store, counting what passes through its port. */
class CountingStore implements Store {
  counts = empty();

  constructor(private readonly inner: Store) {}

  read<T>(fn: (reader: Reader) => T): T {
    this.counts.reads++;
    return this.inner.read((reader) => fn(new CountingTx(reader, this)));
  }

  write<T>(fn: (tx: Tx) => Result<T>, options?: WriteOptions): Result<T> {
    this.counts.writes++;
    return this.inner.write((tx) => fn(new CountingTx(tx, this)), options);
  }

  checkpoint(): void {
    this.inner.checkpoint();
  }

  close(): void {
    this.inner.close();
  }

  note(sql: Sql): void {
    this.counts.statements++;
    const text = typeof sql === 'string' ? sql : (sql.sqlite ?? '');
    this.counts.texts.push(text.replace(/\s+/g, ' ').slice(0, 70));
  }

  take(): Counts {
    const counts = this.counts;
    this.counts = empty();
    return counts;
  }
}

class CountingTx implements Tx {
  constructor(
    private readonly inner: Reader,
    private readonly store: CountingStore,
  ) {}

  get fileSpace(): FileSpace | null {
    return (this.inner as Tx).fileSpace;
  }

  get<T extends object = Row>(sql: Sql, params?: readonly SqlValue[]): T | undefined {
    this.store.note(sql);
    return this.inner.get<T>(sql, params);
  }

  all<T extends object = Row>(sql: Sql, params?: readonly SqlValue[]): T[] {
    this.store.note(sql);
    return this.inner.all<T>(sql, params);
  }

  run(sql: Sql, params?: readonly SqlValue[]): number {
    this.store.note(sql);
    return (this.inner as Tx).run(sql, params);
  }

  returning<T extends object = Row>(sql: Sql, params?: readonly SqlValue[]): T[] {
    this.store.note(sql);
    return (this.inner as Tx).returning<T>(sql, params);
  }
}

/** Lets the waker's coalesced turns (setImmediate: dispatch, then its timers' reads) run out. */
async function settle(): Promise<void> {
  for (let n = 0; n < 3; n++) await new Promise<void>((resolve) => setImmediate(resolve));
}

async function main(): Promise<void> {
  const tasks = numberOption('tasks', 10_000, 1_000);
  const cycles = numberOption('cycles', 500, 50);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'foreman-claim-cycle-'));
  const store = new CountingStore(await SqlJsStore.openInMemory());
  const engine = benchEngine(store, { ...defaultEngineSettings, concurrency: 1 }, dir, path.join(dir, '.foreman'));
  const execute = executorOf(engine, 'bench');
  try {
    seed(tasks, (sql, params) => void store.write((tx) => ok(tx.run(sql, params))));
    store.write((tx) => ok(tx.run('UPDATE tasks SET max_attempts = 1000000')));
    await execute('worker.add', { id: 'holder' });
    await execute('worker.add', { id: 'cycler' });
    // The crew is full: the holder keeps its task throughout.
    await execute('claim', { worker: 'holder' });
    engine.startBackground();
    await settle();
    const perCycle = { claim: [] as Counts[], fail: [] as Counts[], dispatcher: [] as Counts[] };
    const cycleUs: number[] = [];
    const cycle = async (): Promise<void> => {
      store.take();
      const started = performance.now();
      const claimed = await execute('claim', { worker: 'cycler' });
      if (!claimed) throw new Error('the cycler claimed nothing');
      perCycle.claim.push(store.take());
      await settle();
      const afterClaim = store.take();
      await execute('fail', { worker: 'cycler', reason: 'released by the bench' });
      perCycle.fail.push(store.take());
      await settle();
      cycleUs.push((performance.now() - started) * 1000);
      const afterFail = store.take();
      perCycle.dispatcher.push({
        statements: afterClaim.statements + afterFail.statements,
        writes: afterClaim.writes + afterFail.writes,
        reads: afterClaim.reads + afterFail.reads,
        texts: [...afterClaim.texts, ...afterFail.texts],
      });
    };
    for (let n = 0; n < 20; n++) await cycle();
    perCycle.claim.length = perCycle.fail.length = perCycle.dispatcher.length = cycleUs.length = 0;
    for (let n = 0; n < cycles; n++) await cycle();
    const mean = (list: Counts[], key: 'statements' | 'writes' | 'reads') =>
      round(list.reduce((sum, counts) => sum + counts[key], 0) / list.length, 2);
    const part = (list: Counts[]) => ({
      statements: mean(list, 'statements'),
      transactions: mean(list, 'writes'),
      reads: mean(list, 'reads'),
      texts: list[list.length - 1]?.texts ?? [],
    });
    const claim = part(perCycle.claim);
    const fail = part(perCycle.fail);
    const dispatcher = part(perCycle.dispatcher);
    const statementsPerCycle = round(claim.statements + fail.statements + dispatcher.statements, 2);
    const cycleTails = tails(cycleUs, 0);
    const report = {
      environment: { node: process.version, cpus: os.cpus().length, loadAverage1m: round(os.loadavg()[0] ?? 0, 2) },
      tasks,
      cycles,
      statementsPerCycle,
      transactionsPerCycle: round(claim.transactions + fail.transactions + dispatcher.transactions, 2),
      claim,
      fail,
      dispatcher,
      cycleUs: { medianUs: cycleTails['medianMs'], p99Us: cycleTails['p99Ms'], maxUs: cycleTails['maxMs'] },
      targets: { statementsPerCycleLe24: statementsPerCycle <= 24 },
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    engine.dispose();
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
