/**
 * Live overlap detection (issue 33, docs/overlaps.md) with real demo agents in a real repository
 * under a real `foreman serve`: each agent reports its edits as it makes them, and the worktree's
 * diff is read after. Agents sleep after editing so that both run while the check happens.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
import type { TaskOverlap } from '../../../src/core/overlaps';
import { pollUntil } from '../../support/pollUntil';
import { type CrewRepo, type Status, gitIn, makeCrew, sandboxPath } from '../crew/crewHarness';

const tenLines = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

/** `status --json` with the overlap fields (the harness's Status predates them). */
interface WithOverlaps extends Status {
  readonly workers: (Status['workers'][number] & { readonly overlaps: TaskOverlap[] })[];
  readonly tasks: (Status['tasks'][number] & { readonly overlaps: TaskOverlap[]; readonly blockedBy: string | null })[];
}

async function overlapStatus(
  crew: CrewRepo,
  what: string,
  ready: (status: WithOverlaps) => boolean,
  server?: Parameters<CrewRepo['waitFor']>[3],
) {
  return (await crew.waitFor(what, (status) => ready(status as WithOverlaps), 30_000, server)) as WithOverlaps;
}

const overlapsOf = (status: WithOverlaps, task: string) => status.tasks.find((row) => row.id === task)?.overlaps ?? [];
const workerOverlaps = (status: WithOverlaps, worker: string) => status.workers.find((row) => row.id === worker)?.overlaps ?? [];

async function addTask(crew: CrewRepo, id: string, prompt: string, extra: readonly string[] = ['--manual']): Promise<void> {
  await crew.ok(['task', 'add', `Task ${id}`, '--id', id, '--prompt', prompt, ...extra]);
}

test('same file: both sides flagged, same lines louder; another file: nothing; ignore hides the pair', { timeout: 300_000 }, async () => {
  const crew = await makeCrew({ workers: ['w1', 'w2', 'w3', 'w4'], files: { 'shared.txt': tenLines, 'other.txt': 'other\n' } });
  await addTask(crew, 'edit-a', 'replace-line shared.txt 1 from-a\nsleep 150000');
  await addTask(crew, 'edit-b', 'replace-line shared.txt 1 from-b\nsleep 150000');
  await addTask(crew, 'edit-c', 'append other.txt from-c\nsleep 150000');
  await addTask(crew, 'edit-d', 'replace-line shared.txt 10 from-d\nsleep 150000');
  for (const [worker, task] of [
    ['w1', 'edit-a'],
    ['w2', 'edit-b'],
    ['w3', 'edit-c'],
    ['w4', 'edit-d'],
  ] as const)
    await crew.ok(['assign', worker, task]);
  const server = await crew.serve();
  try {
    const status = await overlapStatus(
      crew,
      'a overlapping b (same lines) and d (same file)',
      (s) => {
        const ofA = overlapsOf(s, 'edit-a');
        return ofA.some((o) => o.taskId === 'edit-b' && o.hunks) && ofA.some((o) => o.taskId === 'edit-d' && !o.hunks);
      },
      server,
    );
    assert.deepEqual(
      overlapsOf(status, 'edit-a').map((o) => [o.taskId, o.workerId, o.files, o.hunks, o.plan]),
      [
        ['edit-b', 'w2', ['shared.txt'], true, null],
        ['edit-d', 'w4', ['shared.txt'], false, null],
      ],
    );
    assert.deepEqual(
      overlapsOf(status, 'edit-b').map((o) => o.taskId),
      ['edit-a', 'edit-d'],
    );
    assert.deepEqual(overlapsOf(status, 'edit-c'), [], 'a task on another file overlaps nothing');
    assert.deepEqual(workerOverlaps(status, 'w1'), overlapsOf(status, 'edit-a'), 'the worker shows its task’s overlaps');
    assert.deepEqual(workerOverlaps(status, 'w3'), []);

    const listed = JSON.parse(await crew.ok(['overlaps', '--json'])) as { task: string; overlaps: TaskOverlap[] }[];
    assert.deepEqual(listed.map((row) => row.task).sort(), ['edit-a', 'edit-b', 'edit-d']);
    assert.match(await crew.ok(['overlaps']), /edit-a overlaps edit-b \(w2\), same lines: shared\.txt/);

    await crew.ok(['overlap', 'ignore', 'edit-a', 'edit-b']);
    const ignored = (await crew.status()) as WithOverlaps;
    assert.deepEqual(
      overlapsOf(ignored, 'edit-a').map((o) => o.taskId),
      ['edit-d'],
    );
    assert.deepEqual(
      overlapsOf(ignored, 'edit-b').map((o) => o.taskId),
      ['edit-d'],
      'ignored on both sides',
    );

    // Refusals in words.
    const unknown = await crew.foreman(['overlap', 'ignore', 'edit-a', 'no-such-task']);
    assert.equal(unknown.code, 4, unknown.stderr);
    assert.match(unknown.stderr, /no-such-task/);
    const none = await crew.foreman(['overlap', 'run-after', 'edit-c', 'edit-a']);
    assert.equal(none.code, 3, none.stderr);
    assert.match(none.stderr, /do not overlap/);
    const self = await crew.foreman(['overlap', 'ignore', 'edit-a', 'edit-a']);
    assert.equal(self.code, 3, self.stderr);
    assert.match(self.stderr, /cannot overlap itself/);
    const missing = await crew.foreman(['overlap', 'ignore', 'edit-a']);
    assert.equal(missing.code, 2, missing.stderr);
    const badId = await crew.foreman(['overlap', 'ignore', 'Edit A', 'edit-b']);
    assert.equal(badId.code, 2, badId.stderr);
  } finally {
    await server.stop();
  }
});

