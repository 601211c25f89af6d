// In-host suite for Foreman itself: runs inside a real VS Code extension host (run.mjs prepares a
// demo repository and opens it with workspace trust on, i.e. in Restricted Mode). It checks lazy
// activation and times it, the contributed commands, the owner session over the engine, requests
// sent the way the commands send them, and the rows the tree providers build from the live state.
// Entry point: `run()`. Run: node test/vscode/foreman/run.mjs
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { workerIdSchema } from '../../../src/core/ids';
import { type CommandInput, type CommandName, parseCommand } from '../../../src/core/requests';
import type { ResultOf } from '../../../src/core/requests';
import { type Result, invalid } from '../../../src/core/result';
import type { WorkerStatus } from '../../../src/engine/statusView';
import { readOwner } from '../../../src/infra/db/ownerLock';
import { CommandId } from '../../../src/extension/commands/commandIds';
import type { ForemanSession } from '../../../src/extension/session';
import { type SessionRegistry, coalesceMs } from '../../../src/extension/sessionRegistry';
import type { ViewsChange } from '../../../src/extension/statusModel';
import { type QueueNode, QueueTreeProvider } from '../../../src/extension/tree/queueTree';
import { type WorkerNode, WorkersTreeProvider } from '../../../src/extension/tree/workersTree';
import { runRegistered, test, waitFor } from '../support/inHostRunner';

const EXTENSION_ID = 'foreman-dev.foreman';
const PARKED = process.env['FOREMAN_TEST_PARKED'] ?? '.foreman-parked';

interface ForemanApi {
  registry: SessionRegistry;
  ready: Promise<void>;
}

let api: ForemanApi | undefined;

function extension(): vscode.Extension<ForemanApi> {
  const found = vscode.extensions.getExtension<ForemanApi>(EXTENSION_ID);
  assert.ok(found, `${EXTENSION_ID} is not loaded`);
  return found;
}

function folder(): vscode.WorkspaceFolder {
  const folders = vscode.workspace.workspaceFolders ?? [];
  assert.equal(folders.length, 1, 'expected the demo repository as the only workspace folder');
  return folders[0]!;
}

/** The activated extension's exports (the activation test runs first and sets them). */
async function foreman(): Promise<ForemanApi> {
  if (!api) {
    api = await extension().activate();
    await api.ready;
  }
  return api;
}

async function session(): Promise<ForemanSession> {
  const { registry } = await foreman();
  const [only] = registry.sessions();
  assert.ok(only, 'no Foreman session in this window');
  return only;
}

/** Sends a request the way the commands do (`send` in commands/pickers.ts): parsed first, actor vscode. */
async function send<C extends CommandName>(input: { command: C; args: CommandInput<C> }): Promise<Result<ResultOf<C>>> {
  const parsed = parseCommand(input.command, input.args, { actor: 'vscode' });
  if (!parsed.ok) return invalid('badRequest', parsed.message);
  return (await session()).execute(parsed.request);
}

function worker(snapshotOf: ForemanSession, id: string): WorkerStatus {
  const found = snapshotOf.snapshot().workers.find((w) => w.id === id);
  assert.ok(found, `worker ${id} is not in the snapshot`);
  return found;
}

/** The registry's next coalesced change (that `accept`s), as the views hear it. */
function nextChange(registry: SessionRegistry, accept: (change: ViewsChange) => boolean = () => true): Promise<ViewsChange> {
  return new Promise((resolve) => {
    const listening = registry.onDidChange((change) => {
      if (!accept(change)) return;
      listening.dispose();
      resolve(change);
    });
  });
}

/** Once any change the registry is still coalescing has gone out to the views (none pending: at once after the window). */
async function settled(registry: SessionRegistry): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([nextChange(registry), new Promise<void>((resolve) => (timer = setTimeout(resolve, coalesceMs + 50)))]);
  clearTimeout(timer);
}

const labelOf = (item: vscode.TreeItem) => (typeof item.label === 'string' ? item.label : (item.label?.label ?? ''));
const iconOf = (item: vscode.TreeItem) => (item.iconPath instanceof vscode.ThemeIcon ? item.iconPath.id : undefined);

