/**
 * The store knows what it acknowledged (foreman.ack beside the image's journal_seq) and refuses a
 * folder that lost any of it, instead of opening less as if it were whole (issue 10, item 1).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { SqlJsStore, StoreError } from '../../../src/infra/db/index';
import { writeImageFile, readImageFile } from '../../../src/infra/db/imageFile';
import { decodeHeaderAt, encodeRecord, scanJournal } from '../../../src/infra/db/journalFormat';
import { loadSqlJs } from '../../../src/infra/db/sqlJsModule';
import { collectLog, copyOf, insertTask, tempForemanDir } from './helpers';

const ids = (prefix: string, count: number): string[] => Array.from({ length: count }, (_, i) => `${prefix}${i}`);

/** A folder as a killed one-shot owner leaves it: `checkpoints` checkpoints, then `count` more writes. */
async function folder(count: number, checkpoints = 0): Promise<{ dir: string; written: string[] }> {
  const dir = tempForemanDir();
  const store = await SqlJsStore.open(dir);
  const written: string[] = [];
  const write = (id: string): void => {
    written.push(id);
    store.write(insertTask(id));
  };
  for (let round = 0; round < checkpoints; round++) {
    ids(`c${round}-`, 5).forEach(write);
    store.checkpoint();
  }
  ids('w', count).forEach(write);
  const copy = copyOf(dir);
  store.close();
  return { dir: copy, written };
}

function taskIds(store: SqlJsStore): string[] {
  return store.read((reader) => reader.all<{ id: string }>('SELECT id FROM tasks ORDER BY rowid').map((row) => row.id));
}

function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(
    fs
      .readdirSync(dir)
      .sort()
      .map((name) => [name, fs.readFileSync(path.join(dir, name)).toString('base64')]),
  );
}

/** The refusal for a folder whose journals reach `reached` while foreman.ack says `acked`. */
function lostMessage(dir: string, acked: number, reached: number, journal: string, image = 'foreman.db', backups?: string): string {
  const kept = backups
    ? `the older generations kept here (${backups}) hold only what earlier checkpoints had`
    : 'no older generation is kept here';
  return (
    `The Foreman database in ${dir} has lost acknowledged writes: foreman.ack records that every write up to seq ${acked} ` +
    `was acknowledged, but ${image} plus the journals reach only seq ${reached} (${journal}). ` +
    'Nothing was changed: Foreman does not open a store that holds less than it acknowledged. ' +
    `To restore, put back foreman.journal (and foreman.db) from a backup of ${dir} taken after seq ${acked}; ` +
    `${kept}. To go on without seqs ${reached + 1} to ${acked} instead, run: echo ${reached} > ${dir}/foreman.ack`
  );
}

async function assertRefused(dir: string, message: string | RegExp): Promise<void> {
  const before = snapshot(dir);
  await assert.rejects(SqlJsStore.open(dir), (error: unknown) => {
    assert.ok(error instanceof StoreError && error.code === 'damaged', String(error));
    if (typeof message === 'string') assert.equal(error.message, message);
    else assert.match(error.message, message);
    return true;
  });
  assert.deepEqual(snapshot(dir), before, 'a refusal changes nothing');
}

function recordEnds(file: string): number[] {
  const bytes = fs.readFileSync(file);
  const scan = scanJournal(bytes);
  // After the segment's header, if it has one; each record as it was written, against its table.
  let offset = decodeHeaderAt(bytes, 0)?.end ?? 0;
  return scan.records.map((record) => (offset += encodeRecord(record, scan.table).length));
}

