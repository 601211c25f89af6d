/**
 * The query modules below the services, on both stores: a real sql.js store and a real PostgreSQL
 * server started for the test (issue 14; each statement in the text its module wrote for that store). The
 * claim compiled per branch template, the guards of the state UPDATEs, the bus cursor, and the
 * statements the engine's front door (engine.ts, crew.ts) uses. Services are covered through the
 * engine elsewhere.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ok } from '../../../src/core/result';
import type { Reader, Store, Tx } from '../../../src/engine/ports';
import * as q from '../../../src/engine/queries';
import { SqlJsStore } from '../../../src/infra/db';
import { PgStore } from '../../../src/infra/pg/pgStore';
import { startPostgres } from '../../support/postgres';

let store: Store;

/** Each kind of store: opened before its suite, with what ends it afterwards. */
const kinds: ReadonlyArray<{ name: string; open: () => Promise<{ store: Store; end: () => Promise<void> }> }> = [
  {
    name: 'sql.js',
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'foreman-queries-'));
      const opened = await SqlJsStore.open(join(dir, '.foreman'));
      return { store: opened, end: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })) };
    },
  },
  {
    name: 'PostgreSQL',
    async open() {
      const server = await startPostgres();
      return { store: PgStore.open(server.url), end: () => server.stop() };
    },
  },
];

/** Runs `suite` once per kind of store, with `store` set to it. */
function onEachStore(title: string, suite: () => void): void {
  for (const kind of kinds) {
    describe(`${title} (${kind.name})`, () => {
      let end: () => Promise<void> = () => Promise.resolve();
      before(async () => {
        const opened = await kind.open();
        store = opened.store;
        end = opened.end;
      });
      after(async () => {
        store.close();
        await end();
      });
      suite();
    });
  }
}

function write<T>(fn: (tx: Tx) => T): T {
  const result = store.write((tx) => ok(fn(tx)));
  if (!result.ok) throw new Error(result.message);
  return result.value;
}
const read = <T>(fn: (reader: Reader) => T): T => store.read(fn);

/** A queued task at the end of the queue. */
function queue(tx: Tx, id: string, now: number): void {
  q.insertTask(tx, {
    id,
    title: id,
    prompt: '',
    parentId: null,
    autoDispatch: true,
    maxAttempts: 3,
    sortOrder: q.nextSortOrder(tx),
    createdAt: now,
  });
  assert.equal(q.updateTaskStatus(tx, id, 'idle', 0, 'queued'), 1);
}

