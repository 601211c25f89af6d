/**
 * The owner's CPU per heartbeat as the crew grows (issue 13). Each heartbeat is a commit, and after
 * each commit the waker re-arms its liveness timer. It used to find the next deadline by reading
 * every worker; now it keeps deadlines in an ordered queue and reads only the worker the commit
 * touched. Measured in one run, in-process on a real sql.js store, at 10, 200 and 800 WORKING
 * workers:
 *   - `perHeartbeat`: one heartbeat executed plus the waker's re-arm that follows it (the owner's
 *     whole cost of a heartbeat, minus the endpoint);
 *   - `fullScan`: one read of every worker's deadline, i.e. what each commit used to add (the
 *     baseline, measured on the same store).
 * Ratios are against the 10-worker crew. Heartbeats are not fsync'd (ARCHITECTURE §2), so this is CPU.
 *
 * Usage: node --import tsx bench/heartbeatCost.bench.ts [--heartbeats 3000]. Prints one JSON object.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import * as os from 'node:os';
import { ChainCoordinator } from '../src/engine/chainCoordinator';
import { Monitor } from '../src/engine/monitor';
import { QueuePicker } from '../src/engine/queuePicker';
import type { EngineSettings } from '../src/engine/settings';
import { StateService } from '../src/engine/stateService';
import { TaskCatalog } from '../src/engine/taskCatalog';
import { openEngine } from '../test/support/engineHarness';
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

const index = process.argv.indexOf('--heartbeats');
const heartbeats = Number(index >= 0 ? process.argv[index + 1] : 3000) || 3000;
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
    const perHeartbeat: number[] = [];
    const cpuBefore = process.cpuUsage();
    for (let beat = 0; beat < heartbeats; beat++) {
      const started = performance.now();
      await harness.value('heartbeat', { worker: `w${beat % size}`, attempt: 1 });
      await nextTurn(); // the waker's re-arm runs here
      perHeartbeat.push(performance.now() - started);
    }
    const cpu = process.cpuUsage(cpuBefore);
    const monitor = monitorOver(harness.engine.settings);
    const fullScan: number[] = [];
    for (let scan = 0; scan < 200; scan++) {
      const started = performance.now();
      harness.store.read((reader) => monitor.deadlines(reader));
      fullScan.push(performance.now() - started);
    }
    return {
      workers: size,
      perHeartbeat: tails(perHeartbeat, 3),
      cpuPerHeartbeatMs: round((cpu.user + cpu.system) / 1000 / heartbeats, 3),
      fullScan: tails(fullScan, 3),
    };
  } finally {
    harness.close();
  }
}

async function main(): Promise<void> {
  await crewOf(10); // warms up the JIT, so the first crew measured is not the slowest for that reason alone
  const crews = [];
  for (const size of [10, 200, 800]) crews.push(await crewOf(size));
  const base = crews[0] as { cpuPerHeartbeatMs: number; fullScan: { medianMs: number } };
  console.log(
    JSON.stringify(
      {
        heartbeats,
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