test('Foreman stays inactive while the folder has no .foreman/ (activation is lazy)', () => {
  const ext = extension();
  assert.equal(ext.isActive, false, 'Foreman activated in a folder without Foreman');
  const events = (ext.packageJSON as { activationEvents: string[] }).activationEvents;
  assert.ok(events.includes('workspaceContains:.foreman/foreman.db'), `activation events: ${events.join(', ')}`);
  assert.ok(!events.includes('*') && !events.includes('onStartupFinished'), 'Foreman must not activate in every window');
  assert.ok(fs.existsSync(path.join(folder().uri.fsPath, PARKED)), `run.mjs should have parked the demo's .foreman/ as ${PARKED}`);
});

test('activates on the demo folder and returns before the engine is open', async () => {
  const root = folder().uri.fsPath;
  fs.renameSync(path.join(root, PARKED), path.join(root, '.foreman'));
  // Load the bundle first (the extension host's require shares node's module cache), so the
  // activation below times activate() itself, apart from reading and compiling the bundle.
  const main = path.join(extension().extensionPath, (extension().packageJSON as { main: string }).main);
  const loading = performance.now();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require(main);
  const loadMs = performance.now() - loading;
  const started = performance.now();
  const exports = await extension().activate();
  const activatedMs = performance.now() - started;
  // Nothing was opened synchronously: the engine (database, git, endpoint) comes up afterwards.
  const sessionsAtReturn = exports.registry.sessions().length;
  await exports.ready;
  const readyMs = performance.now() - started;
  api = exports;
  const kb = Math.round(fs.statSync(main).size / 1024);
  console.log(
    `    (bundle ${kb} KB loaded in ${loadMs.toFixed(1)} ms; activate() returned in ${activatedMs.toFixed(1)} ms; engine open and ready ${readyMs.toFixed(1)} ms after activation began)`,
  );
  assert.equal(sessionsAtReturn, 0, 'activate() waited for the engine to open');
  assert.ok(activatedMs < 1_000, `activate() took ${activatedMs.toFixed(0)} ms`);
  assert.equal(exports.registry.sessions().length, 1, 'the demo folder has no session after ready');
  assert.equal(extension().isActive, true);
});

test('contributes exactly the commands in CommandId, each registered and titled under "Foreman"', async () => {
  await foreman();
  const manifest = extension().packageJSON as {
    contributes: {
      commands: Array<{ command: string; title: string; category?: string }>;
      menus: Record<string, Array<{ command: string }>>;
    };
  };
  const contributed = manifest.contributes.commands.map((c) => c.command).sort();
  const declared = Object.values(CommandId).sort();
  assert.deepEqual(contributed, declared, 'package.json contributes.commands and CommandId differ');
  for (const command of manifest.contributes.commands) {
    assert.equal(command.category, 'Foreman', `${command.command} has no "Foreman" category`);
    assert.ok(command.title.trim().length > 0, `${command.command} has no title`);
  }
  const registered = new Set(await vscode.commands.getCommands(true));
  const missing = declared.filter((id) => !registered.has(id));
  assert.deepEqual(missing, [], `contributed but not registered by activate(): ${missing.join(', ')}`);
  // Every menu entry points at a contributed command (a typo there is silently ignored by VS Code).
  for (const [menu, entries] of Object.entries(manifest.contributes.menus)) {
    for (const entry of entries) assert.ok(declared.includes(entry.command as never), `${menu} names unknown command ${entry.command}`);
  }
  // The views exist: VS Code registers "<view>.focus" for each contributed view.
  for (const view of ['foreman.workers', 'foreman.queue']) assert.ok(registered.has(`${view}.focus`), `view ${view} is not contributed`);
});

