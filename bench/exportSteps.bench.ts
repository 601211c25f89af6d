/**
 * The owner's JSONL exports catching up a backlog (issue 13: "no single request waits behind ... an
 * export"). Each retention pass first brings `.foreman/transitions.jsonl` and `bus.jsonl` up to date.
 * It used to do so in one transaction, however much history had come since the last pass; now a pass
 * writes at most 500 rows of each stream and leaves the rest to the next step, 50 ms later.
 *
 * Two engines on real sql.js stores, each seeded with `--tasks` finished tasks whose history (7
 * transitions and 2 messages each) was never exported. Measured in one run:
 *   - steps: the owner's background passes, driven by the harness clock, each timed as the write on
 *     the owner's thread it is, until both files are caught up (median, p99, max);
 *   - baseline: `foreman export` on the other engine, the whole backlog in one transaction.
 *
 * Usage: node --import tsx bench/exportSteps.bench.ts [--tasks 20000] [--quick]. Prints one JSON object.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { ok } from '../src/core/result';
import { type EngineHarness, openEngine } from '../test/support/engineHarness';
import { historyRowsPerTask, insertFinishedTasks } from './support/history';
import { numberOption } from './support/options';
import { round, tails } from './support/stats';

const tasks = numberOption('tasks', 20_000, 500);
const day = 86_400_000;

/** An engine whose store holds `tasks` finished tasks from a day ago, none of it exported yet. */
async function seeded(): Promise<EngineHarness> {
  const harness = await openEngine();
  const start = harness.clock.now() - day;
  for (let from = 0; from < tasks; from += 500) {
    harness.store.write((tx) => {
      insertFinishedTasks(tx, from, Math.min(tasks, from + 500), start);
      return ok(undefined);
    });
  }
  return harness;
}

function lines(harness: EngineHarness, name: string): number {
  const file = path.join(harness.dir, '.foreman', name);
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0;
}

async function main(): Promise<void> {
  const transitions = tasks * 7;
  const messages = tasks * 2;

  const owner = await seeded();
  const steps: number[] = [];
  owner.engine.startBackground();
  await nextTurn();
  // The first pass is due 5 s after the start, each next step 50 ms after the one before.
  for (let wait = 5_000; lines(owner, 'transitions.jsonl') < transitions || lines(owner, 'bus.jsonl') < messages; wait = 50) {
    const started = performance.now();
    owner.clock.advance(wait);
    steps.push(performance.now() - started);
    await nextTurn();
    if (steps.length > transitions) throw new Error('the exports never caught up');
  }
  owner.close();

  const manual = await seeded();
  const started = performance.now();
  await manual.value('export', {});
  const oneWriteMs = performance.now() - started;
  if (lines(manual, 'transitions.jsonl') !== transitions) throw new Error('the one-write export missed rows');
  manual.close();

  const stepTails = tails(steps, 1);
  console.log(
    JSON.stringify(
      {
        bench: 'exportSteps',
        tasks,
        backlogRows: tasks * historyRowsPerTask,
        steps: stepTails,
        baseline: { oneWriteMs: round(oneWriteMs, 1) },
        longestStepOverOneWrite: round((stepTails.maxMs ?? 0) / oneWriteMs, 3),
      },
      null,
      2,
    ),
  );
}

void main();
