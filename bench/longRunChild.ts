/**
 * One measurement of bench/longRun.bench.ts, in its own process.
 * Usage: node --import tsx bench/longRunChild.ts <variant> <tasks> <history> <workDir> <writes> <intervalMs> <checkpointMiB> [storeRoot]
 * Variants: seed, store, crashOpen, better, floor. `history` rows of finished work (transitions)
 * are seeded with the tasks. `storeRoot` is the checkout whose
 * src/infra/db/index.ts is measured (default: this one), so that an older commit can be measured
 * in the same run. Prints one JSON object.
 * With FOREMAN_BENCH_TRACE=1, the store variant also writes each checkpoint file step (with its time
 * and turn of the event loop) and each turn that served requests for over 8 ms (and each late
 * request) to stderr: how the long ones were found.
 * With FOREMAN_BENCH_NO_REPLICA=1 the store variant runs without the replica: what it costs and saves.
 * The store serves requests as the owner's endpoint does, with group commit: the writes of one turn
 * share one fsync (FOREMAN_BENCH_NO_GROUP_COMMIT=1: one fsync per write, as the other variants).
 * The trace also prints, each second, the CPU each thread of the process took, and when the
 * replica became ready.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { ok } from '../src/core/result';
import type { Result } from '../src/core/result';
import type { Store, Tx } from '../src/engine/ports';
import { migrations } from '../src/infra/db/migrations/index';
import { claimIn, claimSql, seed, seedHistory, transitionSql } from './support/claimWorkload';
import { openBetter } from './support/betterStore';
import { cpuByThread, stealMs } from './support/procfs';

interface StoreOptions {
  readonly checkpointBytes?: number;
  readonly checkpointRecords?: number;
  readonly fileStep?: (step: string) => void;
  readonly replicaFromBytes?: number;
}
interface StoreModule {
  readonly SqlJsStore: { open(dir: string, options?: StoreOptions): Promise<Store & { whenIdle?: () => Promise<void> }> };
}

async function storeModule(root: string): Promise<StoreModule> {
  // The checkout to measure is chosen at run time; its module has the shape declared above.
  return (await import(path.join(root, 'src', 'infra', 'db', 'index.ts'))) as StoreModule;
}

/** FOREMAN_BENCH_TRACE=1: file steps and slow writes to stderr (see the usage above). */
const trace = process.env.FOREMAN_BENCH_TRACE === '1';

/** FOREMAN_BENCH_NO_GROUP_COMMIT=1: the store fsyncs every write itself (see the usage above). */
const noGroupCommit = process.env.FOREMAN_BENCH_NO_GROUP_COMMIT === '1';

/** Turns of the event loop taken by `openLoop` so far: steps heard in one turn ran in one block. */
let turns = 0;

/**
 * Turns the event loop until a turn is quick, and returns how long the first one took. After sql.js
 * first runs SQL, the first turn waits ~100–150 ms with the main thread idle while V8 finishes
 * compiling the module on its background threads (measured with a bare sql.js and no Foreman code:
 * no stall without a statement, none with `--no-liftoff`). An owner pays it during its start, whose
 * git and socket work turn the loop before it listens; the run starts after it, and it is reported.
 */
async function settle(): Promise<number> {
  let first: number | undefined;
  for (let turn = 0; turn < 100; turn++) {
    const before = performance.now();
    await nextTurn();
    const took = performance.now() - before;
    first ??= took;
    if (took < 2) break;
  }
  return first ?? 0;
}

/**
 * How a variant serves a request. With `groupCommit` (the sql.js store's, as the owner's endpoint
 * uses it: Engine.execute with saving 'later') the writes of one turn are fsync'd together and answered once
 * saved; without it every write fsyncs itself before the next begins (better-sqlite3, the floor).
 */
interface Server {
  write(): void;
  readonly groupCommit?: { run(fn: () => void): void; whenSaved(): Promise<void> };
}

/**
 * Runs `writes` requests arriving every `intervalMs` (an open loop: arrivals do not wait for
 * answers), turning the event loop while waiting, as an owner does between requests. Each turn
 * serves the requests that have arrived by its start, as an owner reads every socket with data in
 * one poll of its event loop: on time that is one, after a stall (a slow fsync) all that came
 * meanwhile. Latency is from a request's arrival to its answer (its write saved), so time the owner
 * spent on anything else (a checkpoint) counts for the requests that arrived meanwhile; service is
 * from the start of its turn's work to its answer.
 */
