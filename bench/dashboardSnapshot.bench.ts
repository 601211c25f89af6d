/**
 * What one dashboard snapshot costs the extension host to build at 200 workers by 10,000 tasks
 * with 20,000 transitions of activity (moved here from the snapshot unit test, which asserts only
 * what a snapshot holds). Measured in one run beside two baselines on the same machine:
 *   - `small`: the same build for 10 workers by 100 tasks (600 transitions), so the ratio shows how
 *     the build grows with the crew, free of the machine's speed;
 *   - `serialize`: JSON.stringify of the large snapshot, the least the post to the webview costs.
 *
 * Usage: node --import tsx bench/dashboardSnapshot.bench.ts [--runs 50] [--quick]. Prints one JSON object.
 */
import * as os from 'node:os';
import { performance } from 'node:perf_hooks';
import { buildDashboardSnapshot } from '../src/extension/dashboard/snapshot';
import { defaultViewState } from '../src/shared/protocol';
import { makeStatus, makeTransitions } from '../test/unit/dashboard/fixtures';
import { numberOption } from './support/options';
import { round, tails } from './support/stats';

const runs = numberOption('runs', 50, 3);
const now = 1_700_000_000_000;
const info = { root: '/repo', name: 'repo', ownerNote: undefined, restricted: false };
const warmup = 5;

function builder(workers: number, tasks: number, transitions: number) {
  const status = makeStatus({ workers, tasks, now });
  const activity = { transitions: makeTransitions(transitions, now), metrics: undefined, loadedAt: now };
  return () =>
    buildDashboardSnapshot({
      now,
      folders: [info],
      view: defaultViewState,
      selected: {
        info,
        status,
        heartbeats: () => [now - 20_000, now - 10_000],
        activity,
        liveness: { warnMs: 30_000, staleMs: 100_000, deadMs: 300_000 },
        heartbeatWindowMs: 300_000,
      },
    });
}

/**
 * Times each function `runs` times after a warm-up (so the JIT's first compilations are not
 * counted), taking turns, so a slow spell of the machine falls on the baselines too.
 */
function timeInTurns(fns: ReadonlyArray<() => unknown>): number[][] {
  for (let i = 0; i < warmup; i++) fns.forEach((fn) => fn());
  const samples = fns.map((): number[] => []);
  for (let i = 0; i < runs; i++) {
    fns.forEach((fn, which) => {
      const started = performance.now();
      fn();
      samples[which]?.push(performance.now() - started);
    });
  }
  return samples;
}

function main(): void {
  const large = builder(200, 10_000, 20_000);
  const small = builder(10, 100, 600);
  const snapshot = large();
  const [largeTails, smallTails, serializeTails] = timeInTurns([large, small, () => JSON.stringify(snapshot)]).map((samples) =>
    tails(samples, 3),
  );
  const ratio = (a: Record<string, number> | undefined, b: Record<string, number> | undefined, key: string) =>
    round((a?.[key] ?? NaN) / (b?.[key] ?? NaN), 1);
  console.log(
    JSON.stringify(
      {
        runs,
        machine: { cpus: os.cpus().length, node: process.version },
        large: { workers: 200, tasks: 10_000, transitions: 20_000, bytes: Buffer.byteLength(JSON.stringify(snapshot)), ...largeTails },
        small: { workers: 10, tasks: 100, transitions: 600, ...smallTails },
        serialize: serializeTails,
        largeOverSmall: { median: ratio(largeTails, smallTails, 'medianMs'), p99: ratio(largeTails, smallTails, 'p99Ms') },
        buildOverSerialize: { median: ratio(largeTails, serializeTails, 'medianMs'), p99: ratio(largeTails, serializeTails, 'p99Ms') },
      },
      null,
      2,
    ),
  );
}

main();
