/**
 * Tails of durable writes over a run long enough to include several checkpoints (issue 13, item 5).
 * bench/store.bench.ts times 200 claims, and the first checkpoint comes after thousands, so its tails
 * never held one. Here claims arrive every `--interval-ms` (an open loop, as requests reach an
 * owner) until the journal has passed its limit several times, and each figure is the latency from
 * a request's arrival to its answer: a request that arrives while the owner is busy checkpointing
 * waits, and that wait is counted. Each turn of the event loop serves every request that has
 * arrived by its start, as an owner reads every socket with data in one poll; the store answers
 * them as its endpoint does, once one fsync saved them all (group commit). `turnsServingSeveral`
 * and `mostInOneTurn` say how often that grouped more than one. Side by side in the same run: better-sqlite3 (WAL,
 * synchronous=FULL) on the same schedule, whose WAL checkpoints are inline too, and the fsync floor
 * (a 4 KiB append + fsync). With `--before <checkout>` the store of another checkout (say, the
 * commit before checkpoints moved off the request path) runs the same schedule.
 * Also measured: opening after a crash with the journal at its maximum (no checkpoint since).
 *
 * Usage: node --import tsx bench/longRun.bench.ts [--sizes 100000] [--history 0] [--writes 40000] [--interval-ms auto]
 *   [--checkpoint-mib 2] [--before /path/to/older/checkout] [--quick]
 * `--history` seeds that many rows of finished work's history (transitions), one figure per size or
 * one for all: the targets are `--sizes 100000,1000000 --history 0,1000000`.
 * `auto` arrives at three times the fsync floor's median measured first. A checkpoint's pause depends
 * on the image (the number of tasks), not on the journal limit; a smaller `--checkpoint-mib` only
 * fits more checkpoints into a shorter run.
 * Each run also reports `hostStealMs`: CPU time the hypervisor took from this VM meanwhile (/proc/stat),
 * which stops every process at once and shows in every tail of that run, the fsync floor's included.
 * Prints one JSON object; times in ms.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { textOption } from './support/options';
import { round, tails } from './support/stats';

const child = path.join(__dirname, 'longRunChild.ts');
const warmUpWrites = 100;
const here = path.join(__dirname, '..');

interface Run {
  readonly latencyMs?: number[];
  readonly serviceMs?: number[];
  readonly [key: string]: unknown;
}

/** What a folder is seeded with: queued and done tasks, and rows of finished work's history. */
interface Size {
  readonly tasks: number;
  readonly history: number;
}

function run(variant: string, size: Size, dir: string, writes: number, interval: number, checkpointMiB: number, root = here): Run {
  const { tasks, history } = size;
  const output = execFileSync(
    process.execPath,
    ['--import', 'tsx', child, variant, String(tasks), String(history), dir, String(writes), String(interval), String(checkpointMiB), root],
    { encoding: 'utf8', maxBuffer: 256 * 2 ** 20, cwd: root },
  );
  return JSON.parse(output) as Run;
}

/**
 * Writes a copied folder's files to disk before a run. The copy (hundreds of MiB at 1M tasks) is
 * the bench's setup, not the store's work; left dirty, the first fsync of a copied file during the
 * run flushed all of it: a checkpoint reusing the copied backup's file made one claim wait 150 ms.
 */
function flushFiles(dir: string): void {
  for (const name of fs.readdirSync(dir)) {
    const fd = fs.openSync(path.join(dir, name), 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }
}

/** Latency tails (arrival to answer) and service tails (the write alone) of one run, and its other numbers. */
function figures(result: Run): Record<string, unknown> {
  const { latencyMs, serviceMs, ...rest } = result;
  return {
    ...(latencyMs ? { latency: tails(latencyMs, 2) } : {}),
    // Without the first writes after the open, which read every page cold ("open → first claim").
    ...(latencyMs ? { latencyAfterWarmUp: tails(latencyMs.slice(warmUpWrites), 2) } : {}),
    ...(serviceMs ? { service: tails(serviceMs, 2) } : {}),
    ...Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, typeof value === 'number' ? round(value, 1) : value])),
  };
}

/**
 * The arrival interval: three times the fsync floor's median on this disk right now, so that the
 * owner is busy a third of the time or so and a queue builds only behind a pause, never by itself.
 */
function calibrate(root: string): number {
  const dir = path.join(root, 'calibrate');
  fs.mkdirSync(dir, { recursive: true });
  const floor = run('floor', { tasks: 1, history: 0 }, dir, 300, 5, 1);
  fs.rmSync(dir, { recursive: true, force: true });
  const median = Number(tails(floor.serviceMs ?? []).medianMs);
  return Math.max(1, round(3 * median, 1));
}

