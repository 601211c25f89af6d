/**
 * Issue 13 item 3: what one change costs the extension host's views at 200 workers by 10,000 tasks.
 * A real owner session (real sql.js store, real engine) feeds the real session registry, both trees
 * and a dashboard host whose webview is this script. Each sample makes one change through the
 * engine (a heartbeat, or one task retried), then waits until the views are quiet again and reports:
 *   - hostMs: CPU time the host process used from the commit to quiet (engine re-reads, tree rows
 *     rebuilt as VS Code would ask for them, dashboard build and post, activity reads; every thread,
 *     so the store's replica thread too);
 *   - bytes: what was posted to the webview; rows: tree items rebuilt.
 * The baseline of the same run is a forced full refresh (`session.refresh()`: read everything
 * again, redraw every row, post a full snapshot), so `overFull` ratios are free of the machine.
 * `tick` is one 5-second age tick with nothing changed (the Workers view's timer);
 * `heartbeatWithoutViews` the same heartbeat's CPU with no view attached (the engine's own share).
 *
 * Usage: node --import tsx bench/viewRefresh.bench.ts [--workers 200] [--tasks 10000] [--samples 15] [--quick]
 */
import './support/vscodeShim';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ok } from '../src/core/result';
import { DashboardHost } from '../src/extension/dashboard/dashboardHost';
import { HeartbeatHistory } from '../src/extension/dashboard/heartbeatHistory';
import { SessionRegistry } from '../src/extension/sessionRegistry';
import { QueueTreeProvider } from '../src/extension/tree/queueTree';
import { WorkersTreeProvider } from '../src/extension/tree/workersTree';
import { SqlJsStore } from '../src/infra/db';
import { protocolVersion } from '../src/shared/protocol';
import { numberOption } from './support/options';
import { gitRepository, openOwnerSession, quietLiveness } from './support/ownerSession';
import { round, tails } from './support/stats';

const workerCount = numberOption('workers', 200, 20);
const taskCount = numberOption('tasks', 10_000, 500);
const samples = numberOption('samples', 15, 3);
/** The views are quiet when nothing was redrawn or posted for this long (the activity feed reads at most once a second). */
const quietMs = 1_300;

