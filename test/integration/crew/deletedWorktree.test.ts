/**
 * A worktree folder deleted by hand (rm -rf) while its worker holds a task: the next `foreman
 * serve` reports it at start, and the work still reaches main, because the branch holds the
 * commits and the worktree is recreated from it when it is next needed.
 */
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { test } from 'node:test';
import { makeCrew, reviewUntil } from './crewHarness';

test('a worktree deleted by hand is reported when serve starts and recreated; the task still merges', { timeout: 60_000 }, async () => {
  const crew = await makeCrew({ workers: ['w1'] });
  await crew.ok(['task', 'add', 'Some work', '--id', 'work', '--prompt', 'write work.txt done\ncommit do the work']);
  const first = await crew.serve();
  try {
    await crew.waitForWorker('w1', 'IN_REVIEW', first);
  } finally {
    await first.stop();
  }
  const worktree = crew.worktreeOf('w1');
  assert.ok(existsSync(worktree));
  rmSync(worktree, { recursive: true, force: true });
  const before = crew.checkout();

  const second = await crew.serve();
  try {
    assert.match(
      second.output(),
      new RegExp(
        `worktree of w1 is missing \\(recreated when the worker next starts\\): ${worktree.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`,
      ),
    );
    assert.deepEqual(crew.checkout(), before, 'the main checkout is untouched by the repair');
    // Sent back to the agent: the relaunch recreates the worktree from the branch.
    await crew.ok(['request-changes', 'w1', '--note', 'Please double-check']);
    await crew.waitForWorker('w1', 'IN_REVIEW', second);
    assert.ok(existsSync(worktree), 'the worktree was recreated');
    assert.equal(crew.git(['symbolic-ref', '--short', 'HEAD'], worktree), 'w1/work');
    await reviewUntil(crew, (s) => crew.task(s, 'work').status === 'done', { server: second, timeoutMs: 20_000 });
    assert.equal(crew.git(['show', 'main:work.txt']), 'done');
    assert.deepEqual(crew.git(['log', '--format=%s', 'main']).split('\n'), ['do the work', 'initial']);
  } finally {
    await second.stop();
  }
});

test(
  'a worktree deleted by hand while its task waits for merge: the merge recreates it and lands the work',
  { timeout: 60_000 },
  async () => {
    const crew = await makeCrew({ workers: ['w1'] });
    await crew.ok(['task', 'add', 'Some work', '--id', 'work', '--prompt', 'write work.txt done\ncommit do the work']);
    const server = await crew.serve();
    try {
      await crew.waitForWorker('w1', 'IN_REVIEW', server);
      await crew.ok(['approve', 'w1']);
      rmSync(crew.worktreeOf('w1'), { recursive: true, force: true });
      const merged = await crew.foreman(['merge', 'w1']);
      assert.equal(merged.code, 0, merged.stdout + merged.stderr + server.output());
      assert.equal(crew.git(['show', 'main:work.txt']), 'done');
      assert.equal(crew.task(await crew.status(), 'work').status, 'done');
    } finally {
      await server.stop();
    }
  },
);
