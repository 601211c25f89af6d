/**
 * No agent outlives its owner (issue 27, item 10). A `foreman serve` with an agent mid-task is
 * killed with SIGKILL (nothing of it runs any more: only the agent's watchdog can act) or stopped
 * with SIGTERM (serve stops the agent itself, the same way, before exiting). Either way the agent's
 * whole process group is gone within seconds, its uncommitted file is in the attempt's wip ref, and
 * the next serve, started after the liveness bound has passed, finds no orphan, raises no STALE
 * and queues the task again. Real processes: serve, the demo agent, the watchdog, git.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pollUntil } from '../../support/pollUntil';
import { type CrewRepo, type Server, fastSettings, groupAlive, makeCrew, processAlive } from '../crew/crewHarness';

const skip = process.platform === 'win32' ? 'process groups are POSIX' : false;

interface Running {
  readonly crew: CrewRepo;
  readonly server: Server;
  readonly agent: number;
  readonly watchdog: number;
}

/** A crew whose one worker's agent has written `g.txt` (uncommitted) and then sleeps a minute. */
async function agentMidTask(task: string): Promise<Running> {
  const crew = await makeCrew({ workers: ['w1'] });
  await crew.addTask(task, 'Edit then think', 'write g.txt unsaved edit\nsleep 60000');
  const server = await crew.serve();
  await crew.waitForLog(task, 1, /sleep \d+ ms/);
  const record = crew.agentRecord('w1') as { pid: number; watchdog?: number } | undefined;
  assert.ok(record?.watchdog, `the run record names the agent's watchdog: ${JSON.stringify(record)}`);
  assert.ok(processAlive(record.watchdog), 'the watchdog runs beside the agent');
  return { crew, server, agent: record.pid, watchdog: record.watchdog };
}

/** What the watchdog wrote next to the attempt's log. */
function outcomeOf(crew: CrewRepo, task: string): Record<string, unknown> | undefined {
  const file = join(crew.root, '.foreman', 'logs', task, 'attempt-1.owner-gone.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : undefined;
}

/** The agent's group and its watchdog are gone, and the agent's edit is in the attempt's wip ref. */
async function stoppedAndSaved(running: Running, task: string, cause: string): Promise<void> {
  const { crew, agent, watchdog } = running;
  await pollUntil(() => !groupAlive(agent) && !processAlive(watchdog), {
    what: `agent group ${agent} and watchdog ${watchdog} to be gone`,
    timeoutMs: 15_000,
  });
  assert.equal(crew.tryGit(['show', `refs/foreman/wip/${task}/1:g.txt`]), 'unsaved edit');
  assert.match(crew.git(['log', '-1', '--format=%B', `refs/foreman/wip/${task}/1`]), /the agent was stopped[\s\S]*Foreman-Attempt: 1/);
  assert.deepEqual(
    { cause: outcomeOf(crew, task)?.['cause'], pid: outcomeOf(crew, task)?.['pid'], wipRef: outcomeOf(crew, task)?.['wipRef'] },
    { cause, pid: agent, wipRef: `refs/foreman/wip/${task}/1` },
  );
}

/**
 * The next serve, once the last heartbeat is older than the liveness bound (where a leftover
 * worker used to go STALE at start): no orphan, no STALE, the task queued again and running anew.
 */
async function nextStartRecovers(running: Running, task: string, why: RegExp): Promise<void> {
  const { crew } = running;
  const stoppedAt = Date.now();
  await pollUntil(() => Date.now() - stoppedAt > fastSettings.staleMs, { what: 'the liveness bound to pass', timeoutMs: 10_000 });
  const next = await crew.serve();
  try {
    await crew.waitFor(
      'attempt 2 at work',
      (s) => crew.task(s, task).attempt === 2 && crew.worker(s, 'w1').state === 'WORKING',
      15_000,
      next,
    );
    assert.doesNotMatch(next.output(), /orphan|STALE/, 'the next start raises no alarm');
    const transitions = await crew.transitions();
    const w1 = transitions.filter((row) => row.entity_id === 'w1');
    assert.deepEqual(
      w1.filter((row) => row.to_state === 'STALE'),
      [],
      'no STALE',
    );
    const recovered = w1.find((row) => row.trigger === 'workFailed');
    assert.match(recovered?.reason ?? '', why);
    assert.ok(
      transitions.some((row) => row.entity_id === task && row.to_state === 'queued'),
      'the task was queued again',
    );
    assert.equal(outcomeOf(crew, task), undefined, 'the outcome is taken once');
  } finally {
    await next.stop();
  }
}

test(
  'serve killed with SIGKILL: the watchdog stops the agent, saves its work; the next start requeues it calmly',
  { skip, timeout: 60_000 },
  async () => {
    const running = await agentMidTask('killed');
    await running.server.kill();
    await stoppedAndSaved(running, 'killed', 'ownerGone');
    await nextStartRecovers(
      running,
      'killed',
      /owner restarted: the agent of w1 \(pid \d+, killed attempt 1\) was stopped when its owner went away \(SIGTERM\); its work is saved in refs\/foreman\/wip\/killed\/1/,
    );
  },
);

test('serve stopped with SIGTERM: it stops the agent the same way before it exits', { skip, timeout: 60_000 }, async () => {
  const running = await agentMidTask('stopped');
  // stop() also asserts that serve exited 0 with none of its agents' groups left.
  await running.server.stop();
  await stoppedAndSaved(running, 'stopped', 'ownerStopping');
  await nextStartRecovers(
    running,
    'stopped',
    /owner restarted: the agent of w1 \(pid \d+, stopped attempt 1\) was stopped when its owner stopped \(SIGTERM\)/,
  );
});
