/**
 * The redo journal's format (ARCHITECTURE §2): one checksummed record per committed transaction,
 * how it is encoded, and how a file of them is read back (journal.ts appends them).
 *
 * Record layout: `[u32 LE payload length][u32 LE crc32 of payload][payload: JSON, UTF-8]`, payload
 * `{ "seq": n, "ts": ms, "schema": v, "stmts": [[sql, params], ...] }`. `seq` grows by exactly one
 * per record over the database's whole life, across checkpoints and journal rotations.
 *
 * Compact records (issue 34): a segment may begin with a header, framed the same way, whose payload
 * is `{ "statements": [sql, ...] }`, the segment's statement table. A statement of a record in that
 * segment is then `[n, params]`, n its index in the table, instead of its text, and the record
 * carries `"table": <the table's CRC-32>` (`StatementTable.id`); a statement not in the table keeps
 * its text. A segment without a header (every segment written before headers, and
 * a new store's first) holds only texts, and reads as before. Each segment's table extends the one
 * before it (the same numbers, more statements), so the replica can follow the writes across a
 * rotation by taking each new header in turn.
 */
import * as zlib from 'node:zlib';
import type { SqlValue } from '../../engine/ports';

/** One write statement as executed: its SQL text and the values bound to its placeholders. */
export type JournalStatement = readonly [sql: string, params: readonly SqlValue[]];

/** One committed transaction. */
export interface JournalRecord {
  readonly seq: number;
  /** Wall-clock time of the commit, for people reading the journal; replay ignores it. */
  readonly ts: number;
  /** Schema version the statements were written against (absent in hand-made records). */
  readonly schema?: number;
  readonly stmts: readonly JournalStatement[];
}

const headerBytes = 8;
/** A length beyond this is garbage, not a record: it keeps resynchronisation cheap and safe. */
const maxPayloadBytes = 256 * 1024 * 1024;

const crcTable = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/**
 * zlib's CRC-32 where Node has it (20.15 and later): ~50× faster than the loop below, which was half
 * of reading a full 8 MiB journal at open (92 ms of 175). VS Code 1.90's Node (20.9) lacks it.
 */
const nativeCrc32: ((bytes: Uint8Array) => number) | undefined =
  'crc32' in zlib && typeof zlib.crc32 === 'function' ? zlib.crc32 : undefined;

