/**
 * Writes in few round trips on PostgreSQL (issue 29, src/infra/pg/pgTx.ts), against a real server:
 * rows a write only appends go with its next statement and still run in order (a read sees them);
 * one the server refuses fails the whole write, named, and nothing of it stays; a write given up
 * before anything reached the server leaves nothing; and the claim, one statement with its audit and
 * lease rows, writes the same rows as the three statements it replaced (those sql.js runs).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ok, refused } from '../../../src/core/result';
import type { Tx } from '../../../src/engine/ports';
import * as q from '../../../src/engine/queries';
import { PgStore } from '../../../src/infra/pg/pgStore';
import { type TestPostgres, createDatabase, startPostgres } from '../../support/postgres';

let server: TestPostgres;
const stores: PgStore[] = [];
let databases = 0;
function open(): PgStore {
  const store = PgStore.open(createDatabase(server.url, `pipelined_${process.pid}_${++databases}`));
  stores.push(store);
  return store;
}

before(async () => {
  server = await startPostgres();
});
after(async () => {
  for (const store of stores) store.close();
  await server?.stop();
});

function addTask(tx: Tx, id: string, sortOrder = 1): void {
  q.insertTask(tx, { id, title: id, prompt: '', parentId: null, autoDispatch: true, maxAttempts: 3, sortOrder, createdAt: 1000 });
}

const auditRows = (store: PgStore, id: string) =>
  store.read((reader) =>
    reader.all<{ entity_type: string; from_state: string; to_state: string; trigger: string; actor: string; attempt: number }>(
      `SELECT entity_type, from_state, to_state, trigger, actor, attempt FROM transitions WHERE entity_id = ? ORDER BY seq`,
      [id],
    ),
  );

describe('PostgreSQL writes in few round trips', () => {
  it('runs appended rows in order: a read in the same write sees them', () => {
    const store = open();
    const seen = store.write((tx) => {
      q.insertTransition(tx, 1, 'task', 'appended', 'idle', 'queued', 'queue', null, 'test', null, null, null);
      return ok(tx.all<{ n: number }>(`SELECT COUNT(*) AS n FROM transitions WHERE entity_id = 'appended'`)[0]?.n);
    });
    assert.deepEqual(seen, { ok: true, value: 1 });
    assert.equal(auditRows(store, 'appended').length, 1, 'and it was committed');
  });

  it('fails the whole write when an appended row is refused at the commit, naming it; nothing stays', () => {
    const store = open();
    assert.throws(
      () =>
        store.write((tx) => {
          addTask(tx, 'kept-back');
          // A transition without an entity: NOT NULL refuses it, but only when it is sent, with the COMMIT.
          tx.append?.(
            `INSERT INTO transitions (ts_ms, entity_type, entity_id, from_state, to_state, trigger, actor) VALUES (1, 'task', NULL, 'a', 'b', 'c', 'd')`,
          );
          return ok(undefined);
        }),
      (error: Error) => /entity_id/.test(error.message) && /INSERT INTO transitions/.test(error.message),
    );
    const left = store.read((reader) => reader.all(`SELECT id FROM tasks WHERE id = 'kept-back'`));
    assert.deepEqual(left, [], 'the task inserted before it went with it');
    assert.equal(store.write((tx) => ok(tx.run(`UPDATE tasks SET title = 'x' WHERE id = 'nobody'`))).ok, true, 'the store goes on');
  });

  it('leaves nothing of a write refused before anything reached the server', () => {
    const store = open();
    const result = store.write((tx) => {
      q.insertTransition(tx, 1, 'task', 'never', 'idle', 'queued', 'queue', null, 'test', null, null, null);
      return refused('busy', 'changed my mind');
    });
    assert.equal(result.ok, false);
    assert.deepEqual(auditRows(store, 'never'), []);
  });

  it('claims with the audit and lease rows the three statements wrote', () => {
    const store = open();
    store.write((tx) => {
      addTask(tx, 'next', 1);
      addTask(tx, 'given', 2);
      q.updateTaskStatus(tx, 'next', 'idle', 0, 'queued');
      q.updateTaskStatus(tx, 'given', 'idle', 0, 'queued');
      return ok(undefined);
    });
    const statement = q.compileClaimNext('{worker}/{task}');
    const record = { actor: 'owner-a', requestId: 'r-1', metadata: JSON.stringify({ workerId: 'ada' }), leaseUntil: 9_000 };
    const claimed = store.write((tx) => ok(q.claimNextTaskRecorded(tx, statement, 5_000, 'ada', record)));
    assert.deepEqual(claimed, { ok: true, value: { id: 'next', attempt: 1, branch: 'ada/next' } });
    const given = store.write((tx) =>
      ok(q.claimTaskRecorded(tx, 'given', 'queued', 'claim', 6_000, 'bob', 'bob/given', { ...record, requestId: null })),
    );
    assert.deepEqual(given, { ok: true, value: { id: 'given', attempt: 1, branch: 'bob/given' } });

    assert.deepEqual(auditRows(store, 'next'), [
      { entity_type: 'task', from_state: 'queued', to_state: 'running', trigger: 'claim', actor: 'owner-a', attempt: 1 },
    ]);
    const audit = store.read((reader) =>
      reader.get<{ ts_ms: number; request_id: string | null; metadata: string; reason: string | null }>(
        `SELECT ts_ms, request_id, metadata, reason FROM transitions WHERE entity_id = 'next'`,
      ),
    );
    assert.deepEqual(audit, { ts_ms: 5_000, request_id: 'r-1', metadata: '{"workerId":"ada"}', reason: null });
    const leases = store.read((reader) =>
      reader.all<{ task_id: string; claimed_by: string; attempt: number; claimed_at_ms: number; lease_until_ms: number }>(
        `SELECT task_id, claimed_by, attempt, claimed_at_ms, lease_until_ms FROM task_claims ORDER BY task_id`,
      ),
    );
    assert.deepEqual(leases, [
      { task_id: 'given', claimed_by: 'bob', attempt: 1, claimed_at_ms: 6_000, lease_until_ms: 9_000 },
      { task_id: 'next', claimed_by: 'ada', attempt: 1, claimed_at_ms: 5_000, lease_until_ms: 9_000 },
    ]);
    const nothingLeft = store.write((tx) => ok(q.claimNextTaskRecorded(tx, statement, 7_000, 'cy', record) ?? null));
    assert.deepEqual(nothingLeft, { ok: true, value: null }, 'an empty queue claims nothing and records nothing');
    assert.deepEqual(auditRows(store, 'given').length, 1);
  });
});