describe('a store that lost acknowledged writes is refused', () => {
  it('an emptied journal before any checkpoint (the image is the one from init)', async () => {
    const { dir } = await folder(3);
    fs.truncateSync(path.join(dir, 'foreman.journal'), 0);
    await assertRefused(dir, lostMessage(dir, 3, 0, 'foreman.journal is empty'));
  });

  it('a deleted journal before any checkpoint', async () => {
    const { dir } = await folder(3);
    fs.rmSync(path.join(dir, 'foreman.journal'));
    await assertRefused(dir, lostMessage(dir, 3, 0, 'foreman.journal is missing'));
  });

  it('an emptied journal after checkpoints drops only what came after the last one: refused', async () => {
    const { dir } = await folder(4, 2);
    fs.truncateSync(path.join(dir, 'foreman.journal'), 0);
    await assertRefused(
      dir,
      lostMessage(
        dir,
        14,
        10,
        'foreman.journal is empty',
        'foreman.db',
        'foreman.db.1, foreman.db.2, foreman.journal.1, foreman.journal.2',
      ),
    );
  });

  it('a journal cut at a record boundary', async () => {
    const { dir } = await folder(6);
    const journal = path.join(dir, 'foreman.journal');
    fs.truncateSync(journal, recordEnds(journal)[3]);
    await assertRefused(dir, lostMessage(dir, 6, 4, 'foreman.journal ends at seq 4'));
  });

  it('a journal cut mid-record', async () => {
    const { dir } = await folder(6);
    const journal = path.join(dir, 'foreman.journal');
    const ends = recordEnds(journal);
    fs.truncateSync(journal, ends[3]! + 11);
    await assertRefused(
      dir,
      lostMessage(dir, 6, 4, `foreman.journal ends at seq 4, followed by 11 unreadable bytes at byte offset ${ends[3]}`),
    );
  });

  it('a flipped byte in the last record (it fails its checksum)', async () => {
    const { dir } = await folder(6);
    const journal = path.join(dir, 'foreman.journal');
    const ends = recordEnds(journal);
    const bytes = fs.readFileSync(journal);
    bytes[ends[5]! - 3]! ^= 0x01;
    fs.writeFileSync(journal, bytes);
    const length = ends[5]! - ends[4]!;
    await assertRefused(
      dir,
      lostMessage(dir, 6, 5, `foreman.journal ends at seq 5, followed by ${length} unreadable bytes at byte offset ${ends[4]}`),
    );
  });

  it('foreman.ack deleted: the image says the file is required', async () => {
    const { dir } = await folder(3);
    fs.rmSync(path.join(dir, 'foreman.ack'));
    await assertRefused(
      dir,
      `foreman.ack is missing from ${dir}, so Foreman cannot tell whether the journal holds every acknowledged write; ` +
        'foreman.db plus the journals reach seq 3 (foreman.journal ends at seq 3). Nothing was changed. ' +
        `Restore foreman.ack from a backup of the folder, or, if you know that no write after that was acknowledged, run: echo 3 > ${dir}/foreman.ack`,
    );
  });

  it('foreman.ack and the journal both emptied', async () => {
    const { dir } = await folder(3);
    fs.truncateSync(path.join(dir, 'foreman.journal'), 0);
    fs.truncateSync(path.join(dir, 'foreman.ack'), 0);
    await assertRefused(dir, /^foreman\.ack in .* does not hold a seq \(it reads ""\), so Foreman cannot tell whether the journal holds/);
  });

  it('every image and journal deleted, foreman.ack left', async () => {
    const { dir } = await folder(3);
    for (const name of fs.readdirSync(dir)) if (/^foreman\.(db|journal)/.test(name)) fs.rmSync(path.join(dir, name));
    await assertRefused(
      dir,
      `The Foreman database in ${dir} is gone: there is no foreman.db and no foreman.journal (nor older generations), but ` +
        `foreman.ack records that every write up to seq 3 was acknowledged. Nothing was changed. Restore the files from a backup ` +
        `of ${dir}; to start an empty database instead, remove ${dir}/foreman.ack.`,
    );
  });
});

describe('what is not a loss', () => {
  it('a torn last record beyond the acknowledged mark: dropped as never acknowledged', async () => {
    const { dir, written } = await folder(4);
    const whole = encodeRecord({ seq: 5, ts: 0, stmts: [['DELETE FROM tasks', []]] });
    fs.appendFileSync(path.join(dir, 'foreman.journal'), whole.subarray(0, whole.length - 5));
    const { lines, log } = collectLog();
    const store = await SqlJsStore.open(dir, { log });
    assert.deepEqual(taskIds(store), written);
    assert.ok(
      lines.some((line) => /ignoring an incomplete last record/.test(line)),
      lines.join('\n'),
    );
    store.close();
  });

  it('a mark that lags the journal (an OS crash lost its last update): opens whole and raises it', async () => {
    const { dir, written } = await folder(5);
    fs.writeFileSync(path.join(dir, 'foreman.ack'), '2\n');
    const store = await SqlJsStore.open(dir);
    assert.deepEqual(taskIds(store), written);
    store.close();
    assert.equal(fs.readFileSync(path.join(dir, 'foreman.ack'), 'latin1'), '0000000000000005\n');
  });

  it('a person accepting the loss (echo N > foreman.ack) opens what is left', async () => {
    const { dir, written } = await folder(6);
    const journal = path.join(dir, 'foreman.journal');
    fs.truncateSync(journal, recordEnds(journal)[3]);
    fs.writeFileSync(path.join(dir, 'foreman.ack'), '4\n');
    const store = await SqlJsStore.open(dir);
    assert.deepEqual(taskIds(store), written.slice(0, 4));
    store.write(insertTask('after'));
    const copy = copyOf(dir);
    store.close();
    const reopened = await SqlJsStore.open(copy);
    assert.deepEqual(taskIds(reopened), [...written.slice(0, 4), 'after']);
    reopened.close();
  });

  it('a store from before foreman.ack existed opens, and is upgraded to require it', async () => {
    const { dir, written } = await folder(3);
    // Make the image look like an older Foreman's: no ack_file key, and no foreman.ack.
    const SQL = await loadSqlJs();
    const read = readImageFile(path.join(dir, 'foreman.db'));
    assert.equal(read.kind, 'image');
    const database = new SQL.Database(read.kind === 'image' ? read.bytes : undefined);
    database.run(`DELETE FROM meta WHERE key = 'ack_file'`);
    writeImageFile(path.join(dir, 'foreman.db'), database.export());
    database.close();
    fs.rmSync(path.join(dir, 'foreman.ack'));
    const store = await SqlJsStore.open(dir);
    assert.deepEqual(taskIds(store), written);
    store.close();
    fs.rmSync(path.join(dir, 'foreman.ack'));
    await assert.rejects(SqlJsStore.open(dir), /foreman\.ack is missing/);
  });

  it('an acknowledged write raises the mark before it returns; a non-durable one only at the next sync', async () => {
    const dir = tempForemanDir();
    const store = await SqlJsStore.open(dir);
    const mark = (): string => fs.readFileSync(path.join(dir, 'foreman.ack'), 'latin1').trim();
    store.write(insertTask('a'));
    assert.equal(Number(mark()), 1);
    store.write(insertTask('b'), { durable: false });
    assert.equal(Number(mark()), 1);
    store.write(insertTask('c'));
    assert.equal(Number(mark()), 3);
    store.close();
  });
});