onEachStore('query modules', () => {
  it('claims the next runnable task in queue order, with the branch built inside the statement', () => {
    write((tx) => ['c1', 'c2'].forEach((id) => queue(tx, id, 1000)));
    const statement = q.compileClaimNext('foreman/{worker}/{task}');
    const first = write((tx) => q.claimNextTask(tx, statement, 2000, 'ada'));
    assert.deepEqual({ ...first }, { id: 'c1', attempt: 1, branch: 'foreman/ada/c1' });
    const second = write((tx) => q.claimNextTask(tx, q.compileClaimNext('fixed'), 2000, 'bob'));
    assert.deepEqual({ ...second }, { id: 'c2', attempt: 1, branch: 'fixed' });
    assert.equal(
      write((tx) => q.claimNextTask(tx, statement, 2000, 'cy')),
      undefined,
    );
    assert.equal(read((reader) => q.findTask(reader, 'c1'))?.worker_id, 'ada');
  });

  it('a task scheduled later is not runnable until its time, and is the next due', () => {
    write((tx) => {
      queue(tx, 'later', 1000);
      q.updateTaskStatus(tx, 'later', 'queued', 0, 'queued', { scheduled_for: 5000 });
    });
    assert.equal(
      read((reader) => q.peekRunnableTask(reader, 4999)),
      undefined,
    );
    assert.equal(
      read((reader) => q.nextDueTime(reader, 4999)),
      5000,
    );
    assert.equal(read((reader) => q.peekRunnableTask(reader, 5000))?.id, 'later');
  });

  it('a claim takes a due scheduled task in its queue place, and passes over one still waiting', () => {
    // Queue order: waits (not due until 9000), free, due (due at 3000), free2.
    write((tx) => {
      ['waits', 'free', 'due', 'free2'].forEach((id) => queue(tx, `s-${id}`, 1000));
      q.updateTaskStatus(tx, 's-waits', 'queued', 0, 'queued', { scheduled_for: 9000 });
      q.updateTaskStatus(tx, 's-due', 'queued', 0, 'queued', { scheduled_for: 3000 });
    });
    // The earlier tests' tasks are running or still scheduled for 5000 ('later', before these in the queue).
    const claim = (now: number): string | undefined => write((tx) => q.claimNextTask(tx, q.compileClaimNext('{task}'), now, 'ada'))?.id;
    assert.deepEqual([claim(4000), claim(4000), claim(4000)], ['s-free', 's-due', 's-free2']);
    assert.equal(claim(4000), undefined);
    assert.deepEqual([claim(9000), claim(9000)], ['later', 's-waits']);
  });

  it('guarded moves change nothing when the state read is no longer current', () => {
    write((tx) => q.insertWorker(tx, 'w1', 'demo', null, 1000));
    assert.equal(
      write((tx) => q.updateWorkerState(tx, 'w1', 'WORKING', 'IDLE', 2000)),
      0,
    );
    assert.equal(
      write((tx) => q.updateWorkerState(tx, 'w1', 'IDLE', 'ASSIGNED', 2000, { note: 'n' })),
      1,
    );
    const worker = read((reader) => q.findWorker(reader, 'w1'));
    assert.deepEqual([worker?.state, worker?.note, worker?.state_changed_at], ['ASSIGNED', 'n', 2000]);
    assert.equal(
      read((reader) => q.findWorkerState(reader, 'w1')),
      'ASSIGNED',
    );
    assert.throws(
      () => write((tx) => q.updateWorkerState(tx, 'w1', 'ASSIGNED', 'WORKING', 3000, { 'note = 1; --': 'x' })),
      /invalid column/,
    );
    assert.equal(
      read((reader) => q.findWorkerState(reader, 'w1')),
      'ASSIGNED',
    );

    write((tx) => q.updateWorkerState(tx, 'w1', 'ASSIGNED', 'WORKING', 3000, { task_id: 'c1' }));
    write((tx) => q.setWorkerLastError(tx, 'w1', 'owner restarted'));
    assert.deepEqual(
      read(q.listWorkersWithAgents).map((worker) => [worker.id, worker.last_error]),
      [['w1', 'owner restarted']],
    );
    assert.equal(
      read((reader) => q.findWorkerIdHolding(reader, 'c1')),
      'w1',
    );
    assert.deepEqual([read((reader) => q.workerExists(reader, 'w1')), read((reader) => q.workerExists(reader, 'w2'))], [true, false]);
  });

  it('a bus cursor never moves backwards, and compaction stays below it', () => {
    const seqs = write((tx) => [
      q.insertMessage(tx, {
        id: 'm1',
        tsMs: 1,
        from: 'a',
        to: 'b',
        type: 't',
        correlationId: null,
        inReplyTo: null,
        payload: '1',
        payloadRef: null,
      }),
      q.insertMessage(tx, {
        id: 'm2',
        tsMs: 2,
        from: 'a',
        to: null,
        type: 't',
        correlationId: null,
        inReplyTo: null,
        payload: null,
        payloadRef: null,
      }),
    ]);
    assert.equal(
      read((reader) => q.findMessageSeq(reader, 'm2')),
      seqs[1],
    );
    assert.deepEqual(
      read((reader) => q.listMessagesFor(reader, 'b', 0, 10)).map((row) => row.id),
      ['m1', 'm2'],
    );
    write((tx) => q.advanceCursor(tx, 'b', seqs[1]!, 10));
    write((tx) => q.advanceCursor(tx, 'b', seqs[0]!, 11));
    assert.equal(
      read((reader) => q.findCursor(reader, 'b')),
      seqs[1],
    );
    assert.equal(
      read((reader) => q.lowestCursor(reader)),
      seqs[1],
    );
    assert.equal(
      read((reader) => q.lastMessageSeq(reader)),
      seqs[1],
    );
  });

  it('supplies what the front door needs: idempotency keys, hits, state changes, rejections, the previous assignment', () => {
    write((tx) => q.insertIdempotencyKey(tx, 'r1', 'claim', '{"id":"x"}', 1000, 2000));
    assert.deepEqual({ ...read((reader) => q.findIdempotencyKey(reader, 'r1', 2000)) }, { command: 'claim', response: '{"id":"x"}' });
    write((tx) => q.deleteExpiredIdempotencyKeys(tx, 2001));
    assert.equal(
      read((reader) => q.findIdempotencyKey(reader, 'r1', 1500)),
      undefined,
    );
    write((tx) => [q.incrementIdempotencyHits(tx), q.incrementIdempotencyHits(tx)]);
    assert.equal(read(q.readIdempotencyHits), 2);

    write((tx) => q.insertStateChangeMessages(tx, 3000, [{ id: 'sc1', payload: '{"entity":"worker"}' }]));
    const change = read((reader) => q.listMessagesFor(reader, 'anyone', 0, 10)).find((row) => row.id === 'sc1');
    assert.deepEqual([change?.from_agent, change?.to_agent, change?.type], ['foreman', null, 'state_change']);

    const rejection = {
      tsMs: 1,
      entity: 'worker',
      entityId: 'w1',
      fromState: null,
      trigger: 't',
      reason: 'r',
      actor: 'a',
      attempt: null,
      requestId: null,
    } as const;
    write((tx) => q.insertRejection(tx, { ...rejection, code: 'conflict' }));
    assert.deepEqual(read(q.countRejectionsByCode), [{ code: 'conflict', count: 1 }]);

    for (const [n, task] of ['t-a', 't-b'].entries()) {
      write((tx) =>
        q.insertTransition(
          tx,
          4000 + n,
          'worker',
          'w1',
          'IDLE',
          'ASSIGNED',
          'assign',
          null,
          'x',
          1,
          null,
          JSON.stringify({ taskId: task, attempt: 1 }),
        ),
      );
    }
    assert.equal(
      read((reader) => q.findPreviousAssignMetadata(reader, 'w1')),
      '{"taskId":"t-a","attempt":1}',
    );
    assert.equal(
      read((reader) => q.findPreviousAssignMetadata(reader, 'nobody')),
      undefined,
    );
  });
});

