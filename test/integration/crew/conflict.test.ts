/**
 * Two tasks change the same line. The first merges; the second merge is refused cleanly (exit 3,
 * naming the file), main is untouched, and the worker goes back to WORKING with the conflict as
 * its note. The demo agent, relaunched with that note, rebases keeping both sides, reaches review
 * again, and the merge then lands both lines.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeCrew } from './crewHarness';

test('a merge conflict is refused cleanly, sent back to the agent, resolved, then merged', { timeout: 60_000 }, async () => {
  const crew = await makeCrew({ workers: ['w1', 'w2'], files: { 'shared.txt': 'original\nsecond line\n' } });
  await crew.ok([
    'task',
    'add',
    'Edit A',
    '--id',
    'edit-a',
    '--manual',
    '--prompt',
    'replace-line shared.txt 1 from-a\ncommit edit from a',
  ]);
  await crew.ok([
    'task',
    'add',
    'Edit B',
    '--id',
    'edit-b',
    '--manual',
    '--prompt',
    'replace-line shared.txt 1 from-b\ncommit edit from b',
  ]);
  await crew.ok(['assign', 'w1', 'edit-a']);
  await crew.ok(['assign', 'w2', 'edit-b']);
  const userCheckout = crew.checkout();

  const server = await crew.serve();
  try {
    await crew.waitFor(
      'both in review',
      (s) => crew.worker(s, 'w1').state === 'IN_REVIEW' && crew.worker(s, 'w2').state === 'IN_REVIEW',
      20_000,
      server,
    );
    await crew.ok(['approve', 'w1']);
    await crew.ok(['merge', 'w1']);
    const mainAfterA = crew.git(['rev-parse', 'main']);
    assert.equal(crew.git(['show', 'main:shared.txt']), 'from-a\nsecond line');

    await crew.ok(['approve', 'w2']);
    const refused = await crew.foreman(['merge', 'w2', '--json']);
    assert.equal(refused.code, 3, refused.stdout + refused.stderr);
    const error = (JSON.parse(refused.stdout) as { error: { code: string; message: string; details: { files: string[] } } }).error;
    assert.equal(error.code, 'mergeConflict');
    assert.match(error.message, /shared\.txt/);
    assert.deepEqual(error.details.files, ['shared.txt']);
    assert.equal(crew.git(['rev-parse', 'main']), mainAfterA, 'main is unchanged by the refused merge');
    assert.equal(crew.git(['status', '--porcelain', '--untracked-files=all']), '', 'the main checkout is clean');

    // Back to WORKING with the conflict recorded, relaunched, and in review again.
    const back = (await crew.transitions()).find((row) => row.entity_id === 'w2' && row.trigger === 'mergeConflict');
    assert.ok(back, 'w2 moved on mergeConflict');
    assert.deepEqual([back.from_state, back.to_state], ['APPROVED', 'WORKING']);
    assert.deepEqual(back.metadata?.['files'], ['shared.txt']);
    const again = await crew.waitForWorker('w2', 'IN_REVIEW', server);
    assert.equal(crew.worker(again, 'w2').note, 'Merge conflict in: shared.txt');
    assert.equal(crew.worker(again, 'w2').attempt, 1, 'a conflict is not a failed attempt');
    assert.match(crew.attemptLog('edit-b', 1), /conflict in shared\.txt: kept both sides/);

    await crew.ok(['approve', 'w2']);
    await crew.ok(['merge', 'w2']);
    const done = await crew.status();
    assert.equal(crew.task(done, 'edit-b').status, 'done');
    assert.equal(crew.git(['show', 'main:shared.txt']), 'from-a\nfrom-b\nsecond line');
    const subjects = crew.git(['log', '--format=%s', 'main']).split('\n');
    assert.deepEqual(subjects, ['edit from b', 'edit from a', 'initial']);
  } finally {
    await server.stop();
  }
  // The user's checkout moved only by the two merges asked for (fast-forwards of the checked-out main).
  const after = crew.checkout();
  assert.equal(after.porcelain, userCheckout.porcelain);
  assert.equal(after.branch, 'main');
  assert.equal(crew.git(['rev-list', '--count', `${userCheckout.head}..${after.head}`]), '2');
});
