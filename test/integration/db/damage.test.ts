import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { SqlJsStore, StoreError } from '../../../src/infra/db/index';
import type { SqlJsStoreOptions } from '../../../src/infra/db/index';
import { decodeHeaderAt, encodeRecord, scanJournal } from '../../../src/infra/db/journalFormat';
import { collectLog, copyOf, insertTask, tempForemanDir } from './helpers';

const ids = (prefix: string, count: number): string[] => Array.from({ length: count }, (_, i) => `${prefix}${String(i).padStart(3, '0')}`);

/**
 * A folder as a crash leaves it after two checkpoints: images holding a* and a*+b*, the current
 * journal holding c*. Returns a copy, so the store that wrote it never closes over it.
 */
async function folderWithHistory(options: SqlJsStoreOptions = {}): Promise<{ dir: string; expected: string[] }> {
  const dir = tempForemanDir();
  const store = await SqlJsStore.open(dir, options);
  const batches = [ids('a', 150), ids('b', 30), ids('c', 20)];
  batches.forEach((batch, index) => {
    for (const id of batch) store.write(insertTask(id));
    if (index < batches.length - 1) store.checkpoint();
  });
  const copy = copyOf(dir);
  store.close();
  return { dir: copy, expected: batches.flat() };
}

function taskIds(store: SqlJsStore): string[] {
  return store.read((reader) => reader.all<{ id: string }>('SELECT id FROM tasks ORDER BY id').map((row) => row.id));
}

function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(
    fs
      .readdirSync(dir)
      .sort()
      .map((name) => [name, fs.readFileSync(path.join(dir, name)).toString('base64')]),
  );
}

/** Overwrites `length` bytes at `offset` with a pattern no SQLite page or journal record holds. */
function garble(file: string, offset: number, length: number): void {
  const fd = fs.openSync(file, 'r+');
  fs.writeSync(fd, Buffer.alloc(length, 0xa5), 0, length, offset);
  fs.closeSync(fd);
}

function journalRecordOffsets(file: string): number[] {
  const bytes = fs.readFileSync(file);
  const scan = scanJournal(bytes);
  // After the segment's header, if it has one; each record as it was written, against its table.
  let offset = decodeHeaderAt(bytes, 0)?.end ?? 0;
  return scan.records.map((record) => {
    const at = offset;
    offset += encodeRecord(record, scan.table).length;
    return at;
  });
}

async function assertRecovered(dir: string, expected: string[]): Promise<void> {
  const { lines, log } = collectLog();
  const store = await SqlJsStore.open(dir, { log });
  assert.deepEqual(taskIds(store), expected);
  assert.equal(store.read((reader) => reader.get<{ integrity_check: string }>('PRAGMA integrity_check'))?.integrity_check, 'ok');
  assert.ok(
    lines.some((line) => /Recovered from foreman\.db\.1/.test(line) && /foreman\.db:/.test(line)),
    lines.join('\n'),
  );
  assert.ok(
    fs.readdirSync(dir).some((name) => name.startsWith('foreman.db.damaged-')),
    'the damaged image is kept',
  );
  store.close();
  // The recovery was checkpointed: a plain reopen needs no backup any more.
  const again = collectLog();
  const reopened = await SqlJsStore.open(dir, { log: again.log });
  assert.deepEqual(taskIds(reopened), expected);
  assert.deepEqual(again.lines, []);
  reopened.close();
}

