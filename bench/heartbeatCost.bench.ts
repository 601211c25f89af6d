/**
 * The owner's CPU per heartbeat as the crew grows (issue 13). Each heartbeat is a commit. After each
 * commit the waker used to find the next liveness deadline by reading every worker; then it kept
 * deadlines in an ordered queue and read the worker the commit touched; now a plain beat, which only
 * moves its worker's deadline later, is not read at all: when the earlier deadline comes, the sweep
 * reads the crew and every deadline is read again. Measured in one run, in-process on a real sql.js
 * store, at 10, 200 and 800 WORKING workers, each beating every 10 s of the harness's clock (so the
 * liveness sweeps and full reads that the beats leave to their deadlines come in the figures, at
 * least twice per crew):
 *   - `perHeartbeat`: one heartbeat executed, the clock moved on to the next beat (firing a sweep
 *     when one is due) and the turn after it (the owner's whole cost of a heartbeat, minus the endpoint);
 *   - `fullScan`: one read of every worker's deadline, i.e. what each commit used to add (the
 *     baseline, measured on the same store).
 * Ratios are against the 10-worker crew. Heartbeats are not fsync'd (ARCHITECTURE §2), so this is CPU.
 *
 * Usage: node --import tsx bench/heartbeatCost.bench.ts [--heartbeats 3000] [--crews 10,200,800] [--quick]. Prints one JSON object.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import * as os from 'node:os';
import { ChainCoordinator } from '../src/engine/chainCoordinator';
import { Monitor } from '../src/engine/monitor';
import { QueuePicker } from '../src/engine/queuePicker';
import type { EngineSettings } from '../src/engine/settings';
import type { StatusSnapshot } from '../src/engine/statusView';
import { StateService } from '../src/engine/stateService';
import { TaskCatalog } from '../src/engine/taskCatalog';
import { openEngine } from '../test/support/engineHarness';
import { numberOption, numbersOption, quick } from './support/options';
import { round, tails } from './support/stats';

/** A monitor of its own over the same settings, for the baseline: every worker's deadline read at once. */
function monitorOver(settings: EngineSettings): Monitor {
  const picker = new QueuePicker({ leaseMs: settings.liveness.staleMs, branchTemplate: settings.branchTemplate });
  const state = new StateService(
    { defaultMaxAttempts: settings.defaultMaxAttempts, backoff: settings.backoff, leaseMs: settings.liveness.staleMs },
    picker,
    new ChainCoordinator(new TaskCatalog(settings.defaultMaxAttempts)),
  );
  return new Monitor(settings, state);
}

const fewestHeartbeats = numberOption('heartbeats', 3000, 50);
/** The crews measured; the ratios (`…Over10Workers`) are against the first, 10 workers unless `--crews` says otherwise. */
const crewSizes = numbersOption('crews', '10,200,800', '2,5');
/** How often each worker beats, in the harness clock's time. */
const beatEveryMs = 10_000;
/** Beats per crew: at least `--heartbeats`, and at least 20 per worker (200 s: two liveness deadlines or more; 5 in quick mode). */
const heartbeatsFor = (size: number): number => Math.max(fewestHeartbeats, size * (quick ? 5 : 20));
async function crewOf(size: number): Promise<Record<string, unknown>> {
  const harness = await openEngine({ concurrency: size });
  try {
    for (let n = 0; n < size; n++) {
      await harness.value('worker.add', { id: `w${n}` });
      await harness.value('task.add', { title: `Task ${n}`, id: `t${n}` });
      await harness.value('assign', { worker: `w${n}`, task: `t${n}` });
      await harness.value('start', { worker: `w${n}` });
    }
    harness.engine.startBackground();
    await nextTurn();
    const heartbeats = heartbeatsFor(size);
    const perHeartbeat: number[] = [];
    const cpuBefore = process.cpuUsage();
    for (let beat = 0; beat < heartbeats; beat++) {
      const started = performance.now();
      await harness.value('heartbeat', { worker: `w${beat % size}`, attempt: 1 });
      harness.clock.advance(beatEveryMs / size); // a liveness deadline that comes sweeps here
      await nextTurn(); // and the waker re-arms here
      perHeartbeat.push(performance.now() - started);
    }
    const cpu = process.cpuUsage(cpuBefore);
    const { workers }: StatusSnapshot = harness.query('status', {});
    if (workers.some((worker) => worker.state !== 'WORKING')) throw new Error('a beating worker was taken for silent');
    const monitor = monitorOver(harness.engine.settings);
    const fullScan: number[] = [];
    for (let scan = 0; scan < 200; scan++) {
      const started = performance.now();
      harness.store.read((reader) => monitor.deadlines(reader));
      fullScan.push(performance.now() - started);
    }
    return {
      workers: size,
      heartbeats,
      perHeartbeat: tails(perHeartbeat, 3),
      cpuPerHeartbeatMs: round((cpu.user + cpu.system) / 1000 / heartbeats, 3),
      fullScan: tails(fullScan, 3),
    };
  } finally {
    harness.close();
  }
}

async function main(): Promise<void> {
  if (!quick) await crewOf(10); // warms up the JIT, so the first crew measured is not the slowest for that reason alone
  const crews = [];
  for (const size of crewSizes) crews.push(await crewOf(size));
  const base = crews[0] as { cpuPerHeartbeatMs: number; fullScan: { medianMs: number } };
  console.log(
    JSON.stringify(
      {
        beatEveryMs,
        machine: { cpus: os.cpus().length, node: process.version },
        crews,
        cpuPerHeartbeatOver10Workers: crews.map((crew) => round((crew['cpuPerHeartbeatMs'] as number) / base.cpuPerHeartbeatMs, 2)),
        fullScanOver10Workers: crews.map((crew) => round((crew['fullScan'] as { medianMs: number }).medianMs / base.fullScan.medianMs, 1)),
      },
      null,
      2,
    ),
  );
}

void main();