describe('reclaimFreePages (sql.js; PostgreSQL gives pages back by itself)', () => {
  let end: () => Promise<void> = () => Promise.resolve();
  before(async () => {
    const kind = kinds[0];
    if (!kind) throw new Error('no sql.js store');
    const opened = await kind.open();
    store = opened.store;
    end = opened.end;
  });
  after(async () => {
    store.close();
    await end();
  });
  const pragma = (name: string): number => read((reader) => Number(Object.values(reader.get(`PRAGMA ${name}`) ?? {})[0]));

  it('leaves a few free pages for new work, and gives back a large share of the file', () => {
    write((tx) => {
      tx.run(`CREATE TABLE IF NOT EXISTS ballast (id INTEGER PRIMARY KEY, body TEXT)`);
      for (let i = 0; i < 3000; i++) tx.run(`INSERT INTO ballast (body) VALUES (?)`, ['x'.repeat(2000)]);
    });
    write((tx) => tx.run(`DELETE FROM ballast WHERE id <= 20`));
    assert.ok(pragma('freelist_count') > 0);
    assert.equal(
      write((tx) => q.reclaimFreePages(tx)),
      false,
      'a few free pages stay for the next rows',
    );
    const pagesBefore = pragma('page_count');
    write((tx) => tx.run(`DELETE FROM ballast`));
    assert.equal(
      write((tx) => q.reclaimFreePages(tx)),
      true,
    );
    assert.equal(pragma('freelist_count'), 0);
    assert.ok(pragma('page_count') < pagesBefore / 2, 'the file shrank');
  });
});