test('this window owns the demo workspace and its session reaches the engine: ada and grace', async () => {
  const current = await session();
  const root = folder().uri.fsPath;
  assert.equal(current.root, root);
  assert.equal(current.ownerNote, undefined, `the window is not the owner: ${current.ownerNote}`);
  const owner = readOwner(path.join(root, '.foreman'));
  assert.equal(owner?.role, 'vscode', `owner lock: ${JSON.stringify(owner)}`);
  assert.ok(owner?.endpoint, 'the owner lock names no endpoint for the CLI and other windows');
  const snapshot = current.snapshot();
  assert.deepEqual(
    snapshot.workers.map((w) => [w.id, w.agent]),
    [
      ['ada', 'demo'],
      ['grace', 'demo'],
    ],
  );
  assert.equal(snapshot.baseBranch, 'main');
  const titles = snapshot.tasks.map((t) => t.title);
  for (const title of [
    'Greeting feature',
    'Add a greeting module',
    'Use the greeting in the app',
    'Document the greeting',
    'Add a license file',
  ]) {
    assert.ok(titles.includes(title), `task "${title}" missing: ${titles.join(', ')}`);
  }
});

test('Restricted Mode: the dispatcher assigns the chain, but no agent starts and no merge runs', async () => {
  const current = await session();
  assert.equal(vscode.workspace.isTrusted, false, 'run.mjs opens the folder with workspace trust on (Restricted Mode)');
  assert.equal(current.restricted, true);
  // The chain's first task is auto-dispatched once the owner starts (it may already have happened).
  const holder = (await waitFor(
    () => current.snapshot().workers.find((w) => w.taskId === 'greeting-feature-1'),
    15_000,
    'greeting-feature-1 to be assigned',
  ))!;
  assert.equal(holder.state, 'ASSIGNED', `${holder.id} is ${holder.state}: something started it in Restricted Mode`);
  assert.equal(fs.existsSync(current.worktreePath(holder.id)), false, 'a worktree was prepared for an agent in Restricted Mode');
  const refused = await send({ command: 'merge', args: { worker: holder.id } });
  assert.equal(refused.ok, false);
  assert.equal(!refused.ok && refused.code, 'restricted', !refused.ok ? refused.message : '');
});

test('"Foreman: Add Worker" requests work through the session; invalid ids are refused', async () => {
  const current = await session();
  const added = await send({ command: 'worker.add', args: { id: 'hopper', agent: 'demo' } });
  assert.ok(added.ok, !added.ok ? added.message : '');
  assert.equal(worker(current, 'hopper').state, 'IDLE');
  const again = await send({ command: 'worker.add', args: { id: 'hopper', agent: 'demo' } });
  assert.equal(again.ok, false, 'a duplicate worker id was accepted');
  // The input box validates with the same schema the engine parses with.
  const rule = workerIdSchema.safeParse('Bad Id!');
  assert.equal(rule.success, false);
  const bad = await send({ command: 'worker.add', args: { id: 'Bad Id!', agent: 'demo' } });
  assert.equal(bad.ok, false);
  assert.match(!bad.ok ? bad.message : '', /a worker id is lowercase letters, digits and dashes/);
  assert.deepEqual(
    current.snapshot().workers.map((w) => w.id),
    ['ada', 'grace', 'hopper'],
  );
});

