/**
 * Issue 4's measurements: the owner-side work of activation (lock, open the store, engine, endpoint,
 * first snapshot) and the time to build the trees' rows, at 10, 200 and 1,000 workers with 10,000
 * tasks; plus the .vsix size when it has been built. Prints JSON.
 *   node --import tsx bench/extension.bench.ts [--sizes 10,200,1000] [--tasks 10000] [--redraws 30] [--quick]
 *
 * The trees are built as VS Code asks for them: the top rows of the Workers and Queue views, each
 * row's item, and the children of every row drawn expanded (a collapsed row's children are asked for
 * only when someone opens it). At 10,000 tasks in 200 chains that is 10,000 queue rows.
 *   - first show: new providers, every node and item made (the views opened);
 *   - redraw: the same providers asked for every row again after a task was added (a new snapshot,
 *     so the queue's grouping and the workers' task titles are made again; an unchanged task's row
 *     keeps its item). This is what the target is about, as the bench measured it before: repeated
 *     builds on live providers.
 * The target, a redraw ≤ 16 ms at 200 workers and 10,000 tasks (one frame), is judged on the CPU
 * time: on a machine shared with other work the wall-clock time also counts the time the process
 * waited for a CPU (at a load average of 20 on 2 cores, several times the CPU time), which says how
 * busy the machine was, not what the views cost. Both are printed, with the load average.
 */
import './support/vscodeShim';
import { existsSync, statSync } from 'node:fs';
import * as os from 'node:os';
import { join } from 'node:path';
import type * as vscode from 'vscode';
import { ok } from '../src/core/result';
import { SqlJsStore } from '../src/infra/db';
import { SessionRegistry } from '../src/extension/sessionRegistry';
import { QueueTreeProvider } from '../src/extension/tree/queueTree';
import { WorkersTreeProvider } from '../src/extension/tree/workersTree';
import { numberOption, numbersOption, quick } from './support/options';
import { benchRepository, must, openOwnerSession } from './support/ownerSession';
import { round } from './support/stats';

const sizes = numbersOption('sizes', '10,200,1000', '10,200');
const taskCount = numberOption('tasks', 10_000, 1_000);
const redrawCount = numberOption('redraws', 30, 3);
const warmUpRedraws = 5;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const targetMs = 16;