async function seed(root: string): Promise<void> {
  gitRepository(root);
  const store = await SqlJsStore.open(join(root, '.foreman'));
  const now = Date.now();
  store.write((tx) => {
    tx.run(`INSERT OR REPLACE INTO meta (key, value) VALUES ('base_branch', 'main')`);
    for (let w = 0; w < workerCount; w++) {
      const busy = w % 3 === 0;
      const task = `t${w * 50 + 1}`;
      tx.run(
        `INSERT INTO workers (id, state, agent, task_id, branch, attempt, state_changed_at, created_at) VALUES (?, ?, 'demo', ?, ?, ?, ?, ?)`,
        [`w${w}`, busy ? 'WORKING' : 'IDLE', busy ? task : null, busy ? `w${w}/${task}` : null, busy ? 1 : 0, now, now],
      );
    }
    const statuses = ['done', 'queued', 'failed', 'idle', 'cancelled'];
    for (let t = 0; t < taskCount; t++) {
      const parent = t % 50 === 0 ? null : `t${t - (t % 50)}`;
      const heldBy = t % 50 === 1 && (t - 1) / 50 < workerCount && ((t - 1) / 50) % 3 === 0 ? `w${(t - 1) / 50}` : null;
      tx.run(
        `INSERT INTO tasks (id, title, status, planning_phase, parent_task_id, blocked_by_task_id, worker_id, attempt, sort_order, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          `t${t}`,
          `Task number ${t}`,
          heldBy || !parent ? 'running' : statuses[t % statuses.length]!,
          parent ? 'none' : 'finalized',
          parent,
          parent && t % 50 > 1 ? `t${t - 1}` : null,
          heldBy,
          heldBy ? 1 : 0,
          t,
          now,
        ],
      );
    }
    return ok(undefined);
  });
  store.close();
}

interface Window {
  hostMs: number;
  bytes: number;
  posts: number;
  rows: number;
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(os.tmpdir(), 'foreman-view-bench-'));
  try {
    await seed(root);
    // Nobody's liveness moves by itself during the run (no agent beats here): each change is the bench's own.
    const session = await openOwnerSession(root, { quiet: true });
    const registry = new SessionRegistry();
    const workersTree = new WorkersTreeProvider(registry);
    const queueTree = new QueueTreeProvider(registry);
    const heartbeats = new HeartbeatHistory();
    registry.onDidChange(() => heartbeats.observe(session.root, session.snapshot(), Date.now()));

    let lastEventAt = performance.now();
    const window: Window = { hostMs: 0, bytes: 0, posts: 0, rows: 0 };
    // What VS Code does on onDidChangeTreeData: the whole tree asks for its rows again; one element, that row.
    workersTree.onDidChangeTreeData((element) => {
      const nodes = element ? [element] : workersTree.getChildren();
      nodes.forEach((node) => workersTree.getTreeItem(node));
      window.rows += nodes.length;
      lastEventAt = performance.now();
    });
    queueTree.onDidChangeTreeData((element) => {
      const nodes = element ? [element] : queueTree.getChildren().flatMap((node) => [node, ...queueTree.getChildren(node)]);
      nodes.forEach((node) => queueTree.getTreeItem(node));
      window.rows += nodes.length;
      lastEventAt = performance.now();
    });
    const host = new DashboardHost({
      sessions: () => registry.sessions(),
      onDidChangeSessions: registry.onDidChange,
      heartbeats,
      post: (message) => {
        window.bytes += Buffer.byteLength(JSON.stringify(message));
        window.posts++;
        lastEventAt = performance.now();
        return Promise.resolve(true);
      },
      runAction: () => Promise.resolve({ ok: true }),
      liveness: () => quietLiveness,
      log: () => undefined,
    });
    // The engine's own aftermath of a heartbeat (journal, replica, timers) with no view listening:
    // what a change costs the host whatever the views do, measured before they are attached.
    const busyIds = Array.from({ length: workerCount }, (_, w) => `w${w}`).filter((_, w) => w % 3 === 0);
    const engineAlone: number[] = [];
    for (let i = 0; i < samples; i++) {
      await session.execute({
        command: 'heartbeat',
        args: { worker: busyIds[i % busyIds.length]!, status: 'working', attempt: 1 },
        actor: 'bench',
      });
      const before = process.cpuUsage();
      await sleep(quietMs);
      engineAlone.push(cpuMsSince(before));
    }
    registry.add(session);
    host.receive({ type: 'ready', protocol: protocolVersion });
    await quiet(() => lastEventAt);

    /** Runs `change`, waits for quiet, and returns what the host did meanwhile. */
    const measure = async (change: () => Promise<unknown> | void): Promise<Window> => {
      Object.assign(window, { hostMs: 0, bytes: 0, posts: 0, rows: 0 });
      await change();
      const before = process.cpuUsage();
      lastEventAt = performance.now();
      await quiet(() => lastEventAt);
      window.hostMs = cpuMsSince(before);
      return { ...window };
    };

    // Busy workers on the dashboard's first page (workers sort by id), so a heartbeat changes a card shown.
    const busy = Array.from({ length: workerCount }, (_, w) => `w${w}`)
      .filter((_, w) => w % 3 === 0)
      .sort()
      .slice(0, 20);
    const failed = Array.from({ length: taskCount }, (_, t) => t).filter((t) => t % 50 > 1 && t % 5 === 2);
    const runs: Record<'full' | 'heartbeat' | 'task', Window[]> = { full: [], heartbeat: [], task: [] };
    for (let i = 0; i < samples; i++) {
      // Taking turns, so a slow spell of the machine falls on the baseline too.
      runs.full.push(await measure(() => session.refresh()));
      runs.heartbeat.push(
        await measure(() =>
          session.execute({
            command: 'heartbeat',
            args: { worker: busy[i % busy.length]!, status: 'working', attempt: 1 },
            actor: 'bench',
          }),
        ),
      );
      runs.task.push(await measure(() => session.execute({ command: 'retry', args: { task: `t${failed[i]!}` }, actor: 'bench' })));
    }
    // One age tick with nothing changed: wait past the 5 s timer.
    Object.assign(window, { hostMs: 0, bytes: 0, posts: 0, rows: 0 });
    const tickStart = process.cpuUsage();
    await sleep(5_600);
    const tick = { ...window, hostMs: cpuMsSince(tickStart) };

    const summary = (list: Window[]) => {
      const times = tails(list.map((w) => w.hostMs));
      return {
        ...times,
        medianMs: times['medianMs'] ?? Number.NaN,
        bytesMedian: median(list.map((w) => w.bytes)),
        postsMedian: median(list.map((w) => w.posts)),
        rowsMedian: median(list.map((w) => w.rows)),
      };
    };
    const full = summary(runs.full);
    const heartbeat = summary(runs.heartbeat);
    const task = summary(runs.task);
    const ratio = (a: { medianMs: number; bytesMedian: number }) => ({
      hostMs: round(a.medianMs / full.medianMs, 2),
      bytes: round(a.bytesMedian / full.bytesMedian, 3),
    });
    console.log(
      JSON.stringify(
        {
          machine: { cpus: os.cpus().length, node: process.version },
          workers: workerCount,
          tasks: taskCount,
          full,
          heartbeat,
          task,
          tick: { hostMs: round(tick.hostMs, 1), bytes: tick.bytes, posts: tick.posts, rows: tick.rows },
          heartbeatWithoutViews: tails(engineAlone),
          overFull: { heartbeat: ratio(heartbeat), task: ratio(task) },
        },
        null,
        2,
      ),
    );
    host.dispose();
    workersTree.dispose();
    queueTree.dispose();
    registry.dispose();
    await session.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
}

/** CPU time (user + system, every thread of the process) since `start`, in ms: what the host spent, waits excluded. */
function cpuMsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function quiet(last: () => number): Promise<void> {
  while (performance.now() - last() < quietMs) await sleep(100);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