test(
  'run after: the task stops, its work kept in a WIP commit, queued blocked by the other until it is Done',
  { timeout: 300_000 },
  async () => {
    const crew = await makeCrew({ workers: ['w1', 'w2'], files: { 'shared.txt': tenLines } });
    await addTask(crew, 'first', 'replace-line shared.txt 1 from-first\nsleep 150000');
    await addTask(crew, 'second', 'replace-line shared.txt 8 from-second\nsleep 150000');
    await crew.ok(['assign', 'w1', 'first']);
    await crew.ok(['assign', 'w2', 'second']);
    const server = await crew.serve();
    try {
      await overlapStatus(crew, 'first and second overlap', (s) => overlapsOf(s, 'second').some((o) => o.taskId === 'first'), server);
      const moved = JSON.parse(await crew.ok(['overlap', 'run-after', 'second', 'first', '--json'])) as { wip: string | null };
      assert.ok(moved.wip, 'the edit was committed as WIP');
      const status = (await crew.status()) as WithOverlaps;
      const second = status.tasks.find((task) => task.id === 'second');
      assert.equal(second?.status, 'queued');
      assert.equal(second?.blockedBy, 'first');
      assert.equal(crew.worker(status, 'w2').state, 'IDLE');
      assert.deepEqual(overlapsOf(status, 'first'), [], 'the stopped task no longer runs, so nothing overlaps');
      const branch = gitIn(crew.root, ['log', '-1', '--format=%s', moved.wip]);
      assert.match(branch, /^WIP: Task second \(stopped to run after first\)/);
      assert.match(gitIn(crew.root, ['show', `${moved.wip}:shared.txt`]), /from-second/);
    } finally {
      await server.stop();
    }
  },
);

/**
 * Two tasks on neighbouring lines of one file: the second edits line 9, waits until the test says
 * go (after the first merged), then edits line 2, next to the first's line 1. Merged on the old
 * base, those neighbouring changes conflict; rebased as soon as the first merges, the second's
 * later edit is made on top of the first's and merges cleanly.
 */
