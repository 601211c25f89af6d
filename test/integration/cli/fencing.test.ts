/**
 * Fencing (ARCHITECTURE §3): a heartbeat or submit carrying an older attempt is refused (exit 3)
 * and logged as a rejection. Idempotency (seed 004 §3): the same request id applies once and
 * answers the same both times.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { foreman, foremanJson, makeRepo, startServe } from './harness';

async function ok(repo: string, args: string[], env?: Record<string, string>): Promise<string> {
  const run = await foreman(repo, args, env ? { env } : {});
  assert.equal(run.code, 0, `foreman ${args.join(' ')}: ${run.stdout}${run.stderr}`);
  return run.stdout;
}

/** A worker that failed attempt 1 and runs attempt 2: late words of attempt 1 are refused and logged. */
async function fencingSteps(repo: string): Promise<void> {
  await ok(repo, ['worker', 'add', 'w']);
  // Manual: the owner's dispatcher leaves it to the assignments below.
  await ok(repo, ['task', 'add', 'Flaky', '--id', 'flaky', '--max-attempts', '3', '--manual']);
  await ok(repo, ['assign', 'w', 'flaky']);
  await ok(repo, ['start', 'w']);
  // An agent's own identity comes from its environment: worker and attempt both default from it.
  const agent = { FOREMAN_WORKER_ID: 'w', FOREMAN_ATTEMPT: '1' };
  await ok(repo, ['heartbeat'], agent);
  await ok(repo, ['fail', '--reason', 'tests broke'], agent);
  await ok(repo, ['assign', 'w', 'flaky']);
  const worker = (await foremanJson<{ workers: Array<{ id: string; attempt: number; state: string }> }>(repo, ['status'])).workers[0]!;
  assert.deepEqual({ attempt: worker.attempt, state: worker.state }, { attempt: 2, state: 'ASSIGNED' });
  await ok(repo, ['start', 'w']);

  const late = await foreman(repo, ['heartbeat', 'w', '--attempt', '1']);
  assert.equal(late.code, 3, late.stdout + late.stderr);
  assert.match(late.stderr, /attempt/);
  const lateSubmit = await foreman(repo, ['submit'], { env: agent });
  assert.equal(lateSubmit.code, 3, lateSubmit.stdout + lateSubmit.stderr);
  const metrics = await foremanJson<{ rejected: { total: number; byCode: Record<string, number> } }>(repo, ['metrics']);
  assert.equal(metrics.rejected.total, 2, JSON.stringify(metrics.rejected));

  await ok(repo, ['heartbeat', '--status', 'working'], { FOREMAN_WORKER_ID: 'w', FOREMAN_ATTEMPT: '2' });
  await ok(repo, ['submit', '--summary', 'fixed'], { FOREMAN_WORKER_ID: 'w', FOREMAN_ATTEMPT: '2' });
  const history = await foremanJson<Array<{ trigger: string; actor: string }>>(repo, ['transitions', '--entity', 'w']);
  assert.deepEqual(history.at(-1), { ...history.at(-1), trigger: 'submit', actor: 'w' });
}

describe('foreman CLI: fencing and idempotency', () => {
  // Through an owner (its agents off: the test plays the agent), so each call is the thin client's.
  it('refuses and logs a heartbeat or submit from an older attempt', { timeout: 60_000 }, async () => {
    const repo = makeRepo();
    await ok(repo, ['init']);
    const server = await startServe(repo);
    try {
      await fencingSteps(repo);
    } finally {
      assert.equal(await server.stop(), 0, server.output());
    }
  });

  // One-shot calls, each owning the workspace in turn: the key must outlive the process that stored it.
  it('applies the same request id once and answers the same both times', { timeout: 60_000 }, async () => {
    const repo = makeRepo();
    await ok(repo, ['init']);
    const first = await foreman(repo, ['task', 'add', 'Once only', '--request-id', 'r1', '--json']);
    const second = await foreman(repo, ['task', 'add', 'Once only', '--request-id', 'r1', '--json']);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(second.stdout, first.stdout);
    const human = await foreman(repo, ['task', 'add', 'Once only', '--request-id', 'r1']);
    assert.match(human.stdout, new RegExp(`task ${(JSON.parse(first.stdout) as { id: string }).id}: queued "Once only"`));
    const status = await foremanJson<{ tasks: unknown[] }>(repo, ['status']);
    assert.equal(status.tasks.length, 1);
    const metrics = await foremanJson<{ idempotency: { hits: number } }>(repo, ['metrics']);
    assert.equal(metrics.idempotency.hits, 2);
    // The same id for a different command is a mistake, not a replay.
    const reused = await foreman(repo, ['worker', 'add', 'w9', '--request-id', 'r1']);
    assert.equal(reused.code, 2, reused.stdout + reused.stderr);
  });
});
