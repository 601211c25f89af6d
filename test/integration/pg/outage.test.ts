/**
 * An outage is not a death (issue 29, item 2), on a real PostgreSQL server: two machines' `foreman
 * serve` with demo agents at work, and a third owner (an engine in a child process) holding a task.
 * The server goes away for twice the lease, and the third owner is SIGKILLed meanwhile. When the
 * server is back, both serves renew before anyone judges a lease: their agents work on, under their
 * first attempt, and nothing of theirs is taken back; the dead owner's task is taken back, but only
 * a whole lease after the server came back (the grace its owner would have had to renew).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { SyncPgClient } from '../../../src/infra/pg/syncClient';
import { pollUntil } from '../../support/pollUntil';
import { type TestPostgres, startPostgres } from '../../support/postgres';
import type { Server } from '../crew/crewHarness';
import { TeamMachines } from './teamMachines';

const leaseMs = 3_000;
let postgres: TestPostgres;
const children: ChildProcess[] = [];

before(async () => {
  postgres = await startPostgres();
});
after(async () => {
  for (const child of children) child.kill('SIGKILL');
  await postgres?.stop();
});

function sql<T extends object>(url: string, text: string): T[] {
  const client = new SyncPgClient(url);
  try {
    return client.query<T>(text).rows;
  } finally {
    client.close();
  }
}

/** An engine-only owner in a child process (ownerHoldChild.ts) whose one worker holds a task; resolves once it does. */
async function holdingOwner(url: string, id: string, host: string, prefix: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(__dirname, 'ownerHoldChild.ts'), url, '1', String(leaseMs), id, host, prefix],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('\n')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`owner ${id} exited early (${String(code)})`)));
  });
  return child;
}

/** Waits for `pattern` in a serve's output (its log lines). */
function said(server: Server, pattern: RegExp, what: string, timeoutMs = 20_000): Promise<unknown> {
  return pollUntil(() => pattern.test(server.output()), { what, timeoutMs, intervalMs: 100, detail: () => server.output() });
}

test(
  'the server away for twice the lease: every agent works on under its first attempt; only a dead owner’s work is taken back',
  { timeout: 180_000 },
  async () => {
    const team = new TeamMachines(postgres);
    // Liveness far beyond the outage: only the leases are under test.
    const settings = { ownerLeaseMs: leaseMs, warnMs: 60_000, staleMs: 120_000, deadMs: 240_000 };
    const a = await team.machine('machine-a', ['a1'], settings);
    const b = await team.machine('machine-b', ['b1'], settings);
    const tasks = ['t1', 't2', 't3'];
    for (const id of tasks) await a.addTask(id, `Task ${id}`, `write work/${id}.txt ${id}\nsleep 30000\ncommit work ${id}`);

    // The owner that will die holds the first task; the two serves take the others.
    const doomed = await holdingOwner(team.url, 'owner-c', 'machine-c', 'c');
    const serveA = await a.serve();
    const serveB = await b.serve();
    try {
      const working = await a.waitFor(
        'a1 and b1 at work',
        (s) => a.worker(s, 'a1').state === 'WORKING' && a.worker(s, 'b1').state === 'WORKING',
        30_000,
        serveA,
      );
      const held = { a1: a.worker(working, 'a1').taskId!, b1: a.worker(working, 'b1').taskId!, c1: a.worker(working, 'c1').taskId! };
      await a.waitForLog(held.a1, 1, /sleep \d+ ms/);
      await b.waitForLog(held.b1, 1, /sleep \d+ ms/);
      const agents = { a1: a.agentRecord('a1')?.pid, b1: b.agentRecord('b1')?.pid };

      await postgres.stopServer();
      const downAt = Date.now();
      doomed.kill('SIGKILL');
      // Each live owner notices, says so once, and keeps its agent.
      await said(serveA, /cannot renew its lease/, 'machine-a to say it cannot renew its lease');
      await said(serveB, /cannot renew its lease/, 'machine-b to say it cannot renew its lease');
      await pollUntil(() => Date.now() - downAt >= 2 * leaseMs, {
        what: 'twice the lease to pass with the server away',
        timeoutMs: 20_000,
      });
      await postgres.start();
      const [server] = sql<{ started_ms: number }>(
        team.url,
        'SELECT (extract(epoch from pg_postmaster_start_time()) * 1000)::bigint AS started_ms',
      );
      assert.ok(server);

      await said(serveA, /reaches the store again after/, 'machine-a to renew again');
      await said(serveB, /reaches the store again after/, 'machine-b to renew again');
      // The dead owner's lease is taken for run out only a lease after the server came back.
      const released = await pollUntil(
        () =>
          sql<{ released_at: number | null }>(team.url, `SELECT released_at FROM owners WHERE id = 'owner-c'`)[0]?.released_at ?? undefined,
        { what: "owner-c's work to be taken back", timeoutMs: 20_000 },
      );
      assert.ok(released - server.started_ms >= leaseMs, `taken back ${released - server.started_ms} ms after the server started`);
      const back = await a.status();
      assert.equal(a.worker(back, 'c1').state, 'IDLE');
      assert.match(a.worker(back, 'c1').lastError ?? '', /owner owner-c on machine-c stopped renewing its lease/);
      assert.deepEqual([a.task(back, held.c1).status, a.task(back, held.c1).attempt], ['queued', 1], 'queued again for a new attempt');

      // The live owners' agents finish the work they had, under attempt 1, and hand it in.
      const done = await a.waitFor(
        'a1 and b1 to hand their work in',
        (s) => a.worker(s, 'a1').state === 'IN_REVIEW' && a.worker(s, 'b1').state === 'IN_REVIEW',
        60_000,
        serveB,
      );
      for (const worker of ['a1', 'b1'] as const) {
        assert.equal(a.worker(done, worker).taskId, held[worker]);
        assert.equal(a.task(done, held[worker]).attempt, 1, `${worker}'s task is still on its first attempt`);
      }
      assert.deepEqual(
        serveA.agentPids().concat(serveB.agentPids()),
        [agents.a1, agents.b1],
        'one agent each, launched once: the ones that ran through the outage',
      );
      const takenBack = sql<{ entity_id: string }>(
        team.url,
        `SELECT entity_id FROM transitions WHERE entity_type = 'worker' AND reason LIKE '%stopped renewing its lease%'`,
      );
      assert.deepEqual(
        takenBack.map((row) => row.entity_id),
        ['c1'],
        'only the dead owner’s worker was taken back',
      );
      for (const output of [serveA.output(), serveB.output()]) assert.doesNotMatch(output, /had lost its lease/);
    } finally {
      await serveA.stop();
      await serveB.stop();
    }
  },
);
