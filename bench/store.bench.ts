/**
 * The store's claim path side by side at several sizes: the journal store (durable and in memory),
 * sql.js exporting the whole file per commit, and better-sqlite3 in WAL mode with synchronous=FULL.
 * Every measurement runs in a fresh child process on a fresh database in a temp folder, `--runs`
 * times (default 3, as PERF-FACTS measures); each figure is the median over those runs.
 *
 * Usage: node --import tsx bench/store.bench.ts [--sizes 1000,10000,100000] [--claims 200] [--runs 3] [--quick]
 * Prints one JSON object: per size, medians and p95 in milliseconds, and the ratios that matter.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { numberOption, textOption } from './support/options';

const child = path.join(__dirname, 'storeBenchChild.ts');

type ChildResult = Record<string, unknown>;

interface Stats {
  readonly medianMs: number;
  readonly p95Ms: number;
  /** Samples per run. */
  readonly n: number;
}

interface SizeResult {
  readonly tasks: number;
  readonly imageMiB: number;
  readonly journalStore: {
    readonly durableClaim: Stats;
    readonly inMemoryClaim: Stats;
    readonly rawSqlJsClaim: Stats;
    readonly openToFirstClaimMs: number;
    readonly wasmInitMs: number;
    readonly reopenReplayingMs: number;
    readonly replayedRecords: number;
    readonly rssAfterOpenAnd100ClaimsMiB: number;
  };
  readonly naiveExportPerCommit: { readonly durableClaim: Stats };
  readonly betterSqlite3WalFull: { readonly durableClaim: Stats; readonly openToFirstClaimMs: number; readonly rssMiB: number };
}

function run(variant: string, tasks: number, dir: string, claims: number): ChildResult {
  const output = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', child, variant, String(tasks), dir, String(claims)], {
    encoding: 'utf8',
    maxBuffer: 64 * 2 ** 20,
  });
  return JSON.parse(output) as ChildResult;
}

const round = (value: number, digits = 3): number => Math.round(value * 10 ** digits) / 10 ** digits;

