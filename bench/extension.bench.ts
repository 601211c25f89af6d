/**
 * Issue 4's measurements: the owner-side work of activation (lock, open the store, engine, endpoint,
 * first snapshot) and the time to build the trees' children, at 10, 200 and 1,000 workers with
 * 10,000 tasks; plus the .vsix size when it has been built. Prints JSON.
 *   node --import tsx bench/extension.bench.ts [--sizes 10,200,1000] [--tasks 10000]
 */
import './support/vscodeShim';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ok } from '../src/core/result';
import { crewSettingsOf, defaultEngineSettings } from '../src/engine/settings';
import { SqlJsStore } from '../src/infra/db';
import { OwnerSession } from '../src/extension/sessions/ownerSession';
import { SessionRegistry } from '../src/extension/sessionRegistry';
import { QueueTreeProvider } from '../src/extension/tree/queueTree';
import { WorkersTreeProvider } from '../src/extension/tree/workersTree';

const arg = (name: string, fallback: string) => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? process.argv[index + 1]! : fallback;
};
const sizes = arg('sizes', '10,200,1000').split(',').map(Number);
const taskCount = Number(arg('tasks', '10000'));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function seed(root: string, workers: number, tasks: number): Promise<void> {
  execFileSync('git', ['init', '-q', '-b', 'main', root]);
  execFileSync('git', ['-C', root, '-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-q', '--allow-empty', '-m', 'init']);
  const store = await SqlJsStore.open(join(root, '.foreman'));
  const now = Date.now();
  store.write((tx) => {
    tx.run(`INSERT OR REPLACE INTO meta (key, value) VALUES ('base_branch', 'main')`);
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

async function measure(workers: number) {
  const root = mkdtempSync(join(tmpdir(), 'foreman-ext-bench-'));
  try {
    await seed(root, workers, taskCount);
    const started = performance.now();
    const opened = await OwnerSession.open({
      root,
      name: 'bench',
      trusted: false,
      settings: {
        engine: defaultEngineSettings,
        crew: crewSettingsOf({}),
      },
      log: () => undefined,
    });
    if (!opened.ok) throw new Error(opened.message);
    const session = opened.value;
    session.snapshot();
    const activationMs = performance.now() - started;
    const registry = new SessionRegistry();
    registry.add(session);
    const workersTree = new WorkersTreeProvider(registry);
    const queueTree = new QueueTreeProvider(registry);
    const build = () => {
      session.snapshot();
      const t0 = performance.now();
      const rows = workersTree.getChildren().map((node) => workersTree.getTreeItem(node));
      const groups = queueTree.getChildren();
      const expanded = groups.flatMap((group) => queueTree.getChildren(group)).flatMap((node) => [node, ...queueTree.getChildren(node)]);
      expanded.forEach((node) => queueTree.getTreeItem(node));
      return { ms: performance.now() - t0, rows: rows.length + expanded.length };
    };
    const snapshotTimes: number[] = [];
    for (let i = 0; i < 5; i++) {
      session.refresh();
      const t0 = performance.now();
      session.snapshot();
      snapshotTimes.push(performance.now() - t0);
    }
    const builds = Array.from({ length: 7 }, build);
    registry.dispose();
    await session.close();
    return {
      workers,
      tasks: taskCount,
      activationMs: Math.round(activationMs * 10) / 10,
      snapshotMedianMs: Math.round(median(snapshotTimes) * 10) / 10,
      treeChildrenMedianMs: Math.round(median(builds.map((b) => b.ms)) * 10) / 10,
      treeRows: builds[0]!.rows,
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const results = [];
  for (const workers of sizes) results.push(await measure(workers));
  const vsix = join(__dirname, '..', 'foreman.vsix');
  const at200 = results.find((r) => r.workers === 200);
  console.log(
    JSON.stringify(
      {
        note: 'activationMs = owner lock + store open + engine + endpoint + first snapshot (the work the window does in the background after activate() returns); snapshotMedianMs = reading the status of every worker and task (done once per coalesced change); treeChildrenMedianMs = building every top-level row and expanded group from that snapshot, outside VS Code (vscode classes shimmed)',
        results,
        vsixBytes: existsSync(vsix) ? statSync(vsix).size : null,
        targets: { treeChildrenUnder16msAt200Workers10kTasks: at200 ? at200.treeChildrenMedianMs < 16 : null },
      },
      null,
      1,
    ),
  );
}

void main();
