import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  crc32,
  decodeHeaderAt,
  decodeRecordAt,
  encodeHeader,
  encodeRecord,
  maxStatements,
  nextStatements,
  scanJournal,
  statementTable,
} from '../../../src/infra/db/journalFormat';
import type { JournalRecord } from '../../../src/infra/db/journalFormat';

function record(seq: number, extra: Partial<JournalRecord> = {}): JournalRecord {
  return {
    seq,
    ts: 1_700_000_000_000 + seq,
    schema: 1,
    stmts: [['UPDATE tasks SET status = ? WHERE id = ?', ['running', `task-${seq}`]]],
    ...extra,
  };
}

function flip(buffer: Buffer, index: number): void {
  buffer.writeUInt8(buffer.readUInt8(index) ^ 0xff, index);
}

function journalOf(...records: JournalRecord[]): Buffer {
  return Buffer.concat(records.map((record) => encodeRecord(record)));
}

describe('crc32', () => {
  it('matches the standard check values', () => {
    assert.equal(crc32(Buffer.from('123456789')), 0xcbf43926);
    assert.equal(crc32(Buffer.alloc(0)), 0);
    assert.equal(crc32(Buffer.from('The quick brown fox jumps over the lazy dog')), 0x414fa339);
  });
});

describe('journal records', () => {
  it('round-trip, including bytes, nulls and non-finite numbers', () => {
    const bytes = new Uint8Array([0, 1, 2, 250, 255]);
    const original = record(7, { stmts: [['INSERT INTO t VALUES (?, ?, ?, ?, ?)', ['é ✓', 42.5, null, bytes, Number.POSITIVE_INFINITY]]] });
    const decoded = decodeRecordAt(encodeRecord(original), 0);
    assert.ok(decoded);
    assert.deepEqual(decoded.record, original);
    assert.ok(decoded.record.stmts[0]?.[1][3] instanceof Uint8Array);
  });

  it('reads a subarray Uint8Array as its own bytes only', () => {
    const backing = new Uint8Array([9, 9, 1, 2, 3, 9]);
    const decoded = decodeRecordAt(encodeRecord(record(1, { stmts: [['X', [backing.subarray(2, 5)]]] })), 0);
    assert.deepEqual(decoded?.record.stmts[0]?.[1][0], new Uint8Array([1, 2, 3]));
  });

  it('writes the payload exactly as JSON.stringify of the record would, statement text reused or not', () => {
    const sql = `INSERT INTO t (a, b)\n  VALUES (?, ?) -- "quoted" \\ and ✓`;
    const records: JournalRecord[] = [
      record(1),
      record(2, { schema: undefined, stmts: [] }),
      record(3, {
        stmts: [
          [sql, ['x', null]],
          [sql, [new Uint8Array([1, 2]), Number.NaN, -0, 1e21]],
          ['DELETE FROM t', []],
        ],
      }),
      record(4, { stmts: [[sql, ['again', 7]]] }),
    ];
    for (const original of records) {
      const { schema, ...rest } = original;
      const stmts = original.stmts.map(([text, params]) => [
        text,
        params.map((value) =>
          value instanceof Uint8Array
            ? { $b64: Buffer.from(value).toString('base64') }
            : typeof value === 'number' && !Number.isFinite(value)
              ? { $num: String(value) }
              : value,
        ),
      ]);
      const expected = JSON.stringify({ seq: rest.seq, ts: rest.ts, ...(schema === undefined ? {} : { schema }), stmts });
      assert.equal(encodeRecord(original).subarray(8).toString('utf8'), expected);
    }
  });

  it('rejects a record whose checksum does not match', () => {
    const buffer = encodeRecord(record(1));
    flip(buffer, buffer.length - 3);
    assert.equal(decodeRecordAt(buffer, 0), undefined);
  });
});