/** Workers (one in three WORKING) and tasks in chains of 50 (a parent and 49 steps), written straight to the store. */
async function seed(root: string, workers: number, tasks: number): Promise<void> {
  const store = await SqlJsStore.open(join(root, '.foreman'));
  const now = Date.now();
  store.write((tx) => {
    for (let w = 0; w < workers; w++) {
      const busy = w % 3 === 0 && w < tasks;
      tx.run(
        `INSERT INTO workers (id, state, agent, task_id, branch, attempt, state_changed_at, created_at) VALUES (?, ?, 'demo', ?, ?, ?, ?, ?)`,
        [`w${w}`, busy ? 'WORKING' : 'IDLE', busy ? `t${w}` : null, busy ? `w${w}/t${w}` : null, busy ? 1 : 0, now, now],
      );
    }
    const statuses = ['done', 'queued', 'failed', 'idle', 'cancelled'];
    for (let t = 0; t < tasks; t++) {
      const parent = t % 50 === 0 ? null : `t${t - (t % 50)}`;
      tx.run(
        `INSERT INTO tasks (id, title, status, planning_phase, parent_task_id, blocked_by_task_id, sort_order, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          `t${t}`,
          `Task number ${t}`,
          parent ? statuses[t % statuses.length]! : 'running',
          parent ? 'none' : 'finalized',
          parent,
          parent && t % 50 > 1 ? `t${t - 1}` : null,
          t,
          now,
        ],
      );
    }
    return ok(undefined);
  });
  store.close();
}

interface Tree<T> {
  getChildren(node?: T): T[];
  getTreeItem(node: T): vscode.TreeItem;
}

/** The rows VS Code asks for when a view is shown: the top rows and, under each row drawn expanded, its children. */
function shownRows<T>(tree: Tree<T>, node?: T): number {
  let rows = 0;
  for (const child of tree.getChildren(node)) {
    rows++;
    // TreeItemCollapsibleState.Expanded (the shim's enum, as VS Code's: None 0, Collapsed 1, Expanded 2).
    if (Number(tree.getTreeItem(child).collapsibleState) === 2) rows += shownRows(tree, child);
  }
  return rows;
}

/** Wall-clock and CPU time of `fn` (the CPU of every thread of the process: the GC's included). */
function timed(fn: () => number): { ms: number; cpuMs: number; rows: number } {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const rows = fn();
  const ms = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000, rows };
}

async function measure(workers: number) {
  const repository = await benchRepository('foreman-ext-bench-');
  try {
    await seed(repository.root, workers, taskCount);
    const started = performance.now();
    const session = await openOwnerSession(repository.root);
    session.snapshot();
    const activationMs = performance.now() - started;
    const snapshotTimes: number[] = [];
    for (let i = 0; i < 5; i++) {
      session.refresh();
      const t0 = performance.now();
      session.snapshot();
      snapshotTimes.push(performance.now() - t0);
    }
    const registry = new SessionRegistry();
    registry.add(session);
    // The views shown for the first time: new providers, every node and item made.
    const firstShows = Array.from({ length: quick ? 1 : 5 }, () => {
      const trees = [new WorkersTreeProvider(registry), new QueueTreeProvider(registry)] as const;
      const shown = timed(() => shownRows(trees[0]) + shownRows(trees[1]));
      trees.forEach((tree) => tree.dispose());
      return shown;
    });
    // Redraws: the same providers, each time after a change to the queue (a task added, as a person
    // would), so the snapshot is a new one and everything derived from it (the queue's grouping, the
    // workers' task titles) is made again, and every row is asked for again, as on a redraw of the
    // whole view. Reading the change is not in the figure (snapshotMedianMs is a full read).
    const workersTree = new WorkersTreeProvider(registry);
    const queueTree = new QueueTreeProvider(registry);
    const redraw = () => shownRows(workersTree) + shownRows(queueTree);
    const redraws = [];
    // The first redraws make the nodes and items and warm the JIT: not counted.
    for (let i = -warmUpRedraws; i < redrawCount; i++) {
      await must(session, 'task.add', { title: `Added while measuring ${i}`, manual: true });
      session.snapshot();
      const measured = timed(redraw);
      if (i >= 0) redraws.push(measured);
    }
    registry.dispose();
    await session.close();
    return {
      workers,
      tasks: taskCount,
      activationMs: round(activationMs),
      snapshotMedianMs: round(median(snapshotTimes)),
      treeFirstShowCpuMedianMs: round(median(firstShows.map((b) => b.cpuMs))),
      treeFirstShowMedianMs: round(median(firstShows.map((b) => b.ms))),
      treeChildrenCpuMedianMs: round(median(redraws.map((b) => b.cpuMs))),
      treeChildrenMedianMs: round(median(redraws.map((b) => b.ms))),
      treeChildrenMinMs: round(Math.min(...redraws.map((b) => b.ms))),
      treeRows: firstShows[0]!.rows,
      redraws: redrawCount,
    };
  } finally {
    repository.remove();
  }
}

async function main(): Promise<void> {
  const results = [];
  for (const workers of sizes) results.push(await measure(workers));
  const vsix = join(__dirname, '..', 'foreman.vsix');
  const atTarget = results.find((r) => r.workers === 200 && r.tasks === 10_000);
  console.log(
    JSON.stringify(
      {
        note: 'activationMs = owner lock + store open + engine + endpoint + first snapshot (the work the window does in the background after activate() returns); snapshotMedianMs = reading the status of every worker and task (a full read); treeFirstShow… = every row of both views from new providers; treeChildren… = every row again after a change (a redraw of both views), outside VS Code (vscode classes shimmed): Cpu… the CPU time (every thread, the GC included), the others wall-clock time, which on a busy machine includes waiting for a CPU',
        results,
        machine: { cpus: os.cpus().length, node: process.version, loadAverage: os.loadavg().map((load) => round(load, 2)) },
        vsixBytes: existsSync(vsix) ? statSync(vsix).size : null,
        targets: {
          [`treeChildrenUnder${targetMs}msAt200Workers10kTasks`]: atTarget ? atTarget.treeChildrenCpuMedianMs <= targetMs : null,
        },
      },
      null,
      1,
    ),
  );
}

void main();
