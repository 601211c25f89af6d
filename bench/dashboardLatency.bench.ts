/**
 * Issue 31 item 5: from an engine commit to the dashboard's posted message. A real owner session
 * (real sql.js store, real engine) feeds the real session registry (through the `vscode` shim) and
 * a real `DashboardHost`; the webview is this script's `post` (no VS Code: the message the webview
 * would receive is timed as it is handed over). Each sample commits one heartbeat whose activity
 * line is unique, stamped when the engine's commit event fires, and ends when a posted message
 * carries that line.
 *
 * In the same run, turn by turn, the path as it was before issue 31 rebuilt from the same parts: a
 * 250 ms trailing throttle on the session's changes (the registry's), then a second one of up to
 * 250 ms (the panel's `Coalescer`), then a full snapshot rebuilt and diffed against the held one.
 *   - quiet: one change at a time, a random pause between;
 *   - busy: the same while other workers heartbeat every `--streamMs` (30 ms), as a crew at work.
 *
 * Usage: node --import tsx bench/dashboardLatency.bench.ts [--samples 40] [--workers 40] [--tasks 2000] [--quick]
 * Prints one JSON object.
 */
import './support/vscodeShim';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ok } from '../src/core/result';
import { RunOnceScheduler } from '../src/base/async';
import { Coalescer } from '../src/extension/dashboard/coalescer';
import { DashboardHost } from '../src/extension/dashboard/dashboardHost';
import { HeartbeatHistory, heartbeatWindowMs } from '../src/extension/dashboard/heartbeatHistory';
import { buildDashboardSnapshot } from '../src/extension/dashboard/snapshot';
import { SessionRegistry } from '../src/extension/sessionRegistry';
import { SqlJsStore } from '../src/infra/db';
import { dashboardDelta, isEmptyDelta } from '../src/shared/dashboardDelta';
import { type DashboardSnapshot, type HostMessage, defaultViewState, protocolVersion } from '../src/shared/protocol';
import { numberOption } from './support/options';
import { gitRepository, openOwnerSession, quietLiveness } from './support/ownerSession';
import { round, tails } from './support/stats';

const samples = numberOption('samples', 40, 6);
const workerCount = numberOption('workers', 40, 12);
const taskCount = numberOption('tasks', 2000, 200);
const streamMs = numberOption('streamMs', 30, 30);
const workerId = (w: number) => `w${String(w).padStart(3, '0')}`;

async function seed(root: string): Promise<void> {
  gitRepository(root);
  const store = await SqlJsStore.open(join(root, '.foreman'));
  const now = Date.now();
  store.write((tx) => {
    tx.run(`INSERT OR REPLACE INTO meta (key, value) VALUES ('base_branch', 'main')`);
    for (let t = 0; t < taskCount; t++) {
      const heldBy = t < workerCount ? workerId(t) : null;
      tx.run(
        `INSERT INTO tasks (id, title, status, planning_phase, worker_id, attempt, sort_order, created_at) VALUES (?, ?, ?, 'none', ?, ?, ?, ?)`,
        [`t${t}`, `Task number ${t}`, heldBy ? 'running' : ['done', 'queued', 'failed'][t % 3]!, heldBy, heldBy ? 1 : 0, t, now],
      );
    }
    for (let w = 0; w < workerCount; w++)
      tx.run(
        `INSERT INTO workers (id, state, agent, task_id, branch, attempt, state_changed_at, created_at) VALUES (?, 'WORKING', 'demo', ?, ?, 1, ?, ?)`,
        [workerId(w), `t${w}`, `${workerId(w)}/t${w}`, now, now],
      );
    return ok(undefined);
  });
  store.close();
}