async function openLoop(
  writes: number,
  intervalMs: number,
  server: Server,
): Promise<{
  latencyMs: number[];
  serviceMs: number[];
  turnsServingSeveral: number;
  mostInOneTurn: number;
  firstTurnAfterOpenMs: number;
  hostStealMs: number;
}> {
  const latencyMs: number[] = [];
  const serviceMs: number[] = [];
  let turnsServingSeveral = 0;
  let mostInOneTurn = 0;
  const firstTurnAfterOpenMs = await settle();
  const stealBefore = stealMs();
  const start = performance.now();
  const arrival = (request: number): number => start + request * intervalMs;
  let next = 0;
  while (next < writes) {
    do {
      await nextTurn();
      turns++;
    } while (performance.now() < arrival(next));
    const begun = performance.now();
    const first = next;
    const due = Math.min(writes, Math.max(next + 1, Math.floor((begun - start) / intervalMs) + 1));
    const answered: number[] = [];
    const serve = (): void => {
      for (; next < due; next++) {
        server.write();
        answered.push(performance.now());
      }
    };
    if (server.groupCommit) {
      server.groupCommit.run(serve);
      await server.groupCommit.whenSaved();
      answered.fill(performance.now());
    } else serve();
    for (let request = first; request < due; request++) {
      const done = answered[request - first] ?? Number.NaN;
      latencyMs.push(done - arrival(request));
      serviceMs.push(done - begun);
    }
    if (due - first > 1) turnsServingSeveral++;
    mostInOneTurn = Math.max(mostInOneTurn, due - first);
    const took = performance.now() - begun;
    if (trace && took > 8) process.stderr.write(`${begun.toFixed(1)} turn served ${due - first} (#${first}) in ${took.toFixed(1)}\n`);
  }
  return { latencyMs, serviceMs, turnsServingSeveral, mostInOneTurn, firstTurnAfterOpenMs, hostStealMs: stealMs() - stealBefore };
}

/** FOREMAN_BENCH_TRACE=1: each second, the CPU ms each of this process's threads took in it. */
function traceThreads(): NodeJS.Timeout {
  const last = new Map<string, number>();
  const timer = setInterval(() => {
    const parts: string[] = [];
    for (const [tid, seconds] of cpuByThread('self')) {
      const ms = seconds * 1000;
      const delta = ms - (last.get(tid) ?? 0);
      last.set(tid, ms);
      if (delta > 0) parts.push(`${tid}:${delta}`);
    }
    process.stderr.write(`${performance.now().toFixed(1)} threads ${parts.join(' ')}\n`);
  }, 1000);
  timer.unref();
  return timer;
}

async function seedFolder(root: string, tasks: number, history: number, dir: string): Promise<object> {
  const { SqlJsStore } = await storeModule(root);
  const store = await SqlJsStore.open(dir, { checkpointBytes: 2 ** 40, checkpointRecords: 2 ** 40 });
  const insert = (sql: string, params: (string | number | null)[]): void =>
    void store.write((tx: Tx): Result<number> => ok(tx.run(sql, params)));
  seed(tasks, insert);
  seedHistory(history, tasks, insert);
  // Seeded without checkpoints, the journal holds every row (200 MiB at 1M tasks), far past the
  // limit a running store keeps it to. Checkpointed until the backups are images as a store that ran
  // a while has them, and that journal has left the folder: a run would otherwise free it when its
  // second checkpoint renamed over it (69 ms of ext4 in one turn at 1M), which no store in use does.
  for (let checkpoint = 0; checkpoint < 3; checkpoint++) store.checkpoint();
  store.close();
  return { imageBytes: fs.statSync(path.join(dir, 'foreman.db')).size };
}

