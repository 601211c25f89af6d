/**
 * Seeing the team (issue 29) on a real PostgreSQL, through the real CLI: two clones standing for
 * machine-a and machine-b, each with its own `foreman serve` and a demo agent worker. `status`
 * (JSON and words) and `worker list` show each owner with its host, lease age, alive or gone since;
 * when machine-a's owner is SIGKILLed, machine-b's status shows it gone and flags its worker; the
 * NOW column says the agent runs, not "setting up the worktree"; `init` naming the store in use
 * while serving exits 0 saying nothing changed; a clean stop removes the owner's row; a lost
 * listener says so once prefixed ("foreman serve: lost the notifications …").
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SyncPgClient } from '../../../src/infra/pg/syncClient';
import { pollUntil } from '../../support/pollUntil';
import { type TestPostgres, startPostgres } from '../../support/postgres';
import { CrewRepo, type Server, fastSettings, gitIn, sandboxPath } from '../crew/crewHarness';

interface OwnerJson {
  readonly id: string;
  readonly host: string;
  readonly pid: number | null;
  readonly leaseAgeMs: number;
  readonly alive: boolean;
  readonly goneSince: number | null;
  readonly workTakenBackAt: number | null;
}
interface WorkerJson {
  readonly id: string;
  readonly state: string;
  readonly host: string | null;
  readonly activity: { readonly text: string } | null;
  readonly hostOwner?: { readonly ownerId: string | null; readonly alive: boolean; readonly goneSince: number | null };
}
interface StatusJson {
  readonly owners: OwnerJson[];
  readonly workers: WorkerJson[];
}

const leaseMs = 3000;
let postgres: TestPostgres;
before(async () => {
  postgres = await startPostgres();
});
after(async () => {
  await postgres?.stop();
});

function storeUrl(): string {
  const url = new URL(postgres.url);
  url.password = '';
  return url.toString();
}

function ownerRows(): Array<{ id: string; host: string }> {
  const client = new SyncPgClient(postgres.url);
  try {
    return client.query<{ id: string; host: string }>('SELECT id, host FROM owners ORDER BY id').rows;
  } finally {
    client.close();
  }
}

let remote = '';
/** A clone of the shared remote on `host`, on the shared store, with `workers` of the demo agent. */
async function machine(host: string, workers: readonly string[]): Promise<CrewRepo> {
  const folder = sandboxPath(host);
  mkdirSync(folder);
  const root = join(folder, 'repo');
  gitIn(folder, ['clone', '--quiet', remote, root]);
  const clone = new CrewRepo(root, join(folder, 'worktrees'), { FOREMAN_HOST: host, PGPASSWORD: postgres.password });
  await clone.ok(['init', '--store', storeUrl()]);
  const settings = { ...fastSettings, worktreeRoot: clone.worktreeRoot, remote: 'origin', ownerLeaseMs: leaseMs };
  writeFileSync(join(root, '.foreman', 'settings.json'), JSON.stringify(settings, null, 2));
  for (const id of workers) await clone.ok(['worker', 'add', id, '--agent', 'demo']);
  return clone;
}

async function statusOf(clone: CrewRepo): Promise<StatusJson> {
  return clone.json<StatusJson>(['status']);
}

async function waitStatus(clone: CrewRepo, what: string, ready: (status: StatusJson) => boolean, server?: Server): Promise<StatusJson> {
  let last: StatusJson | undefined;
  return pollUntil(
    async () => {
      last = await statusOf(clone);
      return ready(last) ? last : undefined;
    },
    { what, timeoutMs: 30_000, intervalMs: 200, detail: () => `last: ${JSON.stringify(last)}\n${server?.output() ?? ''}` },
  );
}

const worker = (status: StatusJson, id: string): WorkerJson => {
  const found = status.workers.find((w) => w.id === id);
  assert.ok(found, `worker ${id}`);
  return found;
};