test('the Workers tree: one row per worker with state, icon and a state-dependent contextValue', async () => {
  const { registry } = await foreman();
  const current = await session();
  // The registry's own news goes out first: the window's session was added moments ago, and that
  // change (every row redrawn: the rows are asked for again, as VS Code would) is coalesced for up
  // to `coalesceMs`; the rows below are read after it, as VS Code reads them after a redraw.
  await settled(registry);
  const provider = new WorkersTreeProvider(registry);
  try {
    const rows = provider.getChildren();
    const items = rows.map((node) => [node, provider.getTreeItem(node)] as const);
    assert.deepEqual(
      items.map(([, item]) => labelOf(item)),
      ['ada', 'grace', 'hopper'],
    );
    for (const [node, item] of items) {
      assert.equal(node.kind, 'worker');
      const state = worker(current, labelOf(item)).state;
      assert.equal(item.contextValue, `worker.${state}`);
      assert.ok(String(item.description).startsWith(state), `description "${String(item.description)}"`);
      assert.ok(iconOf(item), `${labelOf(item)} has no codicon`);
    }
    const [holderNode, holderItem] = items.find(([, item]) => item.contextValue === 'worker.ASSIGNED')!;
    assert.equal(iconOf(holderItem), 'debug-pause');
    // The row names the task by its title; the id is in the tooltip (made at hover) and the Task detail.
    assert.match(String(holderItem.description), /ASSIGNED · Add a greeting module/);
    assert.equal(holderItem.tooltip, undefined, 'the tooltip is left to resolveTreeItem, so its ages are as of the hover');
    const tooltip = provider.resolveTreeItem(holderItem, holderNode).tooltip as vscode.MarkdownString;
    assert.match(tooltip.value, /Add a greeting module\*\* \(`greeting-feature-1`\)/);
    assert.equal(holderItem.collapsibleState, vscode.TreeItemCollapsibleState.Collapsed, 'a worker with a task has details');
    const details = provider.getChildren(holderNode).map((node) => provider.getTreeItem(node));
    assert.deepEqual(details.map(labelOf), ['Task', 'Attempt', 'Branch', 'Worktree', 'Last transition', 'Liveness']);
    assert.equal(details[0]!.description, 'Add a greeting module (greeting-feature-1)');
    const idle = items.find(([, item]) => labelOf(item) === 'hopper')![1];
    assert.equal(idle.collapsibleState, vscode.TreeItemCollapsibleState.None);
    assert.equal(iconOf(idle), 'circle-large-outline');

    // A new task changes no worker's row: the registry hears of it, the Workers view stays as it is.
    let fired = 0;
    const listening = provider.onDidChangeTreeData(() => (fired += 1));
    const seen: string[] = [];
    const watching = registry.onDidChange((change) =>
      seen.push(
        `${change.sessionsChanged ? 'sessions changed; ' : ''}${[...change.deltas.values()].map((d) => `workers ${[...d.workers].join(',')} tasks ${[...d.tasks].join(',')}`).join(' / ')}`,
      ),
    );
    const heard = nextChange(registry, (change) => change.deltas.size > 0);
    const added = await send({ command: 'task.add', args: { title: 'Write a changelog', id: 'changelog', manual: true } });
    assert.ok(added.ok, !added.ok ? added.message : '');
    await heard;
    assert.equal(fired, 0, `a new task redrew the Workers view (the registry's changes meanwhile: ${seen.join(' | ')})`);
    listening.dispose();
    watching.dispose();
  } finally {
    provider.dispose();
  }
});

test('the Workers view redraws only rows whose text changed: not on a liveness tick, one row for a heartbeat with news', async () => {
  const { registry } = await foreman();
  const current = await session();
  const provider = new WorkersTreeProvider(registry);
  const fired: Array<WorkerNode | undefined> = [];
  const listening = provider.onDidChangeTreeData((node) => fired.push(node));
  try {
    // What VS Code asks when it shows the view.
    const rows = provider.getChildren();
    rows.forEach((node) => provider.getTreeItem(node));
    const holder = current.snapshot().workers.find((w) => w.state === 'ASSIGNED');
    assert.ok(holder, 'no ASSIGNED worker');

    // The tick (every 5 s while a worker holds a task) reads the workers again; only ages moved.
    const ticked = nextChange(registry);
    current.recheckWorkers();
    await ticked;
    assert.equal(fired.length, 0, 'an unchanged tick redrew the Workers view');

    // Its agent says what it is doing: that row, and only it, is redrawn, as the same node VS Code holds.
    const beat = await send({ command: 'heartbeat', args: { worker: holder.id, attempt: holder.attempt, activity: 'Bash: npm test' } });
    assert.ok(beat.ok, !beat.ok ? beat.message : '');
    await waitFor(() => fired.length > 0, 5_000, 'the Workers view to redraw the row');
    assert.equal(fired.length, 1, `redrew ${fired.length} times`);
    const [node] = fired;
    assert.ok(node && rows.includes(node), 'the whole view was redrawn, or a node VS Code does not hold');
    assert.equal(node.kind === 'worker' && node.worker.id, holder.id);
    assert.match(String(provider.getTreeItem(node).description), /Bash: npm test/);

    // And the tick after it is quiet again.
    const quiet = nextChange(registry);
    current.recheckWorkers();
    await quiet;
    assert.equal(fired.length, 1, 'a tick after the change redrew the view');
  } finally {
    listening.dispose();
    provider.dispose();
  }
});