async function storeRun(root: string, dir: string, writes: number, intervalMs: number, checkpointBytes: number): Promise<object> {
  const { SqlJsStore } = await storeModule(root);
  let checkpoints = 0;
  // A checkpoint's file steps heard within one turn of the event loop ran as one block the owner
  // could not answer during; from its first step to its last is (a lower bound of) that block.
  const blocks = new Map<number, { first: number; last: number }>();
  const threads = trace ? traceThreads() : undefined;
  const store = await SqlJsStore.open(dir, {
    checkpointBytes,
    // FOREMAN_BENCH_NO_REPLICA=1: every checkpoint exports on the owner's thread (see the usage above).
    ...(process.env.FOREMAN_BENCH_NO_REPLICA === '1' ? { replicaFromBytes: Number.POSITIVE_INFINITY } : {}),
    fileStep: (step) => {
      if (trace) process.stderr.write(`${performance.now().toFixed(1)} turn ${turns} step ${step}\n`);
      if (step === 'rename foreman.db.tmp to foreman.db') checkpoints++;
      const now = performance.now();
      const block = blocks.get(turns);
      if (block) block.last = now;
      else blocks.set(turns, { first: now, last: now });
    },
  });
  store.write(claimIn);
  let replicaReady = false;
  const samples = await openLoop(writes, intervalMs, {
    write: () => {
      const result = store.write(claimIn);
      if (!result.ok) throw new Error(result.message);
      const ready = (store as { replicaReady?: boolean }).replicaReady === true;
      if (trace && ready !== replicaReady)
        process.stderr.write(`${performance.now().toFixed(1)} replica ${ready ? 'ready' : 'not ready'}\n`);
      replicaReady = ready;
    },
    // As the owner's endpoint serves a request; FOREMAN_BENCH_NO_GROUP_COMMIT=1: an fsync per write.
    ...(store.savingLater && store.whenSaved && !noGroupCommit
      ? { groupCommit: { run: (fn) => store.savingLater?.(fn), whenSaved: () => store.whenSaved?.() ?? Promise.resolve() } }
      : {}),
  });
  // Turned (and counted) until the last checkpoint is done, so its steps fall into turns as during
  // the run, not into one long "turn" that would read as a block.
  let idle = false;
  void (store.whenIdle?.() ?? Promise.resolve()).then(() => (idle = true));
  while (!idle) {
    await nextTurn();
    turns++;
  }
  if (threads) clearInterval(threads);
  const rssMiB = process.memoryUsage().rss / 2 ** 20;
  // Where the checkpoints' images came from (absent in checkouts from before the replica).
  const imageSources: unknown = (store as { imageSources?: unknown }).imageSources;
  // In the order they happened, the blocks of more than a millisecond: the first after an open reads
  // every page cold; later ones find them in SQLite's cache. Taken before the close, whose own
  // (synchronous) checkpoint answers no request.
  const checkpointBlocksMs = [...blocks.values()].map((block) => Math.round((block.last - block.first) * 10) / 10).filter((ms) => ms > 1);
  store.close();
  return {
    ...samples,
    checkpoints,
    ...(imageSources ? { imageSources } : {}),
    longestCheckpointBlockMs: Math.max(0, ...checkpointBlocksMs),
    checkpointBlocksMs,
    rssMiB,
  };
}

/** The store's default limit on records in the journal (storeDisk.ts `checkpointRecords`). */
const checkpointRecords = 2000;

/**
 * Fills the journal to its maximum without a checkpoint (`checkpointBytes` or the store's limit on
 * records, whichever comes first), copies the folder (a crash), and opens the copy. Each open's CPU
 * time is reported too: on a loaded machine it moves less than the wall clock.
 */
