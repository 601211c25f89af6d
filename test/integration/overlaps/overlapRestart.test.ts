/**
 * Overlaps kept in the store (issue 33, docs/overlaps.md "What is kept where") with real demo agents
 * under a real `foreman serve`: a one-shot `status` with no owner shows the overlaps (JSON and the
 * human lines), an owner that starts again still knows an ignored pair and a plan, and the plan is
 * carried out when the other task merges; a `--paths` hint given while no owner runs steers the
 * dispatcher of the owner that starts later.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TaskOverlap } from '../../../src/core/overlaps';
import { pollUntil } from '../../support/pollUntil';
import { type CrewRepo, type Status, gitIn, makeCrew } from '../crew/crewHarness';

const twelveLines = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

/** `status --json` with the overlap fields (the harness's Status predates them). */
interface WithOverlaps extends Status {
  readonly tasks: (Status['tasks'][number] & { readonly overlaps: TaskOverlap[] })[];
}

const pairs = (status: WithOverlaps, task: string): unknown[][] =>
  status.tasks.find((row) => row.id === task)?.overlaps.map((o) => [o.taskId, o.files, o.hunks, o.plan]) ?? [];

async function addTask(crew: CrewRepo, id: string, prompt: string, extra: readonly string[] = ['--manual']): Promise<void> {
  await crew.ok(['task', 'add', `Task ${id}`, '--id', id, '--prompt', prompt, ...extra]);
}

test(
  'one-shot status shows overlaps; an ignored pair and a plan outlive the owner, and the plan runs at the merge',
  { timeout: 300_000 },
  async () => {
    // Three agents end at once: on a loaded machine their hand-ins must not be taken for silence.
    const crew = await makeCrew({
      workers: ['w1', 'w2', 'w3'],
      files: { 'shared.txt': twelveLines },
      settings: { warnMs: 30_000, staleMs: 60_000, deadMs: 90_000 },
    });
    // a and d change line 1 (the same lines), b line 6 (the same file, other lines).
    await addTask(crew, 'a', 'replace-line shared.txt 1 from-a\ncommit a edit');
    await addTask(crew, 'b', 'replace-line shared.txt 6 from-b\ncommit b edit');
    await addTask(crew, 'd', 'replace-line shared.txt 1 from-d\ncommit d edit');
    await crew.ok(['assign', 'w1', 'a']);
    await crew.ok(['assign', 'w2', 'b']);
    await crew.ok(['assign', 'w3', 'd']);
    const expected = {
      a: [
        ['b', ['shared.txt'], false, null],
        ['d', ['shared.txt'], true, null],
      ],
      b: [['a', ['shared.txt'], false, 'rebase-when-merged']],
      d: [['a', ['shared.txt'], true, null]],
    };
    let server = await crew.serve();
    try {
      // In review the agents are done: their work (and what it touched) waits for a person, owner or not.
      await crew.waitFor(
        'all three in review, their diffs read',
        (s) =>
          ['w1', 'w2', 'w3'].every((w) => crew.worker(s, w).state === 'IN_REVIEW') &&
          pairs(s as WithOverlaps, 'a').some(([task, , hunks]) => task === 'd' && hunks === true),
        60_000,
        server,
      );
      await crew.ok(['overlap', 'ignore', 'b', 'd']);
      await crew.ok(['overlap', 'rebase-when-merged', 'b', 'a']);
    } finally {
      await server.stop();
    }

    // No owner: each call below opens the store itself.
    const oneShot = (await crew.status()) as WithOverlaps;
    assert.deepEqual(
      ['a', 'b', 'd'].map((task) => pairs(oneShot, task)),
      [expected.a, expected.b, expected.d],
    );
    const human = await crew.ok(['status']);
    assert.match(human, /^!! a \(w1\) changes the same lines as d \(w3\) in shared\.txt$/m);
    assert.match(human, /^ {3}a \(w1\) touches the same files as b \(w2\): shared\.txt$/m);
    assert.match(human, /^ {3}b \(w2\) touches the same files as a \(w1\): shared\.txt; rebase-when-merged$/m);
    const listed = JSON.parse(await crew.ok(['overlaps', '--json'])) as { task: string }[];
    assert.deepEqual(listed.map((row) => row.task).sort(), ['a', 'b', 'd']);

    server = await crew.serve();
    try {
      const again = (await crew.status()) as WithOverlaps;
      assert.deepEqual(
        ['a', 'b', 'd'].map((task) => pairs(again, task)),
        [expected.a, expected.b, expected.d],
        'the owner that started again knows the ignored pair and the plan',
      );
      await crew.ok(['approve', 'w1']);
      await crew.ok(['merge', 'w1']);
      const main = gitIn(crew.root, ['rev-parse', 'main']);
      const worktree = crew.worktreeOf('w2');
      await pollUntil(() => Promise.resolve(gitIn(worktree, ['merge-base', 'HEAD', 'main']) === main ? true : undefined), {
        what: "b's worktree rebased onto the merged main (the plan made before the restart)",
        timeoutMs: 20_000,
        intervalMs: 150,
        detail: () => server.output(),
      });
      assert.match(gitIn(worktree, ['show', 'HEAD:shared.txt']), /^from-a\n[\s\S]*from-b/);
    } finally {
      await server.stop();
    }
  },
);

test('a --paths hint given while no owner runs steers the dispatcher of the owner that starts', { timeout: 300_000 }, async () => {
  const crew = await makeCrew({ workers: ['w1'], files: { 'shared.txt': twelveLines, 'other.txt': 'other\n' } });
  await addTask(crew, 'running', 'replace-line shared.txt 1 from-running\nsleep 150000');
  await crew.ok(['assign', 'w1', 'running']);
  // One-shot calls: the hints are rows of the store, not an owner's memory.
  await addTask(crew, 'collides', 'append shared.txt more\nsleep 150000', ['--paths', 'shared.txt']);
  await addTask(crew, 'apart', 'append other.txt more\nsleep 150000', ['--paths', 'other.txt']);
  const server = await crew.serve();
  try {
    await crew.waitFor('running reported its edit', (s) => pairsTouched(s, 'running'), 20_000, server);
    await crew.ok(['worker', 'add', 'w2', '--agent', 'demo']);
    const status = await crew.waitFor('w2 given a task', (s) => crew.worker(s, 'w2').taskId !== null, 20_000, server);
    assert.equal(crew.worker(status, 'w2').taskId, 'apart');
  } finally {
    await server.stop();
  }
});

/** Whether the worker's activity names the file its first edit touched (the edit event arrived). */
function pairsTouched(status: Status, task: string): boolean {
  return /shared\.txt/.test(JSON.stringify(status.workers.find((worker) => worker.taskId === task)));
}