function measure(size: Size, writes: number, interval: number, checkpointMiB: number, before: string | undefined, root: string) {
  const { tasks, history } = size;
  const sizeRoot = path.join(root, String(tasks));
  const seeded = path.join(sizeRoot, 'seed', '.foreman');
  const seed = run('seed', size, seeded, 0, interval, checkpointMiB);
  const copyOfSeed = (name: string): string => {
    const dir = path.join(sizeRoot, name, '.foreman');
    fs.cpSync(seeded, dir, { recursive: true });
    flushFiles(dir);
    return dir;
  };
  const fresh = (name: string): string => {
    const dir = path.join(sizeRoot, name);
    fs.mkdirSync(dir, { recursive: true });
    return dir;
  };
  const store = run('store', size, copyOfSeed('store'), writes, interval, checkpointMiB);
  const storeBefore = before ? run('store', size, copyOfSeed('store-before'), writes, interval, checkpointMiB, before) : undefined;
  const better = run('better', size, fresh('better'), writes, interval, checkpointMiB);
  const floor = run('floor', size, fresh('floor'), writes, interval, checkpointMiB);
  const crash = run('crashOpen', size, copyOfSeed('crash'), 0, interval, checkpointMiB);
  const crashBefore = before ? run('crashOpen', size, copyOfSeed('crash-before'), 0, interval, checkpointMiB, before) : undefined;
  fs.rmSync(sizeRoot, { recursive: true, force: true });
  const storeFigures = figures(store);
  const latency = (figure: Record<string, unknown>): Record<string, number> => figure.latency as Record<string, number>;
  const betterFigures = figures(better);
  const floorFigures = figures(floor);
  const maxTargetMs = tasks >= 1_000_000 ? 50 : 20;
  return {
    tasks,
    historyRows: history,
    imageMiB: round(Number(seed.imageBytes) / 2 ** 20, 1),
    store: storeFigures,
    ...(storeBefore ? { storeBefore: figures(storeBefore) } : {}),
    betterSqlite3WalFull: betterFigures,
    fsyncFloor: floorFigures,
    openAfterCrashAtMaxJournal: figures(crash),
    ...(crashBefore ? { openAfterCrashAtMaxJournalBefore: figures(crashBefore) } : {}),
    ratios: {
      storeMedianOverBetterSqlite3: round((latency(storeFigures).medianMs ?? 0) / (latency(betterFigures).medianMs ?? 1), 2),
      storeP99OverBetterSqlite3: round((latency(storeFigures).p99Ms ?? 0) / (latency(betterFigures).p99Ms ?? 1), 2),
      storeMaxOverBetterSqlite3: round((latency(storeFigures).maxMs ?? 0) / (latency(betterFigures).maxMs ?? 1), 2),
      storeMedianOverFsyncFloor: round((latency(storeFigures).medianMs ?? 0) / (latency(floorFigures).medianMs ?? 1), 2),
    },
    targets: {
      [`longestRequestLe${maxTargetMs}ms`]: (latency(storeFigures).maxMs ?? Infinity) <= maxTargetMs,
      [`longestCheckpointPauseLe${maxTargetMs}ms`]: Number(store.longestCheckpointBlockMs) <= maxTargetMs,
      openAfterCrashAtMaxJournalLe300ms: Number(crash.openMs) <= 300,
      severalCheckpointsIncluded: Number(store.checkpoints) >= 3,
    },
  };
}

function main(): void {
  const sizes = textOption('sizes', '100000', '2000').split(',').map(Number);
  const histories = textOption('history', '0').split(',').map(Number);
  const historyOf = (index: number): number => (histories.length === 1 ? (histories[0] ?? 0) : (histories[index] ?? NaN));
  const writes = Number(textOption('writes', '40000', '200'));
  const intervalOption = textOption('interval-ms', 'auto', '2');
  const checkpointMiB = Number(textOption('checkpoint-mib', '2', '0.25'));
  const beforeOption = textOption('before', '');
  const before = beforeOption ? path.resolve(beforeOption) : undefined;
  // The seed queues three tasks in four, and every write claims one of them (and the store one more first).
  const tooSmall = sizes.find((size) => size - Math.floor(size / 4) < writes + 1);
  if (tooSmall !== undefined) {
    throw new Error(
      `--writes ${writes} claims more tasks than --sizes ${tooSmall} queues (three in four): use --sizes ${Math.ceil(((writes + 1) * 4) / 3)} or more, or fewer --writes (the crash case claims until the journal reaches --checkpoint-mib: ~1,800 claims for 2 MiB).`,
    );
  }
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'foreman-longrun-bench-'));
  const interval = intervalOption === 'auto' ? calibrate(root) : Number(intervalOption);
  if (
    sizes.some((size) => !Number.isInteger(size) || size < 1) ||
    sizes.some((_, index) => !(Number.isInteger(historyOf(index)) && historyOf(index) >= 0)) ||
    !(writes >= 100) ||
    !(interval > 0) ||
    !(checkpointMiB > 0)
  ) {
    throw new Error(
      'usage: --sizes 100000[,1000000] --history 0[,1000000] --writes 40000 --interval-ms auto|1.5 --checkpoint-mib 2 [--before <checkout>]',
    );
  }
  try {
    const results = sizes.map((tasks, index) =>
      measure({ tasks, history: historyOf(index) }, writes, interval, checkpointMiB, before, root),
    );
    const environment = {
      node: process.version,
      cpus: os.cpus().length,
      platform: `${process.platform}-${process.arch}`,
      tmpdir: os.tmpdir(),
      // Other work on the machine moves absolute figures; ratios within one run hold better.
      loadAverage: os.loadavg().map((load) => round(load, 1)),
    };
    const report = { environment, writes, intervalMs: interval, checkpointMiB, before: before ?? null, results };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main();
