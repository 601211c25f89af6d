/**
 * The dashboard's costs: how long the host takes to build a snapshot and how big it is, at 10 and
 * 200 workers by 100 and 10,000 tasks; and how many messages the host sends while the extension's
 * own owner session (OwnerSession: a real engine on sql.js in a temp folder) makes `--transitions`
 * transitions (1,000), all at once and spread over two seconds.
 *
 * Usage: node --import tsx bench/dashboard.bench.ts [--runs 30] [--transitions 1000] [--quick]
 * Prints one JSON object.
 */
import { setImmediate as yieldToLoop, setTimeout as delay } from 'node:timers/promises';
import type { Request } from '../src/core/requests';
import { DashboardHost } from '../src/extension/dashboard/dashboardHost';
import { HeartbeatHistory } from '../src/extension/dashboard/heartbeatHistory';
import { buildDashboardSnapshot } from '../src/extension/dashboard/snapshot';
import { ViewsThrottle } from '../src/extension/viewsThrottle';
import { type HostMessage, defaultViewState, protocolVersion } from '../src/shared/protocol';
import { openEngine } from '../test/support/engineHarness';
import { makeStatus, makeTransitions } from '../test/unit/dashboard/fixtures';
import { numberOption, numbersOption, quick } from './support/options';
import { benchRepository, must, openOwnerSession } from './support/ownerSession';

const runs = numberOption('runs', 30, 3);
const burstTransitions = numberOption('transitions', 1000, 60);
/** How long the host is left to settle before and after a burst (the views' throttle runs at most every 250 ms). */
const settleMs = quick ? 600 : 1500;
const now = 1_700_000_000_000;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;

function measureBuild(workers: number, tasks: number) {
  const status = makeStatus({ workers, tasks, now });
  const info = { root: '/repo', name: 'repo', ownerNote: undefined, restricted: false };
  const beats = Array.from({ length: 60 }, (_, i) => now - 300_000 + i * 5_000);
  const activity = { transitions: makeTransitions(Math.min(20_000, tasks * 6), now), metrics: undefined, loadedAt: now };
  const build = () =>
    buildDashboardSnapshot({
      now,
      folders: [info],
      view: defaultViewState,
      selected: {
        info,
        status,
        heartbeats: () => beats,
        activity,
        liveness: { warnMs: 30_000, staleMs: 100_000, deadMs: 300_000 },
        heartbeatWindowMs: 300_000,
      },
    });
  for (let i = 0; i < 5; i++) build();
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < runs; i++) {
    const started = process.hrtime.bigint();
    const snapshot = build();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    bytes = Buffer.byteLength(JSON.stringify(snapshot));
  }
  times.sort((a, b) => a - b);
  return {
    workers,
    tasks,
    medianMs: round(percentile(times, 50)),
    p95Ms: round(percentile(times, 95)),
    maxMs: round(times.at(-1)!),
    bytes,
    runs,
  };
}

async function measureBurst(spreadMs: number) {
  const repository = await benchRepository('foreman-dashboard-bench-');
  const session = await openOwnerSession(repository.root);
  try {
    const workers = 10;
    for (let w = 0; w < workers; w++) await must(session, 'worker.add', { id: `w-${w}` });
    for (let t = 0; t < Math.ceil(burstTransitions / 5); t++)
      await must(session, 'task.add', { title: `task ${t}`, id: `t-${t}`, manual: true });
    const posted: Array<{ at: number; type: string }> = [];
    // The one throttle between the session and the views, as the window's registry runs it.
    const throttle = new ViewsThrottle(() => [session]);
    const feeding = session.onDidChange(() => throttle.changed());
    const host = new DashboardHost({
      sessions: () => [session],
      onDidChangeSessions: throttle.onDidChange,
      heartbeats: new HeartbeatHistory(),
      post: (message: HostMessage) => {
        posted.push({ at: performance.now(), type: message.type });
        return Promise.resolve(true);
      },
      runAction: () => Promise.reject(new Error('no actions in the benchmark')),
      liveness: () => ({ warnMs: 30_000, staleMs: 100_000, deadMs: 300_000 }),
      log: () => undefined,
    });
    host.receive({ type: 'ready', protocol: protocolVersion });
    await delay(settleMs);
    const before = posted.length;
    // Transitions without git steps (a start or a merge runs real git and takes longer than the
    // bursts measured here): an assignment and its failed attempt move the task and the worker
    // six times in two requests.
    const steps: Array<(w: string, t: string) => [Request['command'], Record<string, unknown>]> = [
      (w, t) => ['assign', { worker: w, task: t }],
      (w) => ['fail', { worker: w, reason: 'bench: a failed attempt' }],
    ];
    let transitions = 0;
    const counting = session.onDidCommit(
      (events) => (transitions += events.filter((event) => event.kind === 'worker' || event.kind === 'task').length),
    );
    const started = performance.now();
    let requests = 0;
    let task = 0;
    outer: for (;;) {
      for (let w = 0; w < workers; w++) {
        const t = `t-${task++}`;
        for (const step of steps) {
          const [command, args] = step(`w-${w}`, t);
          await must(session, command, args as never);
          requests++;
          if (spreadMs > 0 && requests % 5 === 0) await delay(spreadMs / (burstTransitions / 5));
        }
        if (transitions >= burstTransitions) break outer;
      }
    }
    const burstMs = performance.now() - started;
    await delay(settleMs);
    // The host sends the state as a snapshot, then as deltas against what the page holds: both are a state sent.
    const states = posted.slice(before).filter((message) => message.type === 'snapshot' || message.type === 'delta');
    const sentDuring = states.filter((message) => message.at <= started + burstMs + 300).length;
    const sentAfter = states.length;
    const firstAt = posted[before]?.at ?? started;
    const lastAt = posted.at(-1)?.at ?? started;
    counting.dispose();
    host.dispose();
    feeding.dispose();
    throttle.dispose();
    return {
      transitions,
      requests,
      burstMs: Math.round(burstMs),
      statesSent: sentAfter,
      deltasSent: states.filter((message) => message.type === 'delta').length,
      statesSentDuringBurst: sentDuring,
      messagesPerSecond: Math.round((sentAfter / Math.max(1000, lastAt - firstAt)) * 1000 * 10) / 10,
      changeEvents: requests,
    };
  } finally {
    await session.close();
    repository.remove();
  }
}

