/**
 * Routing (ARCHITECTURE §2): one-shot calls queue for the lock rather than fail; a dead owner's
 * lock and endpoint are taken over; an agent outside the repository reaches the owner through
 * FOREMAN_ENDPOINT and FOREMAN_TOKEN.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readAnnouncement } from '../../../src/infra/endpoint';
import { type Server, foreman, foremanJson, makeRepo, startServe, tempFolder } from './harness';

describe('foreman CLI: routing', { timeout: 120_000 }, () => {
  it('lets concurrent one-shot calls take turns with the lock, losing nothing', async () => {
    const repo = makeRepo();
    assert.equal((await foreman(repo, ['init'])).code, 0);
    const runs = await Promise.all(
      Array.from({ length: 8 }, (_, index) => foreman(repo, ['task', 'add', `Parallel ${index}`, '--id', `p-${index}`])),
    );
    for (const run of runs) assert.equal(run.code, 0, run.stderr);
    // FOREMAN_DIR stands in for --dir, from any folder.
    const status = await foremanJson<{ tasks: unknown[] }>(tempFolder(), ['status'], { env: { FOREMAN_DIR: repo } });
    assert.equal(status.tasks.length, 8);
  });

  it('takes over from an owner that was killed, and a new owner can start', async () => {
    const repo = makeRepo();
    assert.equal((await foreman(repo, ['init'])).code, 0);
    const killed = await startServe(repo);
    assert.equal((await foreman(repo, ['worker', 'add', 'w1'])).code, 0);
    killed.child.kill('SIGKILL');
    await new Promise((resolve) => killed.child.once('close', resolve));
    assert.ok(existsSync(join(repo, '.foreman', 'endpoint.json')), 'a killed owner leaves its announcement behind');

    const status = await foremanJson<{ workers: Array<{ id: string }> }>(repo, ['status']);
    assert.deepEqual(
      status.workers.map((worker) => worker.id),
      ['w1'],
    );
    let server: Server | undefined;
    try {
      server = await startServe(repo);
      assert.equal(readAnnouncement(join(repo, '.foreman'))!.info.pid, server.pid);
      assert.equal((await foreman(repo, ['worker', 'add', 'w2'])).code, 0);
    } finally {
      assert.equal(await server?.stop(), 0);
    }
    assert.ok(!existsSync(join(repo, '.foreman', 'endpoint.json')), 'a clean stop withdraws the announcement');
    assert.ok(!existsSync(join(repo, '.foreman', 'owner.lock')), 'a clean stop releases the lock');
  });

  it('reaches the owner from outside the repository with FOREMAN_ENDPOINT and FOREMAN_TOKEN', async () => {
    const repo = makeRepo();
    assert.equal((await foreman(repo, ['init'])).code, 0);
    let server: Server | undefined;
    try {
      server = await startServe(repo);
      const announced = readAnnouncement(join(repo, '.foreman'))!;
      const env = { FOREMAN_ENDPOINT: announced.info.socketPath, FOREMAN_TOKEN: announced.token, FOREMAN_WORKER_ID: 'agent-1' };
      const outside = tempFolder();
      const added = await foreman(outside, ['task', 'add', 'From an agent', '--id', 'from-agent'], { env });
      assert.equal(added.code, 0, added.stderr);
      const history = await foremanJson<Array<{ actor: string }>>(repo, ['transitions', '--entity', 'from-agent']);
      assert.ok(history.length > 0 && history.every((event) => event.actor === 'agent-1'));
      const wrong = await foreman(outside, ['status'], { env: { ...env, FOREMAN_TOKEN: 'nope' } });
      assert.equal(wrong.code, 2);
      assert.match(wrong.stderr, /bad endpoint token/);
    } finally {
      assert.equal(await server?.stop(), 0);
    }
  });
});
