/**
 * Work survives crashes. An agent killed with SIGKILL mid-task, and a `foreman serve` killed with
 * SIGKILL while its agent had uncommitted edits: in both cases the edits end up in a wip ref (or
 * the branch), the attempt is retried and the task finishes, and the main checkout never changes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pollUntil } from '../../support/pollUntil';
import { type CrewRepo, groupAlive, makeCrew, processAlive, reviewUntil } from './crewHarness';

/** The edit is in the wip ref of that attempt, or on the branch. */
function saved(crew: CrewRepo, task: string, attempt: number, branch: string, file: string): string | undefined {
  return crew.tryGit(['show', `refs/foreman/wip/${task}/${attempt}:${file}`]) ?? crew.tryGit(['show', `${branch}:${file}`]);
}

async function recordedAgent(crew: CrewRepo, worker: string, task: string, attempt: number): Promise<number> {
  await crew.waitForLog(task, attempt, /sleep \d+ ms/);
  const record = crew.agentRecord(worker);
  assert.ok(record, `.foreman/agents/${worker}.json`);
  assert.equal(record.taskId, task);
  assert.equal(record.attempt, attempt);
  return record.pid;
}

test('an agent killed with SIGKILL mid-task: its edit is saved, the attempt retried, the task done', { timeout: 60_000 }, async () => {
  const crew = await makeCrew({ workers: ['w1'] });
  await crew.ok(['task', 'add', 'Edit then think', '--id', 'think', '--prompt', 'write f.txt x\nsleep 2500']);
  const before = crew.checkout();
  const server = await crew.serve();
  try {
    const pid = await recordedAgent(crew, 'w1', 'think', 1);
    process.kill(pid, 'SIGKILL');

    const retried = await crew.waitFor(
      'attempt 2',
      (s) => crew.task(s, 'think').attempt === 2 && crew.worker(s, 'w1').state === 'WORKING',
      15_000,
      server,
    );
    assert.equal(crew.worker(retried, 'w1').branch, 'w1/think');
    assert.equal(saved(crew, 'think', 1, 'w1/think', 'f.txt'), 'x');
    assert.match(crew.tryGit(['log', '-1', '--format=%B', 'refs/foreman/wip/think/1']) ?? '', /Foreman-Task: think\nForeman-Attempt: 1/);
    const failed = (await crew.transitions()).find((row) => row.entity_id === 'w1' && row.trigger === 'workFailed');
    assert.match(failed?.reason ?? '', new RegExp(`pid ${pid} was killed by SIGKILL`));
    assert.deepEqual(crew.checkout(), before, 'the main checkout is unchanged while the task runs');

    await reviewUntil(crew, (s) => crew.task(s, 'think').status === 'done', { server, timeoutMs: 20_000 });
    assert.equal(crew.git(['show', 'main:f.txt']), 'x');
    assert.equal(crew.git(['log', '-1', '--format=%(trailers:key=Foreman-Attempt,valueonly)', 'main']).trim(), '2');
  } finally {
    await server.stop();
  }
  assert.equal(crew.checkout().porcelain, before.porcelain, 'the main checkout has no stray changes');
});

test(
  'serve killed with SIGKILL mid-run: the next serve stops the orphaned agent, saves its edits, retries the task',
  { timeout: 60_000 },
  async () => {
    const crew = await makeCrew({ workers: ['w1'] });
    await crew.ok(['task', 'add', 'Edit then think', '--id', 'orphan', '--prompt', 'write g.txt unsaved edit\nsleep 4000']);
    const before = crew.checkout();
    const first = await crew.serve();
    const pid = await recordedAgent(crew, 'w1', 'orphan', 1);
    // Its watchdog would stop it with serve (ownerGone.test.ts): an orphan is left only when both die.
    const watchdog = (crew.agentRecord('w1') as { watchdog?: number } | undefined)?.watchdog;
    assert.ok(watchdog, 'the record names the watchdog');
    process.kill(watchdog, 'SIGKILL');
    await first.kill();
    assert.ok(processAlive(pid), 'the agent outlives its owner and its watchdog (own process group)');

    const second = await crew.serve();
    try {
      assert.match(second.output(), new RegExp(`stopping the orphaned agent of w1 \\(pid ${pid}, orphan attempt 1\\)`));
      await pollUntil(() => !groupAlive(pid), { what: 'the orphaned agent to be stopped', timeoutMs: 5000 });
      assert.equal(saved(crew, 'orphan', 1, 'w1/orphan', 'g.txt'), 'unsaved edit');
      assert.deepEqual(crew.checkout(), before, 'the main checkout is unchanged');

      await crew.waitFor('attempt 2', (s) => crew.task(s, 'orphan').attempt === 2, 15_000, second);
      const recovered = (await crew.transitions()).find((row) => row.entity_id === 'w1' && /owner restarted/.test(row.reason ?? ''));
      assert.ok(recovered, 'the failed attempt says the owner restarted');
      await reviewUntil(crew, (s) => crew.task(s, 'orphan').status === 'done', { server: second, timeoutMs: 20_000 });
      assert.equal(crew.git(['show', 'main:g.txt']), 'unsaved edit');
    } finally {
      await second.stop();
    }
    assert.equal(crew.checkout().porcelain, before.porcelain);
  },
);
