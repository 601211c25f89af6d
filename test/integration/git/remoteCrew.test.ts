/**
 * The `remote` setting end to end (issue 14 item 3): a real `foreman serve` with the demo agent in
 * a clone of a bare remote. A submitted branch is pushed there by the crew, the merge lands on the
 * remote's base as a fast-forward, and a push the remote refuses is said on the worker.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type CrewRepo, makeCrew, sandboxPath } from '../crew/crewHarness';
import { pollUntil } from '../../support/pollUntil';
import { onlyFastForwards } from './remoteFixtures';

/** Gives the crew's repository a bare remote named `origin`, holding its `main`. */
function addBareRemote(crew: CrewRepo, name: string): string {
  const remote = sandboxPath(`${name}.git`);
  crew.git(['clone', '--quiet', '--bare', crew.root, remote]);
  crew.git(['config', 'core.logAllRefUpdates', 'always'], remote);
  crew.git(['remote', 'add', 'origin', remote]);
  crew.git(['fetch', '--quiet', 'origin']);
  return remote;
}

test('a submitted branch is pushed to the remote, and the merge lands on the remote`s main', { timeout: 60_000 }, async () => {
  const crew = await makeCrew({ workers: ['w1'], settings: { remote: 'origin' } });
  const remote = addBareRemote(crew, 'pushed');
  await crew.addTask('greet', 'Greeting', 'write hello.txt hello\ncommit first draft');
  const server = await crew.serve();
  try {
    await crew.waitForWorker('w1', 'IN_REVIEW', server);
    const branch = crew.git(['rev-parse', 'w1/greet']);
    // The push follows the submit, in the worker's queue.
    await pollUntil(() => crew.tryGit(['rev-parse', 'refs/heads/w1/greet'], remote) === branch, {
      what: 'w1/greet on the remote',
      timeoutMs: 15_000,
      intervalMs: 100,
      detail: () => server.output(),
    });
    await crew.ok(['approve', 'w1']);
    await crew.ok(['merge', 'w1']);
    await crew.waitFor('greet done', (status) => crew.task(status, 'greet').status === 'done', 15_000, server);
  } finally {
    await server.stop();
  }
  assert.equal(crew.git(['show', 'main:hello.txt'], remote), 'hello');
  assert.equal(crew.git(['rev-parse', 'main'], remote), crew.git(['rev-parse', 'main']));
  assert.equal(await onlyFastForwards(remote), true);
});

test('a push the remote refuses is said on the worker; the work stays and the review goes on', { timeout: 60_000 }, async () => {
  const crew = await makeCrew({ workers: ['w1'], settings: { remote: 'origin' } });
  const remote = addBareRemote(crew, 'refusing');
  // The remote already has a w1/greet that the crew's branch will not descend from (made elsewhere).
  const identity = ['-c', 'user.name=Elsewhere', '-c', 'user.email=elsewhere@example.com'];
  const theirs = crew.git([...identity, 'commit-tree', '-m', 'someone else', 'main^{tree}'], remote);
  crew.git(['update-ref', 'refs/heads/w1/greet', theirs], remote);
  await crew.addTask('greet', 'Greeting', 'write hello.txt hello\ncommit first draft');
  const server = await crew.serve();
  try {
    const status = await crew.waitFor(
      'the refused push on w1',
      (current) => crew.worker(current, 'w1').state === 'IN_REVIEW' && crew.worker(current, 'w1').lastError !== null,
      20_000,
      server,
    );
    assert.match(crew.worker(status, 'w1').lastError ?? '', /push of w1\/greet failed: .*not a fast-forward/);
    assert.equal(crew.git(['show', 'w1/greet:hello.txt']), 'hello');
    assert.equal(crew.git(['rev-parse', 'refs/heads/w1/greet'], remote), theirs, 'nothing was forced');
  } finally {
    await server.stop();
  }
});
