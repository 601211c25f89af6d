/**
 * The store's replica (replica.ts): a second sql.js database on a worker thread, fed every committed
 * journal record, that exports the image for background checkpoints so the owner's thread does not.
 * What matters: the image it exports holds exactly what the store held at that seq, checkpoints made
 * from it load after a crash with every acknowledged write, and a replica that cannot follow fails
 * loudly and is replaced by the store's own export. Real sql.js, real worker threads, real files.
 */
import * as crypto from 'node:crypto';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { ok } from '../../../src/core/result';
import { SqlJsStore } from '../../../src/infra/db/index';
import { readImageFile } from '../../../src/infra/db/imageFile';
import { encodeRecord } from '../../../src/infra/db/journalFormat';
import { StoreReplica } from '../../../src/infra/db/replica';
import { loadSqlJs } from '../../../src/infra/db/sqlJsModule';
import { pollUntil } from '../../support/pollUntil';
import { collectLog, copyOf, insertTask, tempForemanDir } from './helpers';

type Dump = Record<string, unknown[]>;

const tables = ['tasks', 'transitions', 'workers', 'messages'];

function dumpOf(all: (sql: string) => unknown[]): Dump {
  return Object.fromEntries(tables.map((table) => [table, all(`SELECT * FROM ${table} ORDER BY rowid`)]));
}

function storeDump(store: SqlJsStore): Dump {
  return store.read((reader) => dumpOf((sql) => reader.all(sql)));
}

async function imageDump(dir: string): Promise<{ dump: Dump; seq: number }> {
  const read = readImageFile(path.join(dir, 'foreman.db'));
  if (read.kind !== 'image' || !read.checksummed) throw new Error(`the installed image is not whole: ${JSON.stringify(read)}`);
  const SQL = await loadSqlJs();
  const db = new SQL.Database(read.bytes);
  try {
    const all = (sql: string): unknown[] => {
      const [result] = db.exec(sql);
      return result ? result.values.map((values) => Object.fromEntries(result.columns.map((column, i) => [column, values[i]]))) : [];
    };
    const seq = Number(all(`SELECT value FROM meta WHERE key = 'journal_seq'`).map((row) => (row as { value: string }).value)[0]);
    return { dump: dumpOf(all), seq };
  } finally {
    db.close();
  }
}

/** Inserts, updates and deletes, so the replica replays more than appends. */
function churn(store: SqlJsStore, i: number): void {
  store.write(insertTask(`t${i}`, i));
  if (i % 3 === 0)
    store.write((tx) => ok(tx.run(`UPDATE tasks SET status = 'done', finished_at = ? WHERE id = ?`, [5000 + i, `t${i - 1}`])));
  if (i % 7 === 0) store.write((tx) => ok(tx.run(`DELETE FROM tasks WHERE id = ?`, [`t${i - 2}`])));
}

/** Guards a loop that waits for the replica's thread: by time, since how many writes fit depends on the machine's load. */
function deadlineFor(what: string, ms = 20_000): () => void {
  const deadline = Date.now() + ms;
  return () => assert.ok(Date.now() < deadline, `timed out waiting until ${what}`);
}

async function until(condition: () => boolean, what: string): Promise<void> {
  await pollUntil(condition, { what, timeoutMs: 20_000, intervalMs: 5 });
}

/** A replica started at `baseSeq` on a closed store that holds five writes (seqs 1 to 5), and its log. */
async function replicaOfFiveWrites(baseSeq: number): Promise<{ replica: StoreReplica; lines: string[] }> {
  const dir = tempForemanDir();
  const store = await SqlJsStore.open(dir, { replicaFromBytes: Number.POSITIVE_INFINITY });
  for (let i = 0; i < 5; i++) store.write(insertTask(`t${i}`, i));
  store.close();
  const { lines, log } = collectLog();
  return { replica: new StoreReplica(dir, baseSeq, log), lines };
}

