/**
 * Journal bytes per claim cycle (issue 34: ≤ 2.5 KB): a claim then a fail, the cycle
 * bench/ownerTail.bench.ts and bench/clients.bench.ts time, through Foreman's engine in-process on
 * a `SqlJsStore` on disk. Measured twice in one store: in its first segment, whose records hold
 * their statement texts (the format before segment headers), and after a checkpoint, in a segment
 * whose header numbers the statements written before (compact records, journalFormat.ts).
 * Also printed: the records per cycle and, per format, how long reading the segment back takes.
 *
 * Usage: node --import tsx bench/journalBytes.bench.ts [--tasks 10000] [--cycles 500] [--quick]
 * Prints one JSON object; bytes and ms.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ok } from '../src/core/result';
import { defaultEngineSettings } from '../src/engine/settings';
import { SqlJsStore } from '../src/infra/db';
import { scanJournal } from '../src/infra/db/journalFormat';
import { seed } from './support/claimWorkload';
import { benchClone, benchEngine, executorOf } from './support/benchEngine';
import { numberOption } from './support/options';
import { round } from './support/stats';

const workers = 8;

async function main(): Promise<void> {
  const tasks = numberOption('tasks', 10_000, 1_000);
  const cycles = numberOption('cycles', 500, 50);
  const repo = benchClone('journal-bytes');
  const foremanDir = path.join(repo, '.foreman');
  const journal = path.join(foremanDir, 'foreman.journal');
  const store = await SqlJsStore.open(foremanDir, { checkpointBytes: 2 ** 40 });
  const engine = benchEngine(store, { ...defaultEngineSettings, concurrency: workers }, repo, foremanDir);
  const execute = executorOf(engine, 'bench');
  try {
    seed(tasks, (sql, params) => void store.write((tx) => ok(tx.run(sql, params))));
    // Every cycle fails its attempt: no task may run out of attempts (its worker would stay FAILED).
    store.write((tx) => ok(tx.run('UPDATE tasks SET max_attempts = 1000000')));
    for (let n = 0; n < workers; n++) await execute('worker.add', { id: `w${n}` });
    let cycle = 0;
    /** Bytes and records the journal grew by over `count` cycles, from a segment it starts measuring in. */
    const measure = async (count: number): Promise<{ bytesPerCycle: number; recordsPerCycle: number; readMs: number }> => {
      const bytesBefore = fs.statSync(journal).size;
      const recordsBefore = scanJournal(fs.readFileSync(journal)).records.length;
      for (let end = cycle + count; cycle < end; cycle++) {
        const worker = `w${cycle % workers}`;
        await execute('claim', { worker });
        await execute('fail', { worker, reason: 'released by the bench' });
      }
      const bytes = fs.readFileSync(journal);
      const started = performance.now();
      const records = scanJournal(bytes).records.length;
      const readMs = performance.now() - started;
      return {
        bytesPerCycle: round((bytes.length - bytesBefore) / count, 0),
        recordsPerCycle: round((records - recordsBefore) / count, 1),
        readMs: round(readMs, 1),
      };
    };
    // Warm: every statement of the cycle written once before either measure.
    await measure(10);
    const text = await measure(cycles);
    store.checkpoint();
    const compact = await measure(cycles);
    const report = {
      tasks,
      cycles,
      text,
      compact,
      compactOverText: round(compact.bytesPerCycle / text.bytesPerCycle, 2),
      targets: { journalBytesPerCycleLe2500: compact.bytesPerCycle <= 2500 },
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    engine.dispose();
    store.close();
    fs.rmSync(repo, { recursive: true, force: true });
  }
}

void main();