async function neighbouringEdits(plan: boolean) {
  const crew = await makeCrew({ workers: ['w1', 'w2'], files: { 'shared.txt': tenLines } });
  const go = sandboxPath(`go-second-${plan ? 'planned' : 'unplanned'}-${process.pid}`);
  await addTask(crew, 'first', 'replace-line shared.txt 1 from-first\ncommit first edit');
  await addTask(
    crew,
    'second',
    `replace-line shared.txt 9 from-second\nwait-for ${go}\nreplace-line shared.txt 2 later-second\ncommit second edit`,
  );
  await crew.ok(['assign', 'w1', 'first']);
  await crew.ok(['assign', 'w2', 'second']);
  const server = await crew.serve();
  try {
    await overlapStatus(crew, 'second overlaps first', (s) => overlapsOf(s, 'second').some((o) => o.taskId === 'first'), server);
    if (plan) {
      await crew.ok(['overlap', 'rebase-when-merged', 'second', 'first']);
      const planned = (await crew.status()) as WithOverlaps;
      assert.equal(overlapsOf(planned, 'second')[0]?.plan, 'rebase-when-merged');
    }
    await crew.waitForWorker('w1', 'IN_REVIEW', server, 30_000);
    await crew.ok(['approve', 'w1']);
    await crew.ok(['merge', 'w1']);
    const main = gitIn(crew.root, ['rev-parse', 'main']);
    const worktree = crew.worktreeOf('w2');
    if (plan) {
      await pollUntil(() => Promise.resolve(gitIn(worktree, ['merge-base', 'HEAD', 'main']) === main ? true : undefined), {
        what: "second's worktree rebased onto the merged main",
        timeoutMs: 15_000,
        intervalMs: 150,
        detail: () => server.output(),
      });
      assert.equal(gitIn(worktree, ['status', '--porcelain']), '', 'the worktree is clean after the rebase');
      assert.match(gitIn(worktree, ['show', 'HEAD:shared.txt']), /^from-first\n[\s\S]*from-second/);
    }
    writeFileSync(go, '');
    await crew.waitForWorker('w2', 'IN_REVIEW', server, 60_000);
    await crew.ok(['approve', 'w2']);
    return { crew, server, merged: await crew.foreman(['merge', 'w2', '--json']) };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

test('without a plan, neighbouring edits of two overlapping tasks conflict at the second merge', { timeout: 300_000 }, async () => {
  const { server, merged } = await neighbouringEdits(false);
  try {
    assert.equal(merged.code, 3, merged.stdout + merged.stderr);
    assert.equal((JSON.parse(merged.stdout) as { error: { code: string } }).error.code, 'mergeConflict');
  } finally {
    await server.stop();
  }
});

test(
  'rebase when merged: the other merges, this worktree is rebased at once, and its later edit merges cleanly',
  { timeout: 300_000 },
  async () => {
    const { crew, server, merged } = await neighbouringEdits(true);
    try {
      assert.equal(merged.code, 0, merged.stdout + merged.stderr);
      assert.equal(gitIn(crew.root, ['show', 'main:shared.txt']).split('\n').slice(0, 2).join('\n'), 'from-first\nlater-second');
      assert.match(gitIn(crew.root, ['show', 'main:shared.txt']), /from-second/);
    } finally {
      await server.stop();
    }
  },
);

test('the dispatcher prefers a task whose expected files no running task touches', { timeout: 300_000 }, async () => {
  const crew = await makeCrew({ workers: ['w1'], files: { 'shared.txt': tenLines, 'other.txt': 'other\n' } });
  await addTask(crew, 'running', 'replace-line shared.txt 1 from-running\nsleep 150000');
  await crew.ok(['assign', 'w1', 'running']);
  const server = await crew.serve();
  try {
    await crew.waitFor('running reported its edit', (s) => /shared\.txt/.test(JSON.stringify(crew.worker(s, 'w1'))), 20_000, server);
    // Both queued while no worker is free: the first in the queue would collide, the second not.
    await addTask(crew, 'collides', 'append shared.txt more\nsleep 150000', ['--paths', 'shared.txt']);
    await addTask(crew, 'apart', 'append other.txt more\nsleep 150000', ['--paths', 'other.txt']);
    await crew.ok(['worker', 'add', 'w2', '--agent', 'demo']);
    const status = await crew.waitFor('w2 given a task', (s) => crew.worker(s, 'w2').taskId !== null, 20_000, server);
    assert.equal(crew.worker(status, 'w2').taskId, 'apart');
  } finally {
    await server.stop();
  }
});
