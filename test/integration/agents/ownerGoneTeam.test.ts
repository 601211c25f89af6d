/**
 * No orphans across machines (issue 29, item 5): ownerGone.test.ts on the PostgreSQL store, with a
 * second machine. Machine-a's `foreman serve` is SIGKILLed while its demo agent works: the agent's
 * watchdog stops its whole group within seconds and saves its edit in the attempt's wip ref;
 * machine-b, whose owner lives on, never starts machine-a's worker and takes nothing back while
 * machine-a's lease is live, then takes the task back (attempt 2 on its own worker) once the lease
 * has run out; machine-a's next serve finds none of its agents running. An owner SIGKILLed and
 * started again within its lease finds its agent stopped and requeues the task itself, calmly. Real
 * processes: the serves, the demo agents, the watchdogs, git, a PostgreSQL server.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { SyncPgClient } from '../../../src/infra/pg/syncClient';
import { pollUntil } from '../../support/pollUntil';
import { type TestPostgres, startPostgres } from '../../support/postgres';
import { groupAlive, processAlive } from '../crew/crewHarness';
import { TeamMachines } from '../pg/teamMachines';

const skip = process.platform === 'win32' ? 'process groups are POSIX' : false;
const leaseMs = 3_000;

let postgres: TestPostgres;
before(async () => {
  postgres = await startPostgres();
});
after(async () => {
  await postgres?.stop();
});

/** The server's `owners` rows, read from outside every owner. */
function ownerRows(url: string): Array<{ id: string; host: string; released_at: number | null }> {
  const client = new SyncPgClient(url);
  try {
    return client.query<{ id: string; host: string; released_at: number | null }>('SELECT id, host, released_at FROM owners ORDER BY id')
      .rows;
  } finally {
    client.close();
  }
}

test(
  "a SIGKILLed owner's agent stops on its machine; the other machine waits out its lease and starts none of its agents",
  { skip, timeout: 120_000 },
  async () => {
    const team = new TeamMachines(postgres);
    const settings = { ownerLeaseMs: leaseMs, staleMs: 60_000, deadMs: 120_000 };
    const a = await team.machine('machine-a', ['a1'], settings);
    const b = await team.machine('machine-b', ['b1'], settings);
    await a.addTask('killed', 'Edit then think', 'write g.txt unsaved edit\nsleep 60000');

    const serveA = await a.serve();
    await a.waitForLog('killed', 1, /sleep \d+ ms/);
    const record = a.agentRecord('a1') as { pid: number; watchdog?: number } | undefined;
    assert.ok(record?.watchdog, `the run record names the agent's watchdog: ${JSON.stringify(record)}`);
    const { pid: agent, watchdog } = record;
    assert.ok(groupAlive(agent) && processAlive(watchdog), 'the agent and its watchdog run');

    // Machine-b's owner is up before machine-a's dies: it has a lease of its own and is watching.
    const serveB = await b.serve();
    try {
      await serveA.kill();
      const killedAt = Date.now();

      // While machine-a's lease may still be live, machine-b takes nothing back and starts no agent of a1.
      const early = await b.status();
      if (Date.now() - killedAt < leaseMs) {
        assert.equal(b.worker(early, 'a1').state, 'WORKING', 'a1 still holds its task while its owner’s lease may be live');
        assert.equal(b.task(early, 'killed').attempt, 1);
      }

      await pollUntil(() => !groupAlive(agent) && !processAlive(watchdog), {
        what: `machine-a's agent group ${agent} and its watchdog ${watchdog} to be gone`,
        timeoutMs: 15_000,
      });
      assert.equal(a.tryGit(['show', 'refs/foreman/wip/killed/1:g.txt']), 'unsaved edit', 'the edit is saved in the wip ref');
      const outcomeFile = join(a.root, '.foreman', 'logs', 'killed', 'attempt-1.owner-gone.json');
      assert.ok(existsSync(outcomeFile), 'the watchdog wrote what it did');
      assert.equal((JSON.parse(readFileSync(outcomeFile, 'utf8')) as { cause: string }).cause, 'ownerGone');

      // Once the lease has run out, machine-b takes the task back and runs it on its own worker.
      const moved = await b.waitFor(
        'machine-b to take the task back and run it on b1',
        (status) => b.worker(status, 'b1').state === 'WORKING' && b.task(status, 'killed').attempt === 2,
        30_000,
        serveB,
      );
      assert.equal(b.worker(moved, 'a1').state, 'IDLE', 'a1 was let go, not relaunched on machine-b');
      assert.match(b.worker(moved, 'a1').lastError ?? '', /stopped renewing its lease/);
      assert.ok(Date.now() - killedAt >= leaseMs, 'not before the lease ran out');
      assert.doesNotMatch(serveB.output(), /agent for a1 started/, 'machine-b never started a1’s agent');
      const dead = ownerRows(team.url).find((row) => row.host === 'machine-a');
      assert.notEqual(dead?.released_at, null, "machine-a's owner row says its work was taken back");
    } finally {
      await serveB.stop();
    }

    // Machine-a comes back: none of its agents is running, so there is nothing to reap.
    const back = await a.serve();
    try {
      const status = await a.waitFor('machine-a to be back', (s) => a.worker(s, 'a1').state === 'IDLE', 10_000, back);
      assert.equal(a.worker(status, 'a1').taskId, null);
      assert.doesNotMatch(back.output(), /stopping the orphaned agent/, 'no agent of the killed owner was left running');
    } finally {
      await back.stop();
    }
  },
);

test(
  'a SIGKILLed owner started again within its lease finds its agent stopped and requeues the task itself, calmly',
  { skip, timeout: 90_000 },
  async () => {
    const team = new TeamMachines(postgres);
    // A lease far longer than the restart: the killed owner's row is still live when the next serve starts.
    const a = await team.machine('machine-a', ['a1'], { ownerLeaseMs: 60_000, staleMs: 60_000, deadMs: 120_000 });
    await a.addTask('again', 'Edit then think', 'write g.txt unsaved edit\nsleep 60000');
    const first = await a.serve();
    await a.waitForLog('again', 1, /sleep \d+ ms/);
    const record = a.agentRecord('a1') as { pid: number; watchdog?: number } | undefined;
    assert.ok(record?.watchdog);
    await first.kill();
    await pollUntil(() => !groupAlive(record.pid), { what: `agent group ${record.pid} to be gone`, timeoutMs: 15_000 });
    const killedOwner = ownerRows(team.url).find((row) => row.host === 'machine-a');
    assert.equal(killedOwner?.released_at, null, "the killed owner's lease is still live");

    const next = await a.serve();
    try {
      await a.waitFor(
        'attempt 2 at work on a1',
        (s) => a.task(s, 'again').attempt === 2 && a.worker(s, 'a1').state === 'WORKING',
        20_000,
        next,
      );
      assert.doesNotMatch(next.output(), /stopping the orphaned agent/, 'nothing was left running to reap');
      const transitions = await a.transitions();
      const requeued = transitions.find((row) => row.entity_id === 'a1' && row.trigger === 'workFailed');
      assert.match(
        requeued?.reason ?? '',
        /owner restarted: the agent of a1 \(pid \d+, again attempt 1\) was stopped when its owner went away/,
      );
      assert.ok(!transitions.some((row) => /stopped renewing its lease/.test(row.reason ?? '')), 'no lease was taken for run out');
    } finally {
      await next.stop();
    }
  },
);