async function crashOpen(root: string, dir: string, checkpointBytes: number): Promise<object> {
  const { SqlJsStore } = await storeModule(root);
  const store = await SqlJsStore.open(dir, { checkpointBytes: 2 ** 40, checkpointRecords: 2 ** 40 });
  // A few claims first, as a store that ran a while has written: the next segment's header then
  // numbers the claim's statements (journalFormat.ts; a checkout from before headers ignores it).
  for (let warm = 0; warm < 10; warm++) store.write(claimIn);
  // The baseline: the same image opened with nothing to replay, right after a checkpoint.
  store.checkpoint();
  const clean = `${dir}-clean`;
  fs.cpSync(dir, clean, { recursive: true });
  const journal = path.join(dir, 'foreman.journal');
  let records = 0;
  while (fs.statSync(journal).size < checkpointBytes && records < checkpointRecords) {
    const claimed = store.write(claimIn);
    // A refused claim writes nothing: without this the loop would never end.
    if (!claimed.ok)
      throw new Error(
        `the journal reached ${fs.statSync(journal).size} bytes of ${checkpointBytes} when ${claimed.message} Seed more tasks (--sizes).`,
      );
    records++;
  }
  const copy = `${dir}-crash`;
  fs.cpSync(dir, copy, { recursive: true });
  const journalBytes = fs.statSync(journal).size;
  store.close();
  const timedOpen = async (folder: string): Promise<{ ms: number; cpuMs: number }> => {
    const start = performance.now();
    const cpu = process.cpuUsage();
    const opened = await SqlJsStore.open(folder, { checkpointBytes: 2 ** 40, checkpointRecords: 2 ** 40 });
    opened.read((reader) => reader.get('SELECT count(*) AS n FROM tasks'));
    const used = process.cpuUsage(cpu);
    const ms = performance.now() - start;
    opened.close();
    return { ms, cpuMs: (used.user + used.system) / 1000 };
  };
  const crashed = await timedOpen(copy);
  const cleanly = await timedOpen(clean);
  return {
    openMs: crashed.ms,
    cleanOpenMs: cleanly.ms,
    openCpuMs: crashed.cpuMs,
    cleanOpenCpuMs: cleanly.cpuMs,
    replayedRecords: records,
    journalBytes,
  };
}

async function betterRun(tasks: number, history: number, dir: string, writes: number, intervalMs: number): Promise<object> {
  const db = openBetter(path.join(dir, 'better.db'));
  db.exec(migrations.map((migration) => migration.sql).join('\n'));
  db.transaction(() => {
    const insert = (sql: string, params: (string | number | null)[]): void => void db.prepare(sql).run(...params);
    seed(tasks, insert);
    seedHistory(history, tasks, insert);
  })();
  const claim = db.prepare(claimSql);
  const transition = db.prepare(transitionSql);
  const claimOnce = db.transaction(() => {
    const now = Date.now();
    const row = claim.get(now, 'worker-1', now) as { id: string; attempt: number };
    transition.run(now, row.id, 'worker-1', row.attempt);
  });
  claimOnce();
  const samples = await openLoop(writes, intervalMs, { write: claimOnce });
  db.close();
  return samples;
}

/** The floor: a 4 KiB append and its fsync, the least any durable write on this disk costs. */
async function floorRun(dir: string, writes: number, intervalMs: number): Promise<object> {
  const fd = fs.openSync(path.join(dir, 'floor.bin'), 'a');
  const block = Buffer.alloc(4096, 1);
  const samples = await openLoop(writes, intervalMs, {
    write: () => {
      fs.writeSync(fd, block);
      fs.fsyncSync(fd);
    },
  });
  fs.closeSync(fd);
  return samples;
}

async function main(): Promise<void> {
  const [variant, tasksText, historyText, dir, writesText, intervalText, checkpointMiBText, rootArgument] = process.argv.slice(2);
  const tasks = Number(tasksText);
  const history = Number(historyText);
  const writes = Number(writesText);
  const intervalMs = Number(intervalText);
  const checkpointBytes = Number(checkpointMiBText) * 2 ** 20;
  const root = rootArgument ?? path.join(__dirname, '..');
  if (!variant || !dir || !(tasks > 0) || !(history >= 0) || !(writes >= 0) || !(intervalMs > 0) || !(checkpointBytes > 0)) {
    throw new Error('usage: longRunChild.ts <variant> <tasks> <history> <dir> <writes> <intervalMs> <checkpointMiB> [storeRoot]');
  }
  const result =
    variant === 'seed'
      ? await seedFolder(root, tasks, history, dir)
      : variant === 'store'
        ? await storeRun(root, dir, writes, intervalMs, checkpointBytes)
        : variant === 'crashOpen'
          ? await crashOpen(root, dir, checkpointBytes)
          : variant === 'better'
            ? await betterRun(tasks, history, dir, writes, intervalMs)
            : variant === 'floor'
              ? await floorRun(dir, writes, intervalMs)
              : undefined;
  if (!result) throw new Error(`unknown variant ${variant}`);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

void main();