describe('seeing the team on PostgreSQL', () => {
  let a: CrewRepo;
  let b: CrewRepo;
  let serveB: Server;

  before(async () => {
    const seed = sandboxPath('seed');
    mkdirSync(seed);
    gitIn(seed, ['init', '--quiet', '-b', 'main']);
    gitIn(seed, ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', 'commit', '--quiet', '--allow-empty', '-m', 'initial']);
    remote = sandboxPath('remote.git');
    gitIn(sandboxPath(''), ['clone', '--quiet', '--bare', seed, remote]);
    a = await machine('machine-a', ['a1']);
    b = await machine('machine-b', ['b1']);
  });

  it("status shows each owner and the agent at work; a killed machine's worker is flagged", { timeout: 120_000 }, async () => {
    // a1 holds a long task before its owner starts; machine-a's owner launches its agent.
    await a.ok(['task', 'add', 'Long', '--id', 'long', '--prompt', 'write long.txt started\nsleep 600000\ncommit long']);
    await a.ok(['assign', 'a1', 'long']);
    serveB = await b.serve();
    const serveA = await a.serve();
    const working = await waitStatus(
      b,
      'a1 to work, its agent started',
      (status) => worker(status, 'a1').state === 'WORKING' && /^(started |Edit: long\.txt)/.test(worker(status, 'a1').activity?.text ?? ''),
      serveA,
    );
    assert.doesNotMatch(worker(working, 'a1').activity?.text ?? '', /setting up the worktree/);

    const both = await statusOf(b);
    assert.deepEqual(
      both.owners.map((owner) => [owner.host, owner.alive, owner.goneSince]),
      [
        ['machine-a', true, null],
        ['machine-b', true, null],
      ],
    );
    assert.equal(both.owners.find((owner) => owner.host === 'machine-a')?.pid, serveA.pid);
    for (const owner of both.owners) assert.ok(owner.leaseAgeMs >= 0 && owner.leaseAgeMs < leaseMs, `lease age ${owner.leaseAgeMs}`);
    assert.deepEqual(worker(both, 'a1').hostOwner?.alive, true);
    const words = await b.ok(['status']);
    assert.match(words, /^OWNER\s+HOST\s+PID\s+LEASE\s+STATE$/m);
    assert.match(words, new RegExp(`^machine-a-${serveA.pid}-\\w+\\s+machine-a\\s+${serveA.pid}\\s+renewed \\d+s ago\\s+alive$`, 'm'));
    // The agent's own words: its start, or its first edit once it has written (the demo reports edits as tools do).
    assert.match(words, /^a1\s+machine-a\s+WORKING\s+long\s+1\s+.*(started |Edit: long\.txt)/m, 'the NOW column says the agent runs');

    // Running init again, as the README does, while the owner serves: nothing changes, exit 0.
    const again = await a.foreman(['init', '--store', storeUrl()]);
    assert.equal(again.code, 0, `${again.stdout}${again.stderr}`);
    assert.match(again.stdout, /^Foreman is already initialised in .* on postgres:\/\/.* \(base branch main\); nothing changed$/m);

    // Machine-a dies: machine-b's status says since when, and flags a1 whatever state it shows.
    await serveA.kill();
    const gone = await waitStatus(
      b,
      "machine-a's owner gone",
      (status) => status.owners.some((o) => o.host === 'machine-a' && !o.alive),
      serveB,
    );
    const ownerA = gone.owners.find((owner) => owner.host === 'machine-a')!;
    assert.equal(typeof ownerA.goneSince, 'number');
    assert.deepEqual(worker(gone, 'a1').hostOwner, { ownerId: ownerA.id, alive: false, goneSince: ownerA.goneSince });
    assert.equal(worker(gone, 'b1').hostOwner?.alive, true);
    const takenBack = await waitStatus(
      b,
      "a1's task taken back",
      (status) => worker(status, 'a1').state === 'IDLE' && status.owners.some((o) => o.id === ownerA.id && o.workTakenBackAt !== null),
      serveB,
    );
    assert.equal(worker(takenBack, 'a1').hostOwner?.alive, false, 'an IDLE worker of a dead machine is still flagged');
    // The task runs again on the machine that lives, under a new attempt.
    const rerun = await waitStatus(b, 'b1 to run the task again', (status) => worker(status, 'b1').state === 'WORKING', serveB);
    assert.equal((rerun.workers.find((w) => w.id === 'b1') as WorkerJson & { attempt: number }).attempt, 2);
    for (const args of [['status'], ['worker', 'list']]) {
      const said = await b.ok(args);
      assert.match(said, /^a1\s+machine-a \(owner gone \d+s\)\s+IDLE/m, said);
      assert.match(said, /^machine-a's owner is gone \(\d+s\): a1 waits until an owner runs there again/m);
      assert.doesNotMatch(said, /^b1\s+machine-b \(/m);
    }
    const listed = await b.json<WorkerJson[]>(['worker', 'list']);
    assert.equal(listed.find((w) => w.id === 'a1')?.hostOwner?.alive, false);
    assert.match(
      await b.ok(['status']),
      new RegExp(`^${ownerA.id}\\s+machine-a\\s+\\d+\\s+renewed \\S+ ago\\s+gone \\S+ \\(its work was taken back \\S+ ago\\)$`, 'm'),
    );

    // Machine-a comes back (its next serve reaps what the killed one left) and stops cleanly.
    const back = await a.serve();
    await waitStatus(b, 'machine-a alive again', (status) => worker(status, 'a1').hostOwner?.alive === true, back);
    await back.stop();
    assert.deepEqual(
      ownerRows().map((row) => row.host),
      ['machine-b'],
      'a clean stop left no row, and took the killed owner’s history with it',
    );
    const stopped = await statusOf(b);
    assert.deepEqual(worker(stopped, 'a1').hostOwner, { ownerId: null, alive: false, goneSince: null });
    assert.match(await b.ok(['status']), /^machine-a has no owner running: a1 waits until one runs there/m);
  });

  it('a lost listener says so once, under serve’s own prefix', { timeout: 60_000 }, async () => {
    await postgres.stopServer();
    await postgres.start();
    await pollUntil(() => (/foreman serve: lost the notifications of /.test(serveB.output()) ? true : undefined), {
      what: 'serve to say it lost the notifications',
      timeoutMs: 20_000,
      detail: () => serveB.output(),
    });
    assert.doesNotMatch(serveB.output(), /foreman serve: foreman:/);
    // The owner is back at work once the server is. It stops cleanly while b1 holds a task: its row
    // stays, its lease over at once, so that the next owner takes that work back without waiting.
    await waitStatus(b, 'machine-b alive after the restart', (status) => status.owners.some((o) => o.host === 'machine-b' && o.alive));
    const stoppedAt = Date.now();
    await serveB.stop();
    assert.deepEqual(
      ownerRows().map((row) => row.host),
      ['machine-b'],
      `the row stays while work hangs on it\n${serveB.output()}`,
    );
    const left = await statusOf(b);
    const ownerB = left.owners.find((owner) => owner.host === 'machine-b');
    assert.ok(ownerB && !ownerB.alive && ownerB.goneSince !== null, JSON.stringify(left.owners));
    assert.ok(ownerB.goneSince <= Date.now() && ownerB.goneSince >= stoppedAt - 1_000, 'gone since the stop, not a lease later');
    assert.deepEqual(worker(left, 'b1').hostOwner, { ownerId: ownerB.id, alive: false, goneSince: ownerB.goneSince });
  });
});