describe('a damaged foreman.db', () => {
  it('zero-length: recovered from the backup plus the journals', async () => {
    const { dir, expected } = await folderWithHistory();
    fs.truncateSync(path.join(dir, 'foreman.db'), 0);
    await assertRecovered(dir, expected);
  });

  it('truncated: recovered from the backup plus the journals', async () => {
    const { dir, expected } = await folderWithHistory();
    const image = path.join(dir, 'foreman.db');
    fs.truncateSync(image, Math.floor(fs.statSync(image).size / 2));
    await assertRecovered(dir, expected);
  });

  it('garbled pages: recovered from the backup plus the journals', async () => {
    const { dir, expected } = await folderWithHistory();
    const image = path.join(dir, 'foreman.db');
    garble(image, 4096, fs.statSync(image).size - 8192);
    await assertRecovered(dir, expected);
  });

  it('garbled header: recovered from the backup plus the journals', async () => {
    const { dir, expected } = await folderWithHistory();
    garble(path.join(dir, 'foreman.db'), 0, 100);
    await assertRecovered(dir, expected);
  });

  it('garbled pages in an image without a checksum trailer (written by another tool): caught by SQLite, recovered', async () => {
    const { dir, expected } = await folderWithHistory();
    const image = path.join(dir, 'foreman.db');
    fs.truncateSync(image, fs.statSync(image).size - 48);
    garble(image, 8192, fs.statSync(image).size - 16384);
    await assertRecovered(dir, expected);
  });

  it('an intact image without a checksum trailer: opens', async () => {
    const { dir, expected } = await folderWithHistory();
    const image = path.join(dir, 'foreman.db');
    fs.truncateSync(image, fs.statSync(image).size - 48);
    const { lines, log } = collectLog();
    const store = await SqlJsStore.open(dir, { log });
    assert.deepEqual(taskIds(store), expected);
    assert.deepEqual(lines, []);
    store.close();
  });

  it('zero-length with no backup and a journal not starting at seq 1: refused, naming the file, changing nothing', async () => {
    const { dir } = await folderWithHistory({ backups: 0 });
    fs.truncateSync(path.join(dir, 'foreman.db'), 0);
    const before = snapshot(dir);
    await assert.rejects(SqlJsStore.open(dir), (error: unknown) => {
      assert.ok(error instanceof StoreError && error.code === 'damaged');
      assert.match(error.message, /foreman\.db: it is empty/);
      assert.match(error.message, /Move the \.foreman folder aside/);
      return true;
    });
    assert.deepEqual(snapshot(dir), before);
  });

  it('zero-length with no backup but journals from seq 1: rebuilt from the journals', async () => {
    const dir = tempForemanDir();
    const store = await SqlJsStore.open(dir, { backups: 0 });
    for (const id of ids('x', 10)) store.write(insertTask(id));
    const copy = copyOf(dir);
    store.close();
    fs.truncateSync(path.join(copy, 'foreman.db'), 0);
    const { lines, log } = collectLog();
    const rebuilt = await SqlJsStore.open(copy, { log });
    assert.deepEqual(taskIds(rebuilt), ids('x', 10));
    assert.ok(
      lines.some((line) => /Rebuilt the database from the journals \(seq 1 to 10\)/.test(line)),
      lines.join('\n'),
    );
    rebuilt.close();
  });
});

describe('a damaged journal', () => {
  it('a garbled record in the middle of the current journal: refused, naming the file and byte offset', async () => {
    const { dir } = await folderWithHistory();
    const journal = path.join(dir, 'foreman.journal');
    const offset = journalRecordOffsets(journal)[5] ?? assert.fail('journal too short');
    garble(journal, offset + 10, 20);
    const before = snapshot(dir);
    await assert.rejects(SqlJsStore.open(dir), (error: unknown) => {
      assert.ok(error instanceof StoreError && error.code === 'damaged');
      assert.match(error.message, new RegExp(`foreman\\.journal has \\d+ unreadable bytes at byte offset ${offset}`));
      assert.match(error.message, /seq \d+ is missing/);
      assert.match(error.message, /Nothing was changed/);
      return true;
    });
    assert.deepEqual(snapshot(dir), before, 'never replaced by an empty database');
  });

  it('a garbled record in an older journal that the current image covers: opens normally', async () => {
    const { dir, expected } = await folderWithHistory();
    const older = path.join(dir, 'foreman.journal.1');
    const offset = journalRecordOffsets(older)[5] ?? assert.fail('journal too short');
    garble(older, offset + 10, 20);
    const store = await SqlJsStore.open(dir);
    assert.deepEqual(taskIds(store), expected);
    store.close();
  });

  it('a torn last record: ignored, logged, and cut off so later records stay readable', async () => {
    const { dir, expected } = await folderWithHistory();
    const journal = path.join(dir, 'foreman.journal');
    const whole = encodeRecord({ seq: 10_000, ts: 0, stmts: [['DELETE FROM tasks', []]] });
    fs.appendFileSync(journal, whole.subarray(0, whole.length - 7));
    const { lines, log } = collectLog();
    const store = await SqlJsStore.open(dir, { log });
    assert.deepEqual(taskIds(store), expected);
    assert.ok(
      lines.some((line) => /foreman\.journal: ignoring an incomplete last record at byte offset/.test(line)),
      lines.join('\n'),
    );
    store.write(insertTask('z'));
    const copy = copyOf(dir);
    store.close();
    const reopened = await SqlJsStore.open(copy);
    assert.deepEqual(taskIds(reopened), [...expected, 'z']);
    reopened.close();
  });

  it('every image damaged and the journals not reaching back to seq 1: refused, naming every file', async () => {
    const { dir } = await folderWithHistory();
    for (const name of ['foreman.db', 'foreman.db.1', 'foreman.db.2']) {
      if (fs.existsSync(path.join(dir, name))) garble(path.join(dir, name), 0, 100);
    }
    fs.rmSync(path.join(dir, 'foreman.journal.2'), { force: true });
    await assert.rejects(SqlJsStore.open(dir), (error: unknown) => {
      assert.ok(error instanceof StoreError && error.code === 'damaged');
      assert.match(error.message, /foreman\.db: its checksum does not match/);
      assert.match(error.message, /foreman\.db\.1: its checksum does not match/);
      return true;
    });
  });
});
