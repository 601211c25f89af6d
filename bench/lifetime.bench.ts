/**
 * A crew's lifetime of work (issue 13: RSS ≤ 250 MiB after 1M tasks of lifetime with 10k active).
 * A real engine on a real sql.js store (journal, checkpoints, the replica) takes `--tasks` finished
 * tasks with their history (bench/support/history.ts: 9 history rows each), `--chunk` at a time,
 * and retention archives them as it goes: after each chunk, `archive` batches of `--batch` tasks
 * until nothing older than the window is left, as an owner does in the background. Then `--active`
 * queued tasks of work in hand. Measured at the end: the process's RSS after a full GC, the image
 * on disk (after a checkpoint), the archive on disk, and the time each part took.
 * The baseline, in a process of its own: the same run without retention, at `--baseline-tasks`
 * (default: 100k at most). Without retention a million tasks' history is a ~1 GB image that every
 * checkpoint exports whole; on this 2-core machine that run had not finished seeding after 4 minutes
 * (journal at 1 GB), so the baseline is measured at the largest size that completes.
 *
 * Usage: node --import tsx bench/lifetime.bench.ts [--tasks 1000000] [--active 10000] [--chunk 20000]
 *   [--batch 1000] [--baseline-tasks N] [--quick]. Prints one JSON object.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { ok } from '../src/core/result';
import { openEngine } from '../test/support/engineHarness';
import { historyRowsPerTask, insertFinishedTasks, insertQueuedTasks } from './support/history';
import { numberOption } from './support/options';
import { round, tails } from './support/stats';

const day = 86_400_000;
/** Tasks per store write while seeding: one journal record each. */
const tasksPerWrite = 1000;

const sizeOf = (dir: string): number =>
  fs.existsSync(dir) ? fs.readdirSync(dir).reduce((sum, name) => sum + fs.statSync(path.join(dir, name)).size, 0) : 0;
const jsonLine = (text: string): string => text.split('\n').find((line) => line.startsWith('{')) ?? text;
const mib = (bytes: number): number => round(bytes / 2 ** 20, 1);

interface ArchiveReport {
  readonly batch: number | null;
  readonly more: boolean;
  readonly tasks: number;
}

async function lifetime(retention: boolean, tasks: number, active: number, chunk: number, batch: number): Promise<object> {
  const harness = await openEngine();
  try {
    const { store, clock } = harness;
    const foremanDir = path.join(harness.dir, '.foreman');
    const start = clock.now() - 40 * day;
    let seedMs = 0;
    const archiveMs: number[] = [];
    let archived = 0;
    for (let from = 0; from < tasks; from += chunk) {
      const to = Math.min(tasks, from + chunk);
      const seedStart = performance.now();
      for (let first = from; first < to; first += tasksPerWrite) {
        store.write((tx) => {
          insertFinishedTasks(tx, first, Math.min(to, first + tasksPerWrite), start);
          return ok(undefined);
        });
        // An owner turns its event loop between requests: checkpoints and the replica run there.
        await nextTurn();
      }
      seedMs += performance.now() - seedStart;
      if (!retention) continue;
      for (;;) {
        const batchStart = performance.now();
        const report = await harness.value<ArchiveReport>('archive', { olderThanMs: 7 * day, limit: batch });
        archiveMs.push(performance.now() - batchStart);
        archived += report.tasks;
        if (report.batch === null || !report.more) break;
      }
    }
    store.write((tx) => {
      insertQueuedTasks(tx, 0, active, clock.now());
      return ok(undefined);
    });
    store.checkpoint();
    (globalThis as { gc?: () => void }).gc?.();
    const status = harness.query('status', { limit: 100 });
    return {
      retention,
      lifetimeTasks: tasks,
      historyRows: tasks * historyRowsPerTask,
      activeTasks: active,
      rssMiB: mib(process.memoryUsage().rss),
      imageMiB: mib(fs.statSync(path.join(foremanDir, 'foreman.db')).size),
      archiveMiB: mib(sizeOf(path.join(foremanDir, 'archive'))),
      archivedTasks: archived,
      liveTasks: status.page?.counts ?? null,
      seedS: round(seedMs / 1000, 1),
      archiveBatches: retention ? tails(archiveMs, 1) : null,
      archiveS: round(archiveMs.reduce((sum, ms) => sum + ms, 0) / 1000, 1),
    };
  } finally {
    harness.close();
  }
}

async function main(): Promise<void> {
  const tasks = numberOption('tasks', 1_000_000, 1_000);
  const active = numberOption('active', 10_000, 50);
  const chunk = Math.max(1, numberOption('chunk', 20_000, 500));
  const batch = Math.max(1, numberOption('batch', 1000, 250));
  const mode = process.argv[process.argv.indexOf('--child') + 1];
  if (process.argv.includes('--child')) {
    const result = await lifetime(mode === 'retention', tasks, active, chunk, batch);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const baselineTasks = numberOption('baseline-tasks', Math.min(tasks, 100_000));
  // The child's JSON is one line: the engine harness uses node:test, which prints its TAP around it.
  const run = (childMode: string, size: number): Record<string, unknown> =>
    JSON.parse(
      jsonLine(
        execFileSync(
          process.execPath,
          [
            '--expose-gc',
            '--max-old-space-size=8192',
            '--import',
            'tsx',
            __filename,
            '--child',
            childMode,
            ...['--tasks', String(size), '--active', String(active), '--chunk', String(chunk), '--batch', String(batch)],
          ],
          { encoding: 'utf8', maxBuffer: 64 * 2 ** 20, stdio: ['ignore', 'pipe', 'inherit'] },
        ),
      ),
    ) as Record<string, unknown>;
  const withRetention = run('retention', tasks);
  let without: Record<string, unknown>;
  try {
    without = run('none', baselineTasks);
  } catch (error) {
    // Without retention a million tasks' history may not fit sql.js's memory at all: that is the figure then.
    without = {
      retention: false,
      lifetimeTasks: baselineTasks,
      failed: error instanceof Error ? error.message.slice(0, 500) : String(error),
    };
  }
  const rss = withRetention['rssMiB'] as number;
  process.stdout.write(
    `${JSON.stringify(
      {
        withRetention,
        withoutRetention: without,
        rssOverWithout: typeof without['rssMiB'] === 'number' ? round(rss / without['rssMiB'], 2) : null,
        imageOverWithout:
          typeof without['imageMiB'] === 'number' ? round((withRetention['imageMiB'] as number) / without['imageMiB'], 3) : null,
        target: 'RSS ≤ 250 MiB after 1M tasks of lifetime with 10k active',
        met: rss <= 250 && tasks >= 1_000_000 && active >= 10_000,
        environment: { node: process.version, cpus: os.cpus().length, loadAverage1m: round(os.loadavg()[0] ?? 0, 2) },
      },
      null,
      2,
    )}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
