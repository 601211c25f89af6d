/**
 * The store port on PostgreSQL (src/infra/pg/pgStore.ts) against a real server: the schema migrated
 * once however many stores open it, a write that fails or throws leaves nothing, and the engine's
 * own claim statement from eight processes at once takes 2,000 tasks with none taken twice and no
 * process told "nothing to claim" while tasks remained (the claim skips rows another is taking).
 * The engine's suites on this store: FOREMAN_TEST_STORE=postgres (test/support/engineHarness.ts).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { ok, refused } from '../../../src/core/result';
import type { Tx } from '../../../src/engine/ports';
import * as q from '../../../src/engine/queries';
import { migrations } from '../../../src/infra/db/migrations/index';
import { PgStore } from '../../../src/infra/pg/pgStore';
import { type TestPostgres, startPostgres } from '../../support/postgres';

const run = promisify(execFile);
let server: TestPostgres;
const stores: PgStore[] = [];
function open(): PgStore {
  const store = PgStore.open(server.url);
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

function queue(store: PgStore, count: number): void {
  store.write((tx) => {
    for (let i = 0; i < count; i++) {
      const id = `t-${String(i).padStart(5, '0')}`;
      q.insertTask(tx, { id, title: id, prompt: '', parentId: null, autoDispatch: true, maxAttempts: 3, sortOrder: i, createdAt: 1000 });
      q.updateTaskStatus(tx, id, 'idle', 0, 'queued');
    }
    return ok(count);
  });
}

describe('PgStore', () => {
  it('migrates the schema once, whichever store opens it first', () => {
    const first = open();
    const second = open();
    const version = second.read((reader) => reader.get<{ value: string }>(`SELECT value FROM meta WHERE key = 'schema_version'`));
    assert.equal(version?.value, String(migrations.at(-1)?.version));
    assert.equal(first.read((reader) => reader.all('SELECT * FROM tasks')).length, 0);
  });

  it('leaves nothing of a write that is refused or throws', () => {
    const store = open();
    const insert = (tx: Tx, id: string): void =>
      q.insertTask(tx, { id, title: id, prompt: '', parentId: null, autoDispatch: true, maxAttempts: 3, sortOrder: 1, createdAt: 1 });
    const refusedWrite = store.write((tx) => {
      insert(tx, 'refused');
      return refused('busy', 'changed my mind');
    });
    assert.equal(refusedWrite.ok, false);
    assert.throws(() =>
      store.write((tx) => {
        insert(tx, 'thrown');
        throw new Error('boom');
      }),
    );
    const ids = store.read((reader) => reader.all<{ id: string }>(`SELECT id FROM tasks WHERE id IN ('refused', 'thrown')`));
    assert.deepEqual(ids, []);
    assert.equal(store.write((tx) => ok(tx.run(`UPDATE tasks SET title = 'x' WHERE id = 'nobody'`))).ok, true, 'the store goes on');
  });

  it('commits a write whose durability is decided after its work (a heartbeat), either way', () => {
    const store = open();
    const asked: string[] = [];
    for (const [id, durable] of [
      ['late-not-durable', false],
      ['late-durable', true],
    ] as const) {
      const written = store.write(
        (tx) => {
          q.insertTask(tx, { id, title: id, prompt: '', parentId: null, autoDispatch: true, maxAttempts: 3, sortOrder: 1, createdAt: 1 });
          return ok(id);
        },
        {
          durable: () => {
            asked.push(id);
            return durable;
          },
        },
      );
      assert.equal(written.ok, true);
    }
    assert.deepEqual(asked, ['late-not-durable', 'late-durable']);
    const ids = store.read((reader) => reader.all<{ id: string }>(`SELECT id FROM tasks WHERE id LIKE 'late-%' ORDER BY id`));
    assert.deepEqual(
      ids.map((row) => row.id),
      ['late-durable', 'late-not-durable'],
    );
  });

  it("eight processes claiming with the engine's statement: 2,000 tasks, none twice, none left", async () => {
    const store = open();
    store.write((tx) => ok(tx.run('DELETE FROM tasks')));
    queue(store, 2_000);
    const child = path.join(__dirname, 'engineClaimChild.ts');
    const outputs = await Promise.all(
      Array.from({ length: 8 }, (_, i) => run(process.execPath, ['--import', 'tsx', child, server.url, `w${i}`], { timeout: 180_000 })),
    );
    const claims = outputs.flatMap(({ stdout }) => JSON.parse(stdout) as string[]);
    assert.equal(new Set(claims).size, claims.length, 'no task claimed twice');
    assert.equal(claims.length, 2_000, 'every process claimed until the queue was empty');
    const left = store.read((reader) => reader.get<{ n: number }>(`SELECT COUNT(*) AS n FROM tasks WHERE status = 'queued'`));
    assert.equal(left?.n, 0);
  });
});