/** A path from the session's changes to the webview, switched on for its turn. */
interface Path {
  on(): Promise<void>;
  off(): void;
  dispose(): void;
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(os.tmpdir(), 'foreman-dashboard-latency-'));
  try {
    await seed(root);
    // Nobody's liveness moves by itself during the run (no agent beats here): each change is the bench's own.
    const session = await openOwnerSession(root, { quiet: true });
    const heartbeats = new HeartbeatHistory();
    const registry = new SessionRegistry();
    registry.onDidChange(() => heartbeats.observe(session.root, session.snapshot(), Date.now()));

    /** The marker being waited for, and what to call when a posted message carries it. */
    let waiting: { marker: string; committedAt: number | undefined; resolve: (ms: number) => void } | undefined;
    const post = (message: HostMessage): Promise<boolean> => {
      if (waiting && waiting.committedAt !== undefined && JSON.stringify(message).includes(waiting.marker)) {
        const done = waiting;
        waiting = undefined;
        done.resolve(performance.now() - (done.committedAt ?? 0));
      }
      return Promise.resolve(true);
    };
    let target = '';
    session.onDidCommit((events) => {
      if (waiting && waiting.committedAt === undefined && events.some((e) => e.kind === 'heartbeat' && e.workerId === target))
        waiting.committedAt = performance.now();
    });

    // Today's path: the registry's throttle, then the host, as the extension wires them.
    const host = new DashboardHost({
      sessions: () => registry.sessions(),
      onDidChangeSessions: registry.onDidChange,
      heartbeats,
      post,
      runAction: () => Promise.resolve({ ok: true }),
      liveness: () => quietLiveness,
      log: () => undefined,
    });
    host.setVisible(false);
    registry.add(session);
    const current: Path = {
      on: () => {
        host.setVisible(true);
        host.receive({ type: 'ready', protocol: protocolVersion });
        return settle();
      },
      off: () => host.setVisible(false),
      dispose: () => host.dispose(),
    };

    // The path before issue 31: two throttles in a row and a full rebuild per send.
    let legacyOn = false;
    let held: DashboardSnapshot | undefined;
    const legacySend = () => {
      if (!legacyOn) return;
      const now = Date.now();
      const info = { root: session.root, name: session.name, ownerNote: undefined, restricted: false };
      const snapshot = buildDashboardSnapshot({
        now,
        folders: [info],
        view: held?.view ?? defaultViewState,
        selected: {
          info,
          status: session.snapshot(),
          heartbeats: (id) => heartbeats.of(session.root, id, now),
          states: (id) => heartbeats.statesOf(session.root, id, now),
          activity: undefined,
          liveness: quietLiveness,
          heartbeatWindowMs,
        },
      });
      const delta = held && dashboardDelta(held, snapshot);
      if (delta && isEmptyDelta(delta)) return;
      held = snapshot;
      void post(delta ? { type: 'delta', revision: 0, baseRevision: 0, delta } : { type: 'snapshot', revision: 0, snapshot });
    };
    const panelThrottle = new Coalescer(legacySend, 250);
    const registryThrottle = new RunOnceScheduler(() => panelThrottle.request(), 250);
    const legacySubscription = session.onDidChange(() => {
      if (legacyOn && !registryThrottle.isScheduled) registryThrottle.schedule();
    });
    const legacy: Path = {
      on: () => {
        legacyOn = true;
        held = undefined;
        legacySend();
        return settle();
      },
      off: () => (legacyOn = false),
      dispose: () => {
        legacySubscription.dispose();
        registryThrottle.dispose();
        panelThrottle.dispose();
      },
    };

    let counter = 0;
    const sample = async (w: number): Promise<number> => {
      target = workerId(w);
      const marker = `bench change ${++counter}`;
      const latency = new Promise<number>((resolve) => (waiting = { marker, committedAt: undefined, resolve }));
      await session.execute({ command: 'heartbeat', args: { worker: target, status: 'working', activity: marker }, actor: 'bench' });
      return latency;
    };

    // The busy crew: the other workers heartbeat one after another, every `streamMs`.
    let streaming = false;
    let streamTurn = 0;
    const stream = setInterval(() => {
      if (!streaming) return;
      const w = 1 + (streamTurn++ % (workerCount - 1));
      void session.execute({ command: 'heartbeat', args: { worker: workerId(w), status: 'working' }, actor: 'bench' });
    }, streamMs);

    const results: Record<'legacy' | 'current', Record<'quiet' | 'busy', number[]>> = {
      legacy: { quiet: [], busy: [] },
      current: { quiet: [], busy: [] },
    };
    const block = 5;
    for (let done = 0; done < samples; done += block) {
      for (const [name, path] of [
        ['legacy', legacy],
        ['current', current],
      ] as const) {
        await path.on();
        for (const mode of ['quiet', 'busy'] as const) {
          streaming = mode === 'busy';
          for (let i = 0; i < block; i++) {
            // A pause of random length, so each change falls at another phase of the throttles.
            await sleep(60 + Math.random() * 400);
            results[name][mode].push(await sample(0));
          }
          streaming = false;
          await settle();
        }
        path.off();
      }
    }
    clearInterval(stream);
    const summary = (values: number[]) => tails(values, 1);
    const legacyP95 = { quiet: tails(results.legacy.quiet)['p95Ms'] ?? 1, busy: tails(results.legacy.busy)['p95Ms'] ?? 1 };
    console.log(
      JSON.stringify(
        {
          machine: { cpus: os.cpus().length, load: os.loadavg().map((l) => round(l, 2)), node: process.version },
          workers: workerCount,
          tasks: taskCount,
          streamMs,
          legacy: { quiet: summary(results.legacy.quiet), busy: summary(results.legacy.busy) },
          current: { quiet: summary(results.current.quiet), busy: summary(results.current.busy) },
          p95OverLegacy: {
            quiet: round((tails(results.current.quiet)['p95Ms'] ?? 0) / legacyP95.quiet, 2),
            busy: round((tails(results.current.busy)['p95Ms'] ?? 0) / legacyP95.busy, 2),
          },
        },
        null,
        2,
      ),
    );
    legacy.dispose();
    current.dispose();
    await registry.remove(session.root);
    registry.dispose();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Lets the throttles of the path just switched run out (both are 250 ms). */
function settle(): Promise<void> {
  return sleep(700);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