describe('the store replica', () => {
  it('exports for background checkpoints an image equal to the store at its seq', async () => {
    const dir = tempForemanDir();
    const { lines, log } = collectLog();
    const store = await SqlJsStore.open(dir, { checkpointBytes: 40_000, replicaFromBytes: 0, log });
    try {
      let i = 1;
      // Half way to the first checkpoint the replica starts; it loads while writes go on, at a pace a
      // loaded machine's replica keeps up with (a checkpoint waits for a loading replica, however long).
      const readyInTime = deadlineFor('the replica became ready');
      while (!store.replicaReady) {
        churn(store, i++);
        await new Promise((resolve) => setTimeout(resolve, 2));
        readyInTime();
      }
      const before = store.imageSources.fromReplica;
      const exportedBefore = store.imageSources.exportedHere;
      const checkpointedInTime = deadlineFor('three checkpoints took their image from the replica', 60_000);
      while (store.imageSources.fromReplica < before + 3) {
        churn(store, i++);
        if (i % 10 === 0) await nextTurn();
        checkpointedInTime();
      }
      // Writes stop; the checkpoint under way (if any) finishes, and one more runs with nothing after it.
      await store.whenIdle();
      const image = await imageDump(dir);
      store.checkpoint();
      const afterSync = await imageDump(dir);
      assert.ok(image.seq <= afterSync.seq);
      assert.deepEqual(afterSync.dump, storeDump(store), 'the synchronous checkpoint holds the store');
      assert.equal(store.imageSources.exportedHere, exportedBefore, 'once ready, every background checkpoint used the replica');
      assert.deepEqual(
        lines.filter((line) => line.includes('replica')),
        [],
      );
    } finally {
      store.close();
    }
  });

  it("a checkpoint due while the replica loads waits for it: the owner's thread never exports (issue 34)", async () => {
    const dir = tempForemanDir();
    const store = await SqlJsStore.open(dir, { checkpointBytes: 20_000, replicaFromBytes: 0 });
    try {
      // No turn of the event loop: the replica cannot say it is ready, while the journal passes its
      // limit five times over (the old rule exported here past twice the limit).
      let i = 1;
      while (fs.statSync(path.join(dir, 'foreman.journal')).size < 100_000) churn(store, i++);
      assert.equal(store.replicaReady, false, 'the replica is still loading');
      await until(() => store.replicaReady, 'the replica became ready');
      churn(store, i++);
      await until(() => store.imageSources.fromReplica > 0, 'a checkpoint took its image from the replica');
      await store.whenIdle();
      assert.equal(store.imageSources.exportedHere, 0, "no checkpoint exported on the owner's thread");
      const image = await imageDump(dir);
      assert.ok(image.seq > 0, 'the installed image includes the writes made while the replica loaded');
    } finally {
      store.close();
    }
  });

  it('a replica checkpoint equals the store when no write follows it', async () => {
    const dir = tempForemanDir();
    const store = await SqlJsStore.open(dir, { checkpointBytes: 30_000, replicaFromBytes: 0 });
    try {
      let i = 1;
      while (!store.replicaReady) {
        churn(store, i++);
        await nextTurn();
      }
      // Write up to the limit without yielding: the checkpoint starts on the next turn, after the last write.
      const from = store.imageSources.fromReplica;
      while (store.imageSources.fromReplica === from) {
        for (let burst = 0; burst < 50; burst++) churn(store, i++);
        await store.whenIdle();
      }
      const image = await imageDump(dir);
      assert.deepEqual(image.dump, storeDump(store), 'the image from the replica is the store, row for row');
    } finally {
      store.close();
    }
  });

  it('checkpoints from the replica open after a crash with every acknowledged write', async () => {
    const dir = tempForemanDir();
    const store = await SqlJsStore.open(dir, { checkpointBytes: 20_000, replicaFromBytes: 0 });
    const acknowledged: string[] = [];
    const copies: { copy: string; acknowledged: number }[] = [];
    try {
      const checkpointedInTime = deadlineFor('four checkpoints took their image from the replica', 60_000);
      for (let i = 0; store.imageSources.fromReplica < 4; i++) {
        checkpointedInTime();
        store.write(insertTask(`t${i}`, i));
        acknowledged.push(`t${i}`);
        if (i % 25 === 0) {
          copies.push({ copy: copyOf(dir), acknowledged: acknowledged.length });
          await nextTurn();
        }
      }
    } finally {
      // No close(): the folder is what a SIGKILL leaves.
    }
    copies.push({ copy: copyOf(dir), acknowledged: acknowledged.length });
    store.close();
    for (const { copy, acknowledged: count } of copies.slice(-12)) {
      const reopened = await SqlJsStore.open(copy);
      try {
        const ids = reopened.read((reader) => reader.all<{ id: string }>('SELECT id FROM tasks ORDER BY rowid').map((row) => row.id));
        assert.deepEqual(ids.slice(0, count), acknowledged.slice(0, count), `${copy}: the acknowledged writes, in order`);
      } finally {
        reopened.close();
      }
    }
  });

  it('fails, saying why, when the journals on disk do not reach the seq it was started at', async () => {
    const { replica, lines } = await replicaOfFiveWrites(9);
    await until(() => replica.failed, 'the replica failed');
    assert.match(lines.join('\n'), /do not hold seq \d+ to 9/);
    await assert.rejects(replica.image(9), /replica is not ready/);
    replica.dispose();
  });

  it('is refused an image at a seq it does not hold, and the store exports instead', async () => {
    const { replica, lines } = await replicaOfFiveWrites(5);
    await until(() => replica.ready, 'the replica loaded');
    await assert.rejects(replica.image(6), /holds seq 5/);
    assert.ok(replica.failed);
    assert.match(lines.join('\n'), /checkpoints export on the owner's thread/);
    replica.dispose();
  });

  it('fails, saying why, when it is sent bytes that are not whole journal records', async () => {
    const { replica, lines } = await replicaOfFiveWrites(5);
    await until(() => replica.ready, 'the replica loaded');
    const whole = encodeRecord({ seq: 6, ts: 0, stmts: [['DELETE FROM tasks', []]] });
    replica.send(whole.subarray(0, whole.length - 1));
    await until(() => replica.failed, 'the replica failed');
    assert.match(lines.join('\n'), /not a record at offset 0/);
    replica.dispose();
  });

  it('runs from the bundle in dist/ as the extension and the CLI start it', async () => {
    const script = path.join(__dirname, '..', '..', '..', 'dist', 'store-replica.js');
    assert.ok(fs.existsSync(script), `${script} is missing: build first (node scripts/build.mjs)`);
    const dir = tempForemanDir();
    const store = await SqlJsStore.open(dir, { replicaFromBytes: Number.POSITIVE_INFINITY });
    for (let i = 0; i < 5; i++) store.write(insertTask(`t${i}`, i));
    const { lines, log } = collectLog();
    const replica = new StoreReplica(dir, 5, log, script);
    try {
      await until(() => replica.ready || replica.failed, 'the bundled replica loaded');
      assert.deepEqual(lines, []);
      replica.send(
        encodeRecord({
          seq: 6,
          ts: 0,
          stmts: [[`INSERT INTO tasks (id, title, status, sort_order, created_at) VALUES ('late', 'Late', 'queued', 9, 9)`, []]],
        }),
      );
      const SQL = await loadSqlJs();
      const image = await replica.image(6);
      assert.deepEqual(
        image.sha256,
        new Uint8Array(crypto.createHash('sha256').update(image.bytes).digest()),
        "hashed on the replica's thread",
      );
      const db = new SQL.Database(image.bytes);
      try {
        assert.deepEqual(db.exec('SELECT id FROM tasks ORDER BY rowid')[0]?.values.flat(), ['t0', 't1', 't2', 't3', 't4', 'late']);
      } finally {
        db.close();
      }
    } finally {
      replica.dispose();
      store.close();
    }
  });

  it('never starts for a store whose image is small', async () => {
    const dir = tempForemanDir();
    const store = await SqlJsStore.open(dir, { checkpointBytes: 20_000 });
    try {
      for (let i = 0; store.imageSources.exportedHere < 2; i++) {
        store.write(insertTask(`t${i}`, i));
        if (i % 25 === 0) await nextTurn();
      }
      assert.equal(store.replicaReady, false);
      assert.equal(store.imageSources.fromReplica, 0);
      assert.ok(fs.statSync(path.join(dir, 'foreman.db')).size < 4 * 1024 * 1024);
    } finally {
      store.close();
    }
  });
});