function percentile(samples: readonly number[], fraction: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

/** Median and p95 of each run's samples, then the median of those over the runs. */
function stats(runs: readonly ChildResult[], key: string): Stats {
  const perRun = runs.map((result) => result[key] as number[]);
  return {
    medianMs: round(
      percentile(
        perRun.map((samples) => percentile(samples, 0.5)),
        0.5,
      ),
      4,
    ),
    p95Ms: round(
      percentile(
        perRun.map((samples) => percentile(samples, 0.95)),
        0.5,
      ),
      4,
    ),
    n: perRun[0]?.length ?? 0,
  };
}

/** The median over the runs of one number each run reported. */
function scalar(runs: readonly ChildResult[], key: string, digits = 1): number {
  return round(
    percentile(
      runs.map((result) => Number(result[key])),
      0.5,
    ),
    digits,
  );
}

function measure(tasks: number, claims: number, runs: number, root: string): SizeResult {
  const sizeRoot = path.join(root, String(tasks));
  const seeded = path.join(sizeRoot, 'seed', '.foreman');
  const seed = run('seed', tasks, seeded, 0);
  const repeat = (variant: string, dirFor: (index: number) => string, count: number): ChildResult[] =>
    Array.from({ length: runs }, (_, index) => run(variant, tasks, dirFor(index), count));
  const journal = repeat(
    'journal',
    (index) => {
      // Claims change the database: every run starts from its own copy of the seeded folder.
      const dir = path.join(sizeRoot, `journal-${index}`, '.foreman');
      fs.cpSync(seeded, dir, { recursive: true });
      return dir;
    },
    claims,
  );
  const memory = repeat('memory', () => sizeRoot, claims);
  // The naive store reads the seeded image and writes its own file next to it; it never changes the seed.
  const naive = repeat('naive', () => path.join(sizeRoot, 'seed'), tasks >= 100_000 ? Math.min(20, claims) : Math.min(100, claims));
  const better = repeat(
    'better',
    (index) => {
      const dir = path.join(sizeRoot, `better-${index}`);
      fs.mkdirSync(dir, { recursive: true });
      return dir;
    },
    claims,
  );
  fs.rmSync(sizeRoot, { recursive: true, force: true });
  return {
    tasks,
    imageMiB: round(Number(seed.imageBytes) / 2 ** 20, 1),
    journalStore: {
      durableClaim: stats(journal, 'durableClaimMs'),
      inMemoryClaim: stats(memory, 'inMemoryClaimMs'),
      rawSqlJsClaim: stats(memory, 'rawSqlJsClaimMs'),
      openToFirstClaimMs: scalar(journal, 'openToFirstClaimMs'),
      wasmInitMs: scalar(journal, 'wasmInitMs'),
      reopenReplayingMs: scalar(journal, 'reopenReplayingMs'),
      replayedRecords: scalar(journal, 'replayedRecords', 0),
      rssAfterOpenAnd100ClaimsMiB: scalar(journal, 'rssAfterOpenAnd100ClaimsMiB'),
    },
    naiveExportPerCommit: { durableClaim: stats(naive, 'durableClaimMs') },
    betterSqlite3WalFull: {
      durableClaim: stats(better, 'durableClaimMs'),
      openToFirstClaimMs: scalar(better, 'openToFirstClaimMs'),
      rssMiB: scalar(better, 'rssMiB'),
    },
  };
}

function ratiosOf(results: readonly SizeResult[]): Record<string, number> {
  const smallest = results[0];
  const largest = results.at(-1);
  if (!smallest || !largest) return {};
  return {
    [`journalDurable${largest.tasks}Over${smallest.tasks}`]: round(
      largest.journalStore.durableClaim.medianMs / smallest.journalStore.durableClaim.medianMs,
      2,
    ),
    ...Object.fromEntries(
      results.flatMap((result) => [
        [
          `journalOverBetterSqlite3At${result.tasks}`,
          round(result.journalStore.durableClaim.medianMs / result.betterSqlite3WalFull.durableClaim.medianMs, 2),
        ],
        [
          `naiveOverJournalAt${result.tasks}`,
          round(result.naiveExportPerCommit.durableClaim.medianMs / result.journalStore.durableClaim.medianMs, 1),
        ],
        [
          `inMemoryStoreOverRawSqlJsAt${result.tasks}`,
          round(result.journalStore.inMemoryClaim.medianMs / result.journalStore.rawSqlJsClaim.medianMs, 2),
        ],
      ]),
    ),
  };
}

/** ARCHITECTURE §2's targets, checked at the largest size measured. */
function targetsOf(results: readonly SizeResult[]): Record<string, boolean> {
  const smallest = results[0];
  const largest = results.at(-1);
  if (!smallest || !largest) return {};
  const store = largest.journalStore;
  return {
    durableClaimMedianLe2ms: store.durableClaim.medianMs <= 2,
    durableClaimGrowthLe1_5x: store.durableClaim.medianMs <= 1.5 * smallest.journalStore.durableClaim.medianMs,
    inMemoryClaimMedianLe40us: store.inMemoryClaim.medianMs <= 0.04,
    openToFirstClaimLe100ms: store.openToFirstClaimMs <= 100,
    rssLe250MiB: store.rssAfterOpenAnd100ClaimsMiB <= 250,
  };
}

function main(): void {
  const sizes = textOption('sizes', '1000,10000,100000', '1000').split(',').map(Number);
  const claims = numberOption('claims', 200, 100);
  const runs = numberOption('runs', 3, 1);
  if (sizes.some((size) => !Number.isInteger(size) || size < 1) || !(claims >= 100) || !(runs >= 1)) {
    throw new Error('usage: --sizes 1000,10000 --claims 200 (at least 100) --runs 3');
  }
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'foreman-store-bench-'));
  try {
    const results = sizes.map((size) => measure(size, claims, runs, root));
    const environment = {
      node: process.version,
      cpus: os.cpus().length,
      platform: `${process.platform}-${process.arch}`,
      tmpdir: os.tmpdir(),
    };
    const report = {
      environment,
      claimsPerMeasurement: claims,
      runs,
      results,
      ratios: ratiosOf(results),
      targetsAtLargestSize: targetsOf(results),
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main();