/**
 * What the dashboard's activity read costs the extension host at growing log sizes: `metrics`, the
 * `transitions` read it used to make on every refresh (the oldest rows first, up to 100,000) and the
 * one it makes now (only what came after the last seq it saw).
 */
async function measureActivityRead(sizes: readonly number[]) {
  const harness = await openEngine();
  const workers = 10;
  for (let w = 0; w < workers; w++) await harness.value('worker.add', { id: `w-${w}` });
  let transitions = 0;
  harness.engine.onDidCommit(
    (events) => (transitions += events.filter((event) => event.kind === 'worker' || event.kind === 'task').length),
  );
  const results: Array<{ transitions: number; transitionsReadMs: number; metricsReadMs: number; newTransitionsReadMs: number }> = [];
  let task = 0;
  for (const size of sizes) {
    while (transitions < size) {
      for (let w = 0; w < workers; w++) {
        const t = `t-${task++}`;
        await harness.value('task.add', { title: `task ${t}`, id: t, manual: true });
        // As in the burst: transitions without git steps, so the log grows in seconds.
        await harness.value('assign', { worker: `w-${w}`, task: t });
        await harness.value('fail', { worker: `w-${w}`, reason: 'bench: a failed attempt' });
      }
    }
    const time = (request: Request) => {
      const started = performance.now();
      harness.engine.execute(request);
      return performance.now() - started;
    };
    const reads = Array.from({ length: 3 }, () => [
      // What the activity feed read on every refresh before: the whole log up to 100k rows.
      time({ command: 'transitions', args: { limit: 100_000, latest: false }, actor: 'bench' }),
      time({ command: 'metrics', args: {}, actor: 'bench' }),
      // What it reads now on a refresh: only what came after the last seq it saw (here the last 10).
      time({ command: 'transitions', args: { afterSeq: Math.max(0, transitions - 10), limit: 20_000, latest: true }, actor: 'bench' }),
    ]);
    reads.sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0));
    const [, middle = [0, 0, 0]] = reads;
    results.push({
      transitions,
      transitionsReadMs: Math.round(middle[0] ?? 0),
      metricsReadMs: Math.round(middle[1] ?? 0),
      newTransitionsReadMs: round(middle[2] ?? 0),
    });
  }
  harness.close();
  return results;
}

async function main() {
  const sizes: Array<[workers: number, tasks: number]> = quick
    ? [
        [10, 100],
        [200, 1_000],
      ]
    : [
        [10, 100],
        [10, 10_000],
        [200, 100],
        [200, 10_000],
      ];
  const builds = sizes.map(([workers, tasks]) => measureBuild(workers, tasks));
  await yieldToLoop();
  const burstAtOnce = await measureBurst(0);
  const burstOverTwoSeconds = await measureBurst(2000);
  const activityRead = await measureActivityRead(numbersOption('activity-sizes', '1000,10000', '300'));
  console.log(
    JSON.stringify({ snapshotBuild: builds, hostMessages: { intervalMs: 250, burstAtOnce, burstOverTwoSeconds }, activityRead }, null, 2),
  );
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