/** CRC-32 (IEEE 802.3, the zlib/PNG polynomial). */
export function crc32(bytes: Uint8Array): number {
  if (nativeCrc32) return nativeCrc32(bytes);
  let crc = 0xffffffff;
  // The index is masked to 0..255, inside the table; `?? 0` only satisfies the index type.
  for (const byte of bytes) crc = (crcTable[(crc ^ byte) & 0xff] ?? 0) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** A segment's statement table: each statement's text by number, and the number of each text. */
export interface StatementTable {
  readonly statements: readonly string[];
  readonly numbers: ReadonlyMap<string, number>;
  /**
   * The CRC-32 of the table, carried by every record that numbers a statement: a record is then
   * read only with the very table it was written against, never another statement by mistake.
   */
  readonly id: number;
}

export function statementTable(statements: readonly string[]): StatementTable {
  const id = crc32(Buffer.from(JSON.stringify(statements), 'utf8'));
  return { statements, numbers: new Map(statements.map((sql, index) => [sql, index])), id };
}

/** The table of a segment without a header: every statement keeps its text. */
export const noStatements: StatementTable = statementTable([]);

/** A table never grows past this: statements built at run time (IN lists) must not bloat the headers. */
export const maxStatements = 512;

// JSON cannot carry bytes or non-finite numbers; tagged objects do, and plain values stay plain.
type EncodedValue = string | number | null | { $b64: string } | { $num: string };

function encodeValue(value: SqlValue): EncodedValue {
  if (value instanceof Uint8Array) return { $b64: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
  if (typeof value === 'number' && !Number.isFinite(value)) return { $num: String(value) };
  return value;
}

function decodeValue(value: unknown): SqlValue {
  if (value === null || typeof value === 'string' || typeof value === 'number') return value;
  if (typeof value === 'object') {
    const tagged = value as Record<string, unknown>;
    if (typeof tagged.$b64 === 'string') return new Uint8Array(Buffer.from(tagged.$b64, 'base64'));
    if (typeof tagged.$num === 'string') return Number(tagged.$num);
  }
  throw new Error(`unexpected journal value ${JSON.stringify(value)}`);
}

/**
 * The JSON text of each statement's SQL, kept because the same few statements are journalled over
 * and over (a heartbeat's upsert is 1 KiB of SQL): quoting it anew was most of encoding a record.
 * Bounded, since statements built at run time (an IN list of n placeholders) are not all the same.
 */
const quotedSql = new Map<string, string>();
const maxQuotedSql = 1024;

function quoteSql(sql: string): string {
  let quoted = quotedSql.get(sql);
  if (quoted === undefined) {
    quoted = JSON.stringify(sql);
    if (quotedSql.size < maxQuotedSql) quotedSql.set(sql, quoted);
  }
  return quoted;
}

function quoteParams(params: readonly SqlValue[]): string {
  for (const value of params) {
    if (value instanceof Uint8Array || (typeof value === 'number' && !Number.isFinite(value)))
      return JSON.stringify(params.map(encodeValue));
  }
  return JSON.stringify(params);
}

/**
 * Encodes a record into one buffer, so that it reaches the file in a single write. The payload is
 * exactly `JSON.stringify({ seq, ts, schema?, stmts })`, put together from parts, with each statement
 * that `table` numbers given as its number. `unnumbered` counts the statements it does not number,
 * for the next segment's table (`nextStatements`).
 */
export function encodeRecord(record: JournalRecord, table: StatementTable = noStatements, unnumbered?: Map<string, number>): Buffer {
  let json = `{"seq":${JSON.stringify(record.seq)},"ts":${JSON.stringify(record.ts)}`;
  if (record.schema !== undefined) json += `,"schema":${JSON.stringify(record.schema)}`;
  if (record.stmts.some(([sql]) => table.numbers.has(sql))) json += `,"table":${table.id}`;
  json += ',"stmts":[';
  for (let i = 0; i < record.stmts.length; i++) {
    const [sql, params] = record.stmts[i] as JournalStatement;
    const number = table.numbers.get(sql);
    if (number === undefined && unnumbered && (unnumbered.size < maxStatements || unnumbered.has(sql))) {
      unnumbered.set(sql, (unnumbered.get(sql) ?? 0) + 1);
    }
    json += `${i === 0 ? '' : ','}[${number ?? quoteSql(sql)},${quoteParams(params)}]`;
  }
  json += ']}';
  return framed(json);
}

/** A segment's header: its statement table, framed as a record is. */
export function encodeHeader(statements: readonly string[]): Buffer {
  return framed(JSON.stringify({ statements }));
}

/**
 * The next segment's table: this one's, then the statements it left as text that were written more
 * than once (most used first), up to `maxStatements`. Empties `unnumbered`.
 */
export function nextStatements(table: StatementTable, unnumbered: Map<string, number>): string[] {
  const added = [...unnumbered]
    .filter(([sql, count]) => count > 1 && !table.numbers.has(sql))
    .sort((a, b) => b[1] - a[1])
    .map(([sql]) => sql);
  unnumbered.clear();
  return [...table.statements, ...added].slice(0, Math.max(maxStatements, table.statements.length));
}

function framed(json: string): Buffer {
  const length = Buffer.byteLength(json, 'utf8');
  const buffer = Buffer.allocUnsafe(headerBytes + length);
  buffer.write(json, headerBytes, 'utf8');
  buffer.writeUInt32LE(length, 0);
  buffer.writeUInt32LE(crc32(buffer.subarray(headerBytes)), 4);
  return buffer;
}

/** Parses a payload; undefined when it is not a well-formed record (so it cannot be replayed). */
function parsePayload(payload: Buffer, table: StatementTable): JournalRecord | undefined {
  if (payload[0] !== 0x7b /* '{' */) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { seq, ts, schema, stmts, table: tableId } = parsed as Record<string, unknown>;
  if (!Number.isSafeInteger(seq) || (seq as number) < 1 || typeof ts !== 'number' || !Array.isArray(stmts)) return undefined;
  if (schema !== undefined && !Number.isSafeInteger(schema)) return undefined;
  try {
    const decoded = stmts.map((stmt: unknown): JournalStatement => {
      if (!Array.isArray(stmt) || !Array.isArray(stmt[1])) throw new Error('bad statement');
      // A number the table does not hold makes the record unreadable, never another statement.
      const sql: unknown = typeof stmt[0] !== 'number' ? stmt[0] : tableId === table.id ? table.statements[stmt[0]] : undefined;
      if (typeof sql !== 'string') throw new Error('bad statement');
      return [sql, (stmt[1] as unknown[]).map(decodeValue)];
    });
    return { seq: seq as number, ts, ...(schema === undefined ? {} : { schema: schema as number }), stmts: decoded };
  } catch {
    return undefined;
  }
}

/** The checksummed payload starting at `offset`, or undefined if there is none intact there. */
function payloadAt(bytes: Buffer, offset: number): { payload: Buffer; end: number } | undefined {
  if (bytes.length - offset < headerBytes) return undefined;
  const length = bytes.readUInt32LE(offset);
  const end = offset + headerBytes + length;
  if (length > maxPayloadBytes || end > bytes.length) return undefined;
  const payload = bytes.subarray(offset + headerBytes, end);
  if (crc32(payload) !== bytes.readUInt32LE(offset + 4)) return undefined;
  return { payload, end };
}

/** Decodes the record starting at `offset`, or undefined if there is no intact record there. */
export function decodeRecordAt(
  bytes: Buffer,
  offset: number,
  table: StatementTable = noStatements,
): { record: JournalRecord; end: number } | undefined {
  const framedPayload = payloadAt(bytes, offset);
  const record = framedPayload && parsePayload(framedPayload.payload, table);
  return record && { record, end: framedPayload.end };
}

/** How a header's payload begins (`encodeHeader`); a record's never does. */
const headerStart = Buffer.from('{"statements":');

/** Decodes the segment header starting at `offset`, or undefined if there is none intact there. */
export function decodeHeaderAt(bytes: Buffer, offset: number): { table: StatementTable; end: number } | undefined {
  const framedPayload = payloadAt(bytes, offset);
  if (!framedPayload?.payload.subarray(0, headerStart.length).equals(headerStart)) return undefined;
  try {
    const parsed: unknown = JSON.parse(framedPayload.payload.toString('utf8'));
    const statements = (parsed as { statements?: unknown } | null)?.statements;
    if (!Array.isArray(statements) || !statements.every((sql) => typeof sql === 'string')) return undefined;
    return { table: statementTable(statements), end: framedPayload.end };
  } catch {
    return undefined;
  }
}

/** Bytes that could not be read as records, followed by intact ones: not a torn write. */
export interface JournalDamage {
  readonly offset: number;
  readonly length: number;
}

export interface JournalScan {
  /** The segment's statement table (from its header; empty without one). */
  readonly table: StatementTable;
  /** Every intact record, in file order. */
  readonly records: JournalRecord[];
  /** Where the intact prefix plus any intact later records end; the file may be cut here. */
  readonly validBytes: number;
  /** A torn last write (incomplete or failing its checksum with nothing intact after it). */
  readonly tornTail?: { readonly offset: number; readonly length: number };
  /** Unreadable regions with intact records after them. */
  readonly damage: JournalDamage[];
}

/**
 * Reads every record. A bad region is resynchronised by searching for the next intact record:
 * if one exists the region is damage (acknowledged data may be missing there); if none does, it is
 * a torn tail from an interrupted append and may be dropped, as it was never acknowledged.
 */
export function scanJournal(bytes: Buffer, table?: StatementTable): JournalScan {
  const records: JournalRecord[] = [];
  const damage: JournalDamage[] = [];
  // A header only ever begins a segment; `table` is given for bytes read from further on.
  const header = table ? undefined : decodeHeaderAt(bytes, 0);
  const statements = table ?? header?.table ?? noStatements;
  let offset = header?.end ?? 0;
  while (offset < bytes.length) {
    const decoded = decodeRecordAt(bytes, offset, statements);
    if (decoded) {
      records.push(decoded.record);
      offset = decoded.end;
      continue;
    }
    let next = offset + 1;
    while (next < bytes.length && !decodeRecordAt(bytes, next, statements)) next++;
    if (next >= bytes.length) {
      return { table: statements, records, validBytes: offset, tornTail: { offset, length: bytes.length - offset }, damage };
    }
    damage.push({ offset, length: next - offset });
    offset = next;
  }
  return { table: statements, records, validBytes: offset, damage };
}
