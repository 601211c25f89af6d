/**
 * Seeing the team (issue 29), the small parts: how `status` and `worker list` print the owners of a
 * shared store and flag the workers of a machine with no live owner; what the dashboard's snapshot
 * carries for them (and that it parses); the refusal of a late message in words a person reads; and
 * the README's doctor example, held to the schema version this Foreman has.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { printResult } from '../../src/cli/format';
import type { CommandName } from '../../src/core/requests';
import type { ResultOf } from '../../src/core/requests';
import type { StatusSnapshot, WorkerStatus } from '../../src/engine/statusView';
import { type OwnerStatus, offsetLeaseClock } from '../../src/engine/teamView';
import { checkAttempt } from '../../src/engine/transitions';
import { buildDashboardSnapshot } from '../../src/extension/dashboard/snapshot';
import { migrations } from '../../src/infra/db';
import { dashboardSnapshotSchema, defaultViewState } from '../../src/shared/protocol';
import { makeStatus } from './dashboard/fixtures';

const now = Date.now();

function printed<C extends 'status' | 'worker.list'>(command: C & CommandName, value: ResultOf<C>): string[] {
  const lines: string[] = [];
  printResult(
    { out: (line) => lines.push(...line.split('\n')), err: (line) => lines.push(`ERR ${line}`) },
    command,
    { ok: true, value },
    false,
  );
  return lines;
}

const aliveA: OwnerStatus = {
  id: 'machine-a-4121-9f2c01aa',
  host: 'machine-a',
  pid: 4121,
  startedAt: now - 600_000,
  renewedAt: now - 2_000,
  leaseAgeMs: 2_000,
  alive: true,
  goneSince: null,
  workTakenBackAt: null,
};
const goneB: OwnerStatus = {
  id: 'machine-b-3377-51e0b7c2',
  host: 'machine-b',
  pid: 3377,
  startedAt: now - 900_000,
  renewedAt: now - 48_000,
  leaseAgeMs: 48_000,
  alive: false,
  goneSince: now - 33_000,
  workTakenBackAt: now - 30_000,
};

/** A crew on three machines: a's owner alive, b's gone, none ever on c. */
function team(): StatusSnapshot {
  const [w0, w1, w2, w3] = makeStatus({ workers: 4, tasks: 4 }).workers;
  assert.ok(w0 && w1 && w2 && w3);
  const on = (worker: WorkerStatus, id: string, host: string, hostOwner: WorkerStatus['hostOwner']): WorkerStatus => ({
    ...worker,
    id,
    host,
    ...(hostOwner ? { hostOwner } : {}),
  });
  return {
    ...makeStatus({ workers: 0, tasks: 0 }),
    owners: [aliveA, goneB],
    workers: [
      on(w0, 'ada', 'machine-a', { ownerId: aliveA.id, alive: true, goneSince: null }),
      on({ ...w1, state: 'IDLE', taskId: null }, 'bob', 'machine-b', { ownerId: goneB.id, alive: false, goneSince: goneB.goneSince }),
      on({ ...w2, state: 'IDLE', taskId: null }, 'bea', 'machine-b', { ownerId: goneB.id, alive: false, goneSince: goneB.goneSince }),
      on({ ...w3, state: 'IDLE', taskId: null }, 'cid', 'machine-c', { ownerId: null, alive: false, goneSince: null }),
    ],
  };
}