onEachStore('statements written per store', () => {
  it('reads lists of ids passed as one JSON parameter (json_each, json_array_elements_text)', () => {
    write((tx) => {
      ['j1', 'j2', 'j3'].forEach((id) => queue(tx, id, 1000));
      q.blockTask(tx, 'j2', 'j1');
      q.insertTransition(tx, 1100, 'task', 'j1', 'queued', 'running', 'claim', null, 'test', 1, null, null);
      q.insertTransition(tx, 1200, 'task', 'j3', 'queued', 'running', 'claim', null, 'test', 1, null, null);
    });
    assert.deepEqual(
      read((reader) => q.listReferrers(reader, ['j1', 'nope'])),
      [{ id: 'j2', target: 'j1' }],
    );
    assert.deepEqual(
      read((reader) => q.listTransitionsOfTasks(reader, ['j1', 'j3']).map((row) => [row.entity_id, row.ts_ms])),
      [
        ['j1', 1100],
        ['j3', 1200],
      ],
    );
    assert.deepEqual(
      read((reader) => q.listSessionsOfTasks(reader, [])),
      [],
    );
  });

  it("walks retention's indexes (SQLite's planner hints, PostgreSQL's planner) to the same rows", () => {
    write((tx) => {
      queue(tx, 'f1', 1000);
      tx.run(`UPDATE tasks SET status = 'done', finished_at = ? WHERE id = ?`, [3000, 'f1']);
      q.insertWorker(tx, 'wr', 'claude', null, 1000);
      q.insertTransition(tx, 1000, 'worker', 'wr', 'IDLE', 'ASSIGNED', 'assign', null, 'test', null, null, null);
      q.insertTransition(tx, 1500, 'worker', 'wr', 'ASSIGNED', 'IDLE', 'release', null, 'test', null, null, null);
    });
    assert.deepEqual(
      read((reader) => q.listFinishedTasksBefore(reader, 4000, 10).map((row) => row.id)),
      ['f1'],
    );
    assert.deepEqual(
      read((reader) => q.listFinishedTasksBefore(reader, 3000, 10)),
      [],
    );
    // The worker's latest transition has no successor and stays.
    assert.deepEqual(
      read((reader) => q.listWorkerTransitionsBefore(reader, 2000, 10).map((row) => [row.to_state, Number(row.next_ts)])),
      [['ASSIGNED', 1500]],
    );
  });

  it('keeps the larger of two values in an upsert (MAX, GREATEST): rollups and bus cursors', () => {
    const rollup = { metric: 'finished' as const, entity: 'task', a: 'done', b: '', count: 1, total: 10, max: 10 };
    write((tx) => q.addRollup(tx, rollup));
    write((tx) => q.addRollup(tx, { ...rollup, total: 4, max: 4 }));
    const [row] = read((reader) => q.listRollups(reader, 'finished'));
    assert.deepEqual([Number(row?.count), Number(row?.total), Number(row?.max)], [2, 14, 10]);
    write((tx) => q.advanceCursor(tx, 'greatest', 9, 1000));
    write((tx) => q.advanceCursor(tx, 'greatest', 4, 1001));
    assert.equal(Number(read((reader) => q.findCursor(reader, 'greatest'))), 9);
  });

  it('carries progress over while the task and attempt stay the same, no task included (IS, IS NOT DISTINCT FROM)', () => {
    const beat = (progress: number | null, task: string | null, attempt: number | null) =>
      write((tx) => q.upsertHeartbeat(tx, 'hb', 1000, 'working', task, attempt, progress, 'test', null, null, false));
    const progress = () => read((reader) => q.listBeatsOf(reader, ['hb'])[0]?.progress ?? null);
    write((tx) => q.insertWorker(tx, 'hb', 'claude', null, 1000));
    beat(40, null, null);
    beat(null, null, null);
    assert.equal(Number(progress()), 40, 'no task both times: the same task');
    beat(null, 'j1', 1);
    assert.equal(progress(), null, 'another task starts without progress');
    beat(70, 'j1', 1);
    beat(null, 'j1', 1);
    assert.equal(Number(progress()), 70);
  });

  it("answers for SQLite's file space explicitly: sql.js has pages, PostgreSQL none and refuses a PRAGMA", () => {
    const space = write((tx) => (tx.fileSpace ? tx.fileSpace.pages().total > 0 : null));
    if (store.dialect === 'postgres') {
      assert.equal(space, null);
      assert.equal(
        write((tx) => q.reclaimFreePages(tx)),
        false,
      );
      assert.throws(() => read((reader) => reader.get('PRAGMA page_count')), /PRAGMA' is SQLite's/);
    } else assert.equal(space, true);
  });

  it('refuses a statement that has no text for this store, in words', () => {
    const other = store.dialect === 'postgres' ? { sqlite: 'SELECT 1 AS one' } : { postgres: 'SELECT 1 AS one' };
    const mine = store.dialect === 'postgres' ? 'postgres' : 'sqlite';
    assert.throws(() => read((reader) => reader.get(other)), new RegExp(`no ${mine} text`));
  });
});