test('the Queue & Chains tree: the chain in order with blocked-by, free tasks grouped by status', async () => {
  const { registry } = await foreman();
  const provider = new QueueTreeProvider(registry);
  try {
    const item = (node: QueueNode) => provider.getTreeItem(node);
    const roots = provider.getChildren();
    assert.deepEqual(
      roots.map((node) => labelOf(item(node))),
      ['Chains (1)', 'To assign (2)'],
    );
    const [chain] = provider.getChildren(roots[0]);
    assert.ok(chain);
    const chainItem = item(chain);
    assert.equal(labelOf(chainItem), 'Greeting feature');
    assert.equal(chainItem.description, 'running · 0/3 done');
    const steps = provider.getChildren(chain).map(item);
    assert.deepEqual(steps.map(labelOf), ['1. Add a greeting module', '2. Use the greeting in the app', '3. Document the greeting']);
    assert.match(String(steps[1]!.description), /blocked by greeting-feature-1/);
    assert.equal(steps[1]!.contextValue, 'task.queued.blocked');
    assert.equal(iconOf(steps[1]!), 'lock');
    assert.equal(steps[0]!.contextValue, 'task.running');
    const idle = provider.getChildren(roots[1]).map(item);
    assert.deepEqual(idle.map(labelOf).sort(), ['Add a license file', 'Write a changelog']);
    assert.ok(idle.every((task) => task.contextValue === 'task.idle'));

    // A refresh that changes nothing (the Workers view's age tick while workers are busy) leaves
    // this view alone: redrawing it would close a context menu a person has open on it.
    let redraws = 0;
    const counting = provider.onDidChangeTreeData(() => (redraws += 1));
    try {
      const heard = new Promise<void>((resolve) => {
        const once = registry.onDidChange(() => {
          once.dispose();
          resolve();
        });
      });
      (await session()).refresh();
      await heard;
      assert.equal(redraws, 0, 'an unchanged queue was redrawn');
      const added = await send({ command: 'task.add', args: { title: 'Tidy the docs', id: 'tidy-docs', manual: true } });
      assert.ok(added.ok, !added.ok ? added.message : '');
      await waitFor(() => redraws > 0, 5_000, 'the Queue view to redraw for a new task');
    } finally {
      counting.dispose();
    }
  } finally {
    provider.dispose();
  }
});

