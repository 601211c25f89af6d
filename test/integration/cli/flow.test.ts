/**
 * The whole path from the command line, once with no owner (each call takes the lock, applies
 * the request durably and releases it) and once through a running `foreman serve`.
 */
import assert from 'node:assert/strict';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { type Server, foreman, foremanJson, makeRepo, startServe } from './harness';

interface Status {
  baseBranch: string;
  workers: Array<Record<string, unknown>>;
  tasks: Array<Record<string, unknown>>;
}

const workerFields = ['id', 'state', 'taskId', 'branch', 'attempt', 'lastHeartbeatMs', 'liveness'];
const taskFields = ['id', 'title', 'status', 'blockedBy', 'workerId', 'attempt', 'parentId'];

const checklist = `# Release chain

- [ ] Write the changelog
  Summarise every merged task.
- [ ] Tag the release
1. Announce it
`;

async function ok(repo: string, args: string[]): Promise<string> {
  const run = await foreman(repo, args);
  assert.equal(run.code, 0, `foreman ${args.join(' ')}: ${run.stdout}${run.stderr}`);
  return run.stdout;
}

async function wholePath(repo: string): Promise<void> {
  await ok(repo, ['worker', 'add', 'w1']);
  await ok(repo, ['task', 'add', 'First task', '--id', 't1', '--manual', '--prompt', 'Do the first thing']);
  // The worker is busy before any auto-dispatched work exists, so an owner's dispatcher cannot take it first.
  assert.match(await ok(repo, ['assign', 'w1', 't1']), /claimed task t1 \(attempt 1, branch w1\/t1\)/);

  writeFileSync(join(repo, 'chain.md'), checklist);
  const chain = await foremanJson<{
    parent: { id: string };
    children: Array<{ id: string; title: string; prompt: string; status: string; blocked_by_task_id: string | null }>;
  }>(repo, ['chain', 'add', '--from', 'chain.md']);
  assert.equal(chain.parent.id, 'release-chain');
  assert.deepEqual(
    chain.children.map((child) => child.title),
    ['Write the changelog', 'Tag the release', 'Announce it'],
  );
  assert.equal(chain.children[0]!.prompt, 'Summarise every merged task.');
  assert.equal(chain.children[0]!.status, 'queued');
  assert.equal(chain.children[1]!.blocked_by_task_id, chain.children[0]!.id);

  await ok(repo, ['task', 'add', 'Plan parent', '--id', 'p1', '--manual']);
  await ok(repo, ['plan', 'start', 'p1']);
  await ok(repo, ['plan', 'add', 'p1', 'Child one']);
  await ok(repo, ['plan', 'add', 'p1', 'Child two', '--prompt', 'second']);
  await ok(repo, ['plan', 'finalize', 'p1']);

  await ok(repo, ['start', 'w1']);
  assert.match(await ok(repo, ['heartbeat', 'w1', '--attempt', '1', '--progress', '0.5']), /heartbeat from w1 \(WORKING, attempt 1\)/);
  await ok(repo, ['submit', 'w1', '--summary', 'first try']);
  await ok(repo, ['request-changes', 'w1', '--note', 'Add a test']);
  await ok(repo, ['submit', 'w1', '--summary', 'with a test', '--attempt', '1']);
  await ok(repo, ['approve', 'w1']);
  await ok(repo, ['merge', 'w1']);

  const status = await foremanJson<Status>(repo, ['status']);
  assert.equal(status.baseBranch, 'main');
  for (const worker of status.workers) for (const field of workerFields) assert.ok(field in worker, `worker field ${field}`);
  for (const task of status.tasks) for (const field of taskFields) assert.ok(field in task, `task field ${field}`);
  const t1 = status.tasks.find((task) => task.id === 't1')!;
  assert.deepEqual({ status: t1.status, attempt: t1.attempt, title: t1.title }, { status: 'done', attempt: 1, title: 'First task' });
  const children = status.tasks.filter((task) => task.parentId === 'p1');
  assert.equal(children.length, 2);
  assert.equal(children[1]!.blockedBy, children[0]!.id);

  const history = await foremanJson<Array<{ trigger: string; actor: string }>>(repo, ['transitions', '--entity', 'w1']);
  // An owner's dispatcher may hand w1 the next chain step right after; only the first eight are ours.
  const ours = history.slice(0, 8);
  assert.deepEqual(
    ours.map((event) => event.trigger),
    ['assign', 'start', 'submit', 'requestChanges', 'submit', 'approve', 'merge', 'recycle'],
  );
  assert.ok(ours.every((event) => event.actor === 'cli'));
  // A log months long is read from its end: --limit N is the latest N, --after <seq> pages forward.
  // (t1 is done: an owner's dispatcher adds nothing to its trail between these calls.)
  const trail = await foremanJson<Array<{ seq: number }>>(repo, ['transitions', '--entity', 't1']);
  assert.equal(trail.length, 2, JSON.stringify(trail));
  const latest = await foremanJson<Array<{ seq: number }>>(repo, ['transitions', '--entity', 't1', '--limit', '1']);
  assert.deepEqual(
    latest.map((event) => event.seq),
    trail.slice(-1).map((event) => event.seq),
  );
  const page = await foremanJson<Array<{ seq: number }>>(repo, [
    'transitions',
    '--entity',
    't1',
    '--after',
    String(trail[0]!.seq),
    '--limit',
    '2',
  ]);
  assert.deepEqual(
    page.map((event) => event.seq),
    trail.slice(1, 3).map((event) => event.seq),
  );
  const human = await ok(repo, ['transitions', '--entity', 't1']);
  assert.match(human, /t1 {2}running → done {2}\(complete\)/);

  const metrics = await foremanJson<{ transitions: unknown[]; rejected: { total: number }; queue: Record<string, number> }>(repo, [
    'metrics',
  ]);
  assert.ok(metrics.transitions.length > 0);
  assert.equal(metrics.rejected.total, 0);
  assert.equal(metrics.queue['done'], 1);

  assert.match(await ok(repo, ['export']), /exported \d+ transitions/);
  assert.match(await ok(repo, ['validate-transitions', join('.foreman', 'transitions.jsonl')]), /all valid/);

  // An export moved aside (a log rotated): the next one starts a new file after the recorded seq.
  const exported = join(repo, '.foreman', 'transitions.jsonl');
  const seqsOf = (file: string) =>
    readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { seq: number }).seq);
  const rotated = `${exported}.1`;
  renameSync(exported, rotated);
  await ok(repo, ['task', 'add', 'After the rotation', '--id', 'rotated']);
  assert.match(await ok(repo, ['export']), /exported [1-9]\d* transitions/);
  assert.ok(seqsOf(exported)[0]! > seqsOf(rotated).at(-1)!, 'no line of the rotated file is written again');
}