describe('scanJournal', () => {
  it('reads every record of an intact journal', () => {
    const scan = scanJournal(journalOf(record(1), record(2), record(3)));
    assert.deepEqual(
      scan.records.map((r) => r.seq),
      [1, 2, 3],
    );
    assert.equal(scan.tornTail, undefined);
    assert.deepEqual(scan.damage, []);
  });

  it('ignores a torn last record: cut short, header only, or failing its checksum', () => {
    const intact = journalOf(record(1), record(2));
    const last = encodeRecord(record(3));
    const corrupted = Buffer.from(last);
    flip(corrupted, 20);
    for (const tail of [last.subarray(0, last.length - 5), last.subarray(0, 6), corrupted, Buffer.alloc(64)]) {
      const scan = scanJournal(Buffer.concat([intact, tail]));
      assert.deepEqual(
        scan.records.map((r) => r.seq),
        [1, 2],
      );
      assert.deepEqual(scan.tornTail, { offset: intact.length, length: tail.length });
      assert.equal(scan.validBytes, intact.length);
      assert.deepEqual(scan.damage, []);
    }
  });

  it('reports garbage in the middle as damage, with its offset, and still reads what follows', () => {
    const first = journalOf(record(1));
    const second = encodeRecord(record(2));
    flip(second, 12);
    const scan = scanJournal(Buffer.concat([first, second, journalOf(record(3), record(4))]));
    assert.deepEqual(
      scan.records.map((r) => r.seq),
      [1, 3, 4],
    );
    assert.deepEqual(scan.damage, [{ offset: first.length, length: second.length }]);
    assert.equal(scan.tornTail, undefined);
  });

  it('treats a well-formed checksum over a non-record payload as invalid', () => {
    const payload = Buffer.from('not json');
    const header = Buffer.alloc(8);
    header.writeUInt32LE(payload.length, 0);
    header.writeUInt32LE(crc32(payload), 4);
    const scan = scanJournal(Buffer.concat([journalOf(record(1)), header, payload]));
    assert.deepEqual(
      scan.records.map((r) => r.seq),
      [1],
    );
    assert.ok(scan.tornTail);
  });
});

describe('compact records: a segment header numbers the statements (issue 34)', () => {
  const claim = 'UPDATE tasks SET status = ? WHERE id = ?';
  const insert = 'INSERT INTO transitions (entity_id, trigger) VALUES (?, ?)';
  const table = statementTable([claim, insert]);

  it('writes a numbered statement as its number, and reads it back as its text', () => {
    const original = record(5, {
      stmts: [
        [claim, ['running', 'task-5']],
        [insert, ['task-5', 'claim']],
        ['DELETE FROM tasks', []],
      ],
    });
    const compact = encodeRecord(original, table);
    assert.equal(
      compact.subarray(8).toString('utf8'),
      `{"seq":5,"ts":1700000000005,"schema":1,"table":${table.id},"stmts":[[0,["running","task-5"]],[1,["task-5","claim"]],["DELETE FROM tasks",[]]]}`,
    );
    assert.ok(compact.length < encodeRecord(original).length);
    assert.deepEqual(decodeRecordAt(compact, 0, table)?.record, original);
  });

  it('scans a segment that begins with a header, and one without (the format before headers)', () => {
    const records = [record(1), record(2, { stmts: [[insert, ['task-2', 'claim']]] })];
    const withHeader = Buffer.concat([encodeHeader(table.statements), ...records.map((r) => encodeRecord(r, table))]);
    const scan = scanJournal(withHeader);
    assert.deepEqual(scan.table.statements, table.statements);
    assert.deepEqual(scan.records, records);
    assert.equal(scan.validBytes, withHeader.length);
    assert.deepEqual(scan.damage, []);
    const old = scanJournal(journalOf(...records));
    assert.deepEqual(old.table.statements, []);
    assert.deepEqual(old.records, records);
  });

  it('reads bytes from the middle of a segment with the table it is given', () => {
    const tail = encodeRecord(record(3), table);
    assert.deepEqual(scanJournal(tail, table).records, [record(3)]);
  });

  it('never reads a number with another table than its own: the record is unreadable, not another statement', () => {
    const compact = encodeRecord(record(1), table);
    assert.equal(decodeRecordAt(compact, 0, statementTable([])), undefined);
    assert.equal(decodeRecordAt(compact, 0), undefined);
    // A header whose number 0 is another statement (only a bug could write one): still unreadable.
    const scan = scanJournal(Buffer.concat([encodeHeader([insert, claim]), compact]));
    assert.deepEqual(scan.records, []);
    assert.ok(scan.tornTail, 'a record written against another table is not replayed');
  });

  it('a header is never taken for a record, nor a record for a header', () => {
    assert.equal(decodeRecordAt(encodeHeader([claim]), 0), undefined);
    assert.equal(decodeHeaderAt(encodeRecord(record(1)), 0), undefined);
  });

  it('the next table keeps every number and adds the statements written as text more than once', () => {
    const unnumbered = new Map<string, number>();
    for (let i = 0; i < 3; i++)
      encodeRecord(
        record(i, {
          stmts: [
            [insert, [i, 'claim']],
            ['DELETE FROM tasks', []],
          ],
        }),
        statementTable([claim]),
        unnumbered,
      );
    encodeRecord(record(9, { stmts: [['SELECT 1', []]] }), statementTable([claim]), unnumbered);
    assert.deepEqual(nextStatements(statementTable([claim]), unnumbered), [claim, insert, 'DELETE FROM tasks']);
    assert.equal(unnumbered.size, 0);
    const full = statementTable(Array.from({ length: maxStatements }, (_, i) => `SELECT ${i}`));
    assert.equal(nextStatements(full, new Map([[insert, 5]])).length, maxStatements);
  });
});
