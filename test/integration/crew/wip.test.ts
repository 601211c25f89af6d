/**
 * `foreman wip list|restore`: the way back to work Foreman set aside. A failed attempt's leftovers
 * and what was written after the failure are listed, restored into the worker's worktree as
 * uncommitted changes, and a restore never overwrites newer edits or lands in another repository.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { makeCrew } from './crewHarness';

interface Snapshot {
  ref: string;
  taskId: string;
  attempt: number;
  sha: string;
  files: string[];
}

test(
  'wip list shows a reset worker’s saved work and wip restore puts it back, refusing a dirty or foreign target',
  { timeout: 60_000 },
  async () => {
    const crew = await makeCrew({ workers: ['w1'] });
    await crew.addTask('doomed', 'Doomed', 'write partial.txt half done\nfail on purpose', '--max-attempts', '1');
    const server = await crew.serve();
    try {
      await crew.waitForWorker('w1', 'FAILED', server);
      writeFileSync(join(crew.worktreeOf('w1'), 'after-failure.txt'), 'investigating\n');
      await crew.ok(['reset', 'w1']);
    } finally {
      await server.stop();
    }
    const before = crew.checkout();

    const listed = await crew.json<Snapshot[]>(['wip', 'list']);
    assert.equal(listed.length, 1);
    assert.equal(listed[0]!.ref, 'refs/foreman/wip/doomed/1');
    assert.deepEqual([...listed[0]!.files].sort(), ['after-failure.txt', 'partial.txt']);
    assert.match(await crew.ok(['wip', 'list']), /doomed\s+1\s+.*after-failure\.txt, partial\.txt/);
    assert.deepEqual(await crew.json<Snapshot[]>(['wip', 'list', '--task', 'other']), []);

    // Reset leaves the worktree as it was; throw the files away by hand, then bring them back.
    const worktree = crew.worktreeOf('w1');
    crew.git(['clean', '--force', '-d', '--', '.'], worktree);
    assert.equal(crew.git(['status', '--porcelain'], worktree), '');
    const restored = await crew.json<{ ref: string; files: string[] }>(['wip', 'restore', 'doomed', '--into', worktree]);
    assert.equal(restored.ref, 'refs/foreman/wip/doomed/1');
    assert.equal(readFileSync(join(worktree, 'partial.txt'), 'utf8').trimEnd(), 'half done');
    assert.equal(readFileSync(join(worktree, 'after-failure.txt'), 'utf8'), 'investigating\n');

    // Restoring again would overwrite those (now newer) edits: refused, nothing changes.
    const again = await crew.foreman(['wip', 'restore', 'doomed', '--into', worktree]);
    assert.equal(again.code, 3, again.stderr);
    assert.match(again.stderr, /uncommitted changes/);
    assert.equal(readFileSync(join(worktree, 'after-failure.txt'), 'utf8'), 'investigating\n');

    // Wrong input names what was wrong.
    const badId = await crew.foreman(['wip', 'restore', '$(touch /tmp/pwned)']);
    assert.equal(badId.code, 2);
    assert.match(badId.stderr, /task: .* is not a task id/);
    const missing = await crew.foreman(['wip', 'restore', 'doomed', '--attempt', '7', '--into', worktree]);
    assert.equal(missing.code, 4);
    assert.match(missing.stderr, /has attempts 1/);
    const foreign = await crew.foreman(['wip', 'restore', 'doomed', '--into', mkdtempSync(join(tmpdir(), 'foreman-foreign-'))]);
    assert.equal(foreign.code, 2);
    assert.match(foreign.stderr, /--into: .* is not a worktree of/);

    assert.deepEqual(crew.checkout(), before, 'the main checkout is unchanged');
  },
);