test('commands invoked from a tree row act on that row: start and approve a worker', async () => {
  const current = await session();
  const holder = current.snapshot().workers.find((w) => w.state === 'ASSIGNED');
  assert.ok(holder, 'no ASSIGNED worker');
  const row = (id: string): WorkerNode => ({ kind: 'worker', session: current, worker: worker(current, id) });
  // Start prepares the worktree and branch; in Restricted Mode no agent is launched on it.
  await vscode.commands.executeCommand(CommandId.start, row(holder.id));
  assert.equal(worker(current, holder.id).state, 'WORKING');
  assert.ok(fs.existsSync(current.worktreePath(holder.id)), 'start did not prepare the worktree');
  // Its agent asks for a permission: the row is marked waiting, Deny answers it, and the agent's
  // next heartbeat (its hook asking) gets the answer once.
  const asked = await send({ command: 'heartbeat', args: { worker: holder.id, needsInput: 'Bash: rm -rf build' } });
  assert.ok(asked.ok, !asked.ok ? asked.message : '');
  assert.equal(worker(current, holder.id).needsInput?.message, 'Bash: rm -rf build');
  const { registry } = await foreman();
  const tree = new WorkersTreeProvider(registry);
  try {
    assert.equal(tree.getTreeItem(row(holder.id)).contextValue, 'worker.WORKING.waiting');
  } finally {
    tree.dispose();
  }
  await vscode.commands.executeCommand(CommandId.denyInput, row(holder.id));
  assert.equal(worker(current, holder.id).needsInput, null, 'Deny did not end the wait');
  const answered = await send({ command: 'heartbeat', args: { worker: holder.id } });
  assert.equal(answered.ok && answered.value.answer, 'deny');
  // Submitted, its task is still `running`; the Queue view says it waits for review, and redraws for it.
  const queue = new QueueTreeProvider(registry);
  const taskRow = (): vscode.TreeItem | undefined => {
    const walk = (nodes: QueueNode[]): QueueNode | undefined =>
      nodes.map((node) => (node.kind === 'task' && node.task.id === holder.taskId ? node : walk(queue.getChildren(node)))).find(Boolean);
    const node = walk(queue.getChildren());
    return node && queue.getTreeItem(node);
  };
  let queueRedraws = 0;
  const counting = queue.onDidChangeTreeData(() => queueRedraws++);
  try {
    assert.match(String(taskRow()?.description), / · running · /);
    const submitted = await send({ command: 'submit', args: { worker: holder.id, summary: 'by hand' } });
    assert.ok(submitted.ok, !submitted.ok ? submitted.message : '');
    await waitFor(() => queueRedraws > 0, 5_000, 'the Queue view to redraw the submitted task');
    const reviewed = taskRow();
    assert.match(String(reviewed?.description), / · in review · /);
    assert.equal(reviewed && iconOf(reviewed), 'eye');
    assert.equal(reviewed?.contextValue, 'task.running', "the row's menus still go by the task's status");
  } finally {
    counting.dispose();
    queue.dispose();
  }
  await vscode.commands.executeCommand(CommandId.approve, row(holder.id));
  assert.equal(worker(current, holder.id).state, 'APPROVED');
  const merge = await send({ command: 'merge', args: { worker: holder.id } });
  assert.equal(!merge.ok && merge.code, 'restricted', 'a merge ran in Restricted Mode');
});

test('view commands run: Show Workers focuses the view, Refresh reads the state again and redraws', async () => {
  const { registry } = await foreman();
  const current = await session();
  await vscode.commands.executeCommand(CommandId.showWorkers);
  let reads = 0;
  let redraws = 0;
  const subscriptions = [current.onDidChange(() => reads++), registry.onDidChange(() => redraws++)];
  try {
    const before = current.snapshot();
    await vscode.commands.executeCommand(CommandId.refresh);
    assert.ok(reads >= 1, 'Refresh did not make the session read its state again');
    assert.notEqual(current.snapshot(), before, 'Refresh kept the old snapshot');
    await waitFor(() => redraws >= 1, 5_000, 'the views to redraw after Refresh');
  } finally {
    for (const subscription of subscriptions) subscription.dispose();
  }
});

test('"Foreman: Reopen" applies changed settings: a new branch template names the next branch', async () => {
  const before = await session();
  const config = () => vscode.workspace.getConfiguration('foreman');
  await config().update('branchTemplate', 'fm/{worker}/{task}', vscode.ConfigurationTarget.Workspace);
  try {
    await vscode.commands.executeCommand(CommandId.reopen);
    const after = await session();
    assert.notEqual(after, before, 'the engine was not reopened');
    assert.equal(readOwner(path.join(folder().uri.fsPath, '.foreman'))?.pid, process.pid, 'this window owns it again');
    assert.equal(worker(after, 'hopper').state, 'IDLE', 'the state survived the reopen');
    const assigned = await send({ command: 'assign', args: { worker: 'hopper', task: 'add-license' } });
    assert.ok(assigned.ok, !assigned.ok ? assigned.message : '');
    assert.equal(assigned.ok && assigned.value.branch, 'fm/hopper/add-license');
  } finally {
    await config().update('branchTemplate', undefined, vscode.ConfigurationTarget.Workspace);
  }
});

export function run(): Promise<void> {
  return runRegistered('Foreman (in the extension host)');
}
