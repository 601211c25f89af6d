/**
 * Months of history (issue 13). A real engine on a real sql.js store (journal, checkpoints) holds
 * `--tasks` finished tasks (default 100,000), each with 3 task and 4 worker transitions and 2
 * messages — a million history rows at the default — plus 1,000 queued tasks of work in hand.
 * Measured in one run, before and after retention moves the finished work to the archive:
 *   - the image on disk, a checkpoint, the process's RSS (after a GC);
 *   - `metrics`, a new agent's first `poll`, `status --json` (the default page and `--all`);
 *   - a durable request (`task.add`) on the owner's thread, with its tails;
 * and every archive batch, itself one write on that thread (median, p99, max).
 *
 * Usage: node --expose-gc --import tsx bench/retention.bench.ts [--tasks 100000] [--batch 200] [--quick]. Prints one JSON object.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ok } from '../src/core/result';
import { openEngine } from '../test/support/engineHarness';
import { insertFinishedTasks } from './support/history';
import { numberOption } from './support/options';
import { round, tails } from './support/stats';

const finished = numberOption('tasks', 100_000, 2_000);
const batchTasks = numberOption('batch', 200, 500);
const day = 86_400_000;
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

function time(fn: () => void): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

async function timeAsync(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

async function main(): Promise<void> {
  const harness = await openEngine();
  const { store, clock } = harness;
  const image = path.join(harness.dir, '.foreman', 'foreman.db');
  const start = clock.now() - 40 * day;

  // Seeding writes SQL directly, 500 tasks per write: the history, not the engine, is under test here.
  const seedStart = performance.now();
  for (let from = 0; from < finished; from += 500) {
    const to = Math.min(finished, from + 500);
    store.write((tx) => {
      insertFinishedTasks(tx, from, to, start);
      return ok(undefined);
    });
  }
  for (let n = 0; n < 1000; n++) await harness.value('task.add', { title: `Work in hand ${n}`, id: `live-${n}`, manual: true });
  const seedMs = performance.now() - seedStart;

  const measure = async (label: string) => {
    store.checkpoint();
    const checkpointMs = [time(() => store.checkpoint()), time(() => store.checkpoint())];
    gc();
    const rssMiB = process.memoryUsage().rss / 2 ** 20;
    const metricsMs = [0, 1, 2].map(() => time(() => harness.query('metrics', {})));
    const firstPollMs = [0, 1, 2].map((n) => time(() => harness.query('poll', { agent: `newcomer-${label}-${n}` })));
    // `foreman status --json`: the default page (100 tasks) against the full dump (`--all`), as JSON.
    const statusOf = (args: { limit?: number }) => {
      let bytes = 0;
      const ms = [0, 1, 2].map(() => time(() => (bytes = JSON.stringify(harness.query('status', args)).length)));
      return { maxMs: round(Math.max(...ms)), KiB: round(bytes / 1024) };
    };
    const statusDefault = statusOf({ limit: 100 });
    const statusAll = statusOf({});
    const requests: number[] = [];
    for (let n = 0; n < 300; n++) {
      requests.push(await timeAsync(() => harness.value('task.add', { title: `Probe ${n}`, id: `probe-${label}-${n}`, manual: true })));
    }
    return {
      imageMiB: round(fs.statSync(image).size / 2 ** 20),
      checkpointMs: round(Math.max(...checkpointMs)),
      rssMiB: round(rssMiB),
      metricsMs: round(Math.max(...metricsMs)),
      firstPollMs: round(Math.max(...firstPollMs)),
      statusDefault,
      statusAll,
      durableRequest: tails(requests, 2),
    };
  };

  const before = await measure('before');
  const batches: number[] = [];
  let archived = { tasks: 0, transitions: 0, messages: 0 };
  for (;;) {
    let report: { batch: number | null; more: boolean; tasks: number; transitions: number; messages: number } | undefined;
    batches.push(
      await timeAsync(async () => {
        report = await harness.value('archive', { olderThanMs: 7 * day, limit: batchTasks });
      }),
    );
    if (!report) throw new Error('archive returned nothing');
    archived = {
      tasks: archived.tasks + report.tasks,
      transitions: archived.transitions + report.transitions,
      messages: archived.messages + report.messages,
    };
    if (report.batch === null || !report.more) break;
  }
  const archiveDir = path.join(harness.dir, '.foreman', 'archive');
  const archiveMiB = fs.readdirSync(archiveDir).reduce((sum, name) => sum + fs.statSync(path.join(archiveDir, name)).size, 0) / 2 ** 20;
  const after = await measure('after');
  const ratio = (a: number, b: number) => round(a / b, 3);
  console.log(
    JSON.stringify(
      {
        bench: 'retention',
        finishedTasks: finished,
        historyRows: finished * 9,
        seedS: round(seedMs / 1000),
        before,
        archiving: { ...archived, segments: batches.length, archiveMiB: round(archiveMiB), batch: tails(batches, 1) },
        after,
        afterOverBefore: {
          image: ratio(after.imageMiB, before.imageMiB),
          checkpoint: ratio(after.checkpointMs, before.checkpointMs),
          rss: ratio(after.rssMiB, before.rssMiB),
          metrics: ratio(after.metricsMs, before.metricsMs),
          firstPoll: ratio(after.firstPollMs, before.firstPollMs),
          durableRequestP99: ratio(after.durableRequest.p99Ms ?? 0, before.durableRequest.p99Ms ?? 1),
        },
      },
      null,
      2,
    ),
  );
  harness.close();
}

void main();