describe('foreman CLI: the whole path', { timeout: 120_000 }, () => {
  it('works without an owner: each call owns the workspace briefly', async () => {
    const repo = makeRepo();
    assert.match(await ok(repo, ['init']), /initialised Foreman in .* \(base branch main\)/);
    assert.match(await ok(repo, ['init']), /already initialised .*nothing changed/);
    await wholePath(repo);
  });

  it('works the same through foreman serve', async () => {
    const repo = makeRepo();
    await ok(repo, ['init']);
    let server: Server | undefined;
    try {
      server = await startServe(repo);
      assert.match(await ok(repo, ['init']), /already initialised .*nothing changed/);
      await wholePath(repo);
      assert.match(server.output(), /worker w1: APPROVED → COMPLETED \(merge\)/);
    } finally {
      assert.equal(await server?.stop(), 0);
    }
    // After a clean stop the workspace is free again, and nothing was lost.
    const status = await foremanJson<Status>(repo, ['status']);
    assert.equal(status.tasks.find((task) => task.id === 't1')!.status, 'done');
  });
});

describe('foreman worker add with an agent profile nobody defines', () => {
  it('adds the worker and says on stderr that its tasks will fail until the profile exists', async () => {
    const repo = makeRepo();
    await ok(repo, ['init']);
    const unknown = await foreman(repo, ['worker', 'add', 'w1', '--agent', 'nosuch']);
    assert.equal(unknown.code, 0);
    assert.match(unknown.stderr, /note: There is no agent profile named 'nosuch'; known profiles: .*this worker's tasks will fail/);
    writeFileSync(join(repo, '.foreman', 'settings.json'), JSON.stringify({ agents: { mine: { command: 'true' } } }));
    // claude's own case (found on PATH or not) is in agentOnPath.test.ts.
    for (const agent of ['demo', 'mine']) {
      const known = await foreman(repo, ['worker', 'add', `w-${agent}`, '--agent', agent]);
      assert.equal(known.code, 0);
      assert.equal(known.stderr, '', `no note for ${agent}`);
    }
  });
});
