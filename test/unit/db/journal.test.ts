import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crc32, decodeRecordAt, encodeRecord, scanJournal } from '../../../src/infra/db/journalFormat';
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
  return Buffer.concat(records.map(encodeRecord));
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
