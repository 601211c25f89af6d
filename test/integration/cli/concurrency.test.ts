/**
 * One `foreman serve`, eight CLI loops (one worker each) racing through 96 tasks: every task is
 * claimed exactly once and ends Done. A second owner on the same workspace is impossible.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseRequest } from '../../../src/core/requests';
import { sendRequest } from '../../../src/infra/endpoint';
import { type Server, foreman, foremanJson, makeRepo, startServe } from './harness';

const workerCount = 8;
// Twelve rounds of eight loops racing for the next task: the race is the same every round, and each
// task also goes through a real git start and merge (most of the time this test takes).
const taskCount = 96;
/**
 * Every claim is a separate CLI process: that is where the race is. The uncontested steps after it
 * (start, submit, approve, merge) go through the same endpoint in-process, because a process per
 * step costs about 0.13 s of CPU and 1,000 of them take two minutes on a two-core machine.
 * FOREMAN_TEST_FULL_LOOP=1 runs every step as a CLI process.
 */
const fullLoop = process.env['FOREMAN_TEST_FULL_LOOP'] === '1';

/** Sends one request straight to the owner's endpoint, as the CLI does, but without a process per call. */
async function direct(repo: string, command: string, args: Record<string, unknown>): Promise<unknown> {
  const parsed = parseRequest({ command, args, actor: 'test' });
  assert.ok(parsed.ok, parsed.ok ? '' : parsed.message);
  const sent = await sendRequest(join(repo, '.foreman'), parsed.request, { timeoutMs: 30_000 });
  assert.equal(sent.kind, 'response');
  assert.ok(sent.kind === 'response' && sent.response.result.ok, JSON.stringify(sent));
  return sent.response.result.value;
}

/** One worker's loop: claim, start, submit, approve, merge, until nothing is left to claim. */
async function workLoop(repo: string, worker: string): Promise<string[]> {
  const done: string[] = [];
  for (;;) {
    const claim = await foreman(repo, ['claim', worker, '--json']);
    let task: string;
    if (claim.code === 0) {
      const claimed = JSON.parse(claim.stdout) as { id: string } | null;
      if (claimed === null) return done;
      task = claimed.id;
    } else {
      // The owner's dispatcher may have assigned this worker already; then it carries on with that task.
      const error = (JSON.parse(claim.stdout) as { error: { code: string; details?: { from?: string } } }).error;
      assert.equal(claim.code, 3, claim.stdout);
      assert.equal(error.code, 'workerBusy', claim.stdout);
      const status = (await direct(repo, 'status', {})) as { workers: Array<{ id: string; taskId: string | null }> };
      task = status.workers.find((entry) => entry.id === worker)!.taskId!;
    }
    for (const step of ['start', 'submit', 'approve', 'merge']) {
      if (!fullLoop) {
        await direct(repo, step, { worker });
        continue;
      }
      const run = await foreman(repo, [step, worker]);
      assert.equal(run.code, 0, `${step} ${worker} (${task}): ${run.stdout}${run.stderr}`);
    }
    done.push(task);
  }
}

describe('foreman CLI: concurrency through one owner', { timeout: 420_000 }, () => {
  it(`${workerCount} CLI loops share ${taskCount} tasks; each is claimed exactly once`, async () => {
    const repo = makeRepo();
    assert.equal((await foreman(repo, ['init'])).code, 0);
    let server: Server | undefined;
    try {
      server = await startServe(repo);
      const workers = Array.from({ length: workerCount }, (_, index) => `w${index + 1}`);
      // Tasks first, workers after: the dispatcher has nobody to hand work to until the loops start.
      for (let start = 0; start < taskCount; start += 50) {
        await Promise.all(
          Array.from({ length: Math.min(50, taskCount - start) }, (_, offset) =>
            direct(repo, 'task.add', { title: `Task ${start + offset}`, id: `t-${start + offset}` }),
          ),
        );
      }
      for (const worker of workers) await direct(repo, 'worker.add', { id: worker });

      const finished = (await Promise.all(workers.map((worker) => workLoop(repo, worker)))).flat();
      assert.equal(finished.length, taskCount);
      assert.equal(new Set(finished).size, taskCount);

      const second = await foreman(repo, ['serve', '--no-agents']);
      assert.equal(second.code, 3, second.stdout + second.stderr);
      assert.match(second.stderr, new RegExp(`pid ${server.pid} \\(serve\\)`));

      const status = await foremanJson<{ tasks: Array<{ id: string; status: string; attempt: number }> }>(repo, ['status', '--all']);
      assert.equal(status.tasks.length, taskCount);
      assert.ok(status.tasks.every((task) => task.status === 'done' && task.attempt === 1));
      const transitions = await foremanJson<Array<{ entity_id: string; trigger: string }>>(repo, ['transitions', '--limit', '100000']);
      const claims = new Map<string, number>();
      for (const event of transitions) if (event.trigger === 'claim') claims.set(event.entity_id, (claims.get(event.entity_id) ?? 0) + 1);
      assert.equal(claims.size, taskCount);
      assert.ok([...claims.values()].every((count) => count === 1));
    } finally {
      assert.equal(await server?.stop(), 0);
    }
  });
});