describe('status and worker list show the team', () => {
  it('status lists each owner with its host, lease age and alive or gone since when, above the workers', () => {
    const lines = printed('status', team());
    const header = lines.findIndex((line) => line.startsWith('OWNER'));
    assert.ok(header > 0, lines.join('\n'));
    assert.match(lines[header]!, /^OWNER\s+HOST\s+PID\s+LEASE\s+STATE$/);
    assert.match(lines[header + 1]!, /^machine-a-4121-9f2c01aa\s+machine-a\s+4121\s+renewed 2s ago\s+alive$/);
    assert.match(
      lines[header + 2]!,
      /^machine-b-3377-51e0b7c2\s+machine-b\s+3377\s+renewed 48s ago\s+gone 33s \(its work was taken back 30s ago\)$/,
    );
    assert.ok(lines.findIndex((line) => line.startsWith('WORKER')) > header + 2, 'the owners come first');
  });

  it("flags a dead or ownerless machine's workers in the HOST column and says what they wait for", () => {
    for (const lines of [printed('status', team()), printed('worker.list', team().workers)]) {
      const row = (id: string) => lines.find((line) => line.startsWith(`${id} `)) ?? '';
      assert.match(row('ada'), /^ada\s+machine-a\s+WORKING/);
      assert.match(row('bob'), /^bob\s+machine-b \(owner gone 33s\)\s+IDLE/);
      assert.match(row('cid'), /^cid\s+machine-c \(no owner\)\s+IDLE/);
      assert.ok(
        lines.includes(
          "machine-b's owner is gone (33s): bob, bea wait until an owner runs there again (foreman serve, or VS Code, on machine-b)",
        ),
        lines.join('\n'),
      );
      assert.ok(lines.includes('machine-c has no owner running: cid waits until one runs there (foreman serve, or VS Code, on machine-c)'));
      assert.ok(!lines.some((line) => /^machine-a('s owner| has no owner)/.test(line)), 'a machine with a live owner is not flagged');
    }
  });

  it('a store with one owner prints no owner table and no flags', () => {
    const lines = printed('status', makeStatus({ workers: 3, tasks: 3 }));
    assert.ok(!lines.some((line) => line.startsWith('OWNER')));
    assert.doesNotMatch(lines.join('\n'), /owner gone|no owner/);
  });
});

describe('the dashboard shows the team', () => {
  it('carries a card per owner and each worker’s machine owner, and the snapshot parses', () => {
    const status = team();
    const snapshot = buildDashboardSnapshot({
      now,
      folders: [{ root: '/repo', name: 'repo', ownerNote: undefined, restricted: false }],
      view: defaultViewState,
      selected: {
        info: { root: '/repo', name: 'repo', ownerNote: undefined, restricted: false },
        status,
        heartbeats: () => [],
        activity: undefined,
        liveness: { warnMs: 30_000, staleMs: 100_000, deadMs: 300_000 },
        heartbeatWindowMs: 300_000,
      },
    });
    const folder = snapshot.folder!;
    assert.deepEqual(
      folder.owners.map((o) => [o.host, o.alive, o.renewedAt, o.goneSince, o.workTakenBackAt, o.workers, o.busy]),
      [
        ['machine-a', true, aliveA.renewedAt, null, null, 1, 1],
        ['machine-b', false, goneB.renewedAt, goneB.goneSince, goneB.workTakenBackAt, 2, 0],
      ],
    );
    const card = (id: string) => folder.workers.items.find((worker) => worker.id === id);
    assert.deepEqual(card('bob')?.hostOwner, { ownerId: goneB.id, alive: false, goneSince: goneB.goneSince });
    assert.deepEqual(card('cid')?.hostOwner, { ownerId: null, alive: false, goneSince: null });
    assert.equal(dashboardSnapshotSchema.safeParse(snapshot).success, true);
    const alone = buildDashboardSnapshot({
      now,
      folders: [],
      view: defaultViewState,
      selected: { ...snapshotInputOf(makeStatus({ workers: 2, tasks: 2 })) },
    });
    assert.deepEqual(alone.folder?.owners, []);
    assert.ok(alone.folder?.workers.items.every((worker) => worker.hostOwner === undefined));
  });
});

function snapshotInputOf(status: StatusSnapshot) {
  return {
    info: { root: '/repo', name: 'repo', ownerNote: undefined, restricted: false },
    status,
    heartbeats: () => [],
    activity: undefined,
    liveness: { warnMs: 30_000, staleMs: 100_000, deadMs: 300_000 },
    heartbeatWindowMs: 300_000,
  };
}

describe('a late message from an ended attempt is refused in words', () => {
  it('says the worker holds no task any more, not "the current attempt is 0"', () => {
    const refused = checkAttempt(0, 1, "worker 'ada'", 'heartbeat');
    assert.ok(!refused.ok);
    assert.equal(refused.code, 'staleAttempt');
    assert.equal(
      refused.message,
      "heartbeat for worker 'ada' was refused: it comes from attempt 1 of a task the worker no longer holds (that attempt ended: the task was finished, cancelled, failed or taken back), so it changes nothing.",
    );
    assert.doesNotMatch(refused.message, /current attempt is 0/);
  });

  it('says an earlier run, or an attempt the task has not reached', () => {
    const older = checkAttempt(2, 1, "worker 'ada'", 'submit');
    assert.ok(!older.ok);
    assert.match(older.message, /it comes from attempt 1, an earlier run of the task; attempt 2 runs now/);
    const newer = checkAttempt(1, 3, "worker 'ada'", 'heartbeat');
    assert.ok(!newer.ok);
    assert.match(newer.message, /it names attempt 3, but the task has only reached attempt 1; pass the attempt the worker holds/);
    assert.equal(checkAttempt(2, 2, "worker 'ada'", 'submit').ok, true);
    assert.equal(checkAttempt(2, undefined, "worker 'ada'", 'submit').ok, true);
  });
});

describe('status reads the lease clock', () => {
  it('measures its offset from this process’s clock once per period, not on every read', () => {
    let local = 1_000_000;
    const reads: number[] = [];
    // The server runs 2.5 s ahead of this process.
    const server = { read: () => (reads.push(local), { now: local + 2_500, startedAt: 7 }) };
    const clock = offsetLeaseClock(server, () => local, 10_000);
    assert.deepEqual(clock.read(), { now: 1_002_500, startedAt: 7 });
    local += 4_000;
    assert.deepEqual(clock.read(), { now: 1_006_500, startedAt: 7 }, 'moved on by this clock, no round trip');
    assert.equal(reads.length, 1);
    local += 6_000;
    clock.read();
    assert.equal(reads.length, 2, 'measured again after the period');
    local -= 60_000;
    clock.read();
    assert.equal(reads.length, 3, 'and when this clock went back');
  });
});

describe("the README's doctor example", () => {
  it('says the schema version this Foreman has', () => {
    const readme = readFileSync(join(__dirname, '..', '..', 'docs', 'team.md'), 'utf8');
    const said = /^ok\s+schema\s+schema version (\d+), as this Foreman's$/m.exec(readme);
    assert.ok(said, 'the README shows a doctor schema line');
    assert.equal(Number(said[1]), migrations.at(-1)?.version);
  });
});
