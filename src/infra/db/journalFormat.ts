/**
 * The redo journal's format (ARCHITECTURE §2): one checksummed record per committed transaction,
 * how it is encoded, and how a file of them is read back (journal.ts appends them).
 *
 * Record layout: `[u32 LE payload length][u32 LE crc32 of payload][payload: JSON, UTF-8]`, payload
 * `{ "seq": n, "ts": ms, "schema": v, "stmts": [[sql, params], ...] }`. `seq` grows by exactly one
 * per record over the database's whole life, across checkpoints and journal rotations.
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
 * exactly `JSON.stringify({ seq, ts, schema?, stmts })`, put together from parts.
 */
export function encodeRecord(record: JournalRecord): Buffer {
  let json = `{"seq":${JSON.stringify(record.seq)},"ts":${JSON.stringify(record.ts)}`;
  if (record.schema !== undefined) json += `,"schema":${JSON.stringify(record.schema)}`;
  json += ',"stmts":[';
  for (let i = 0; i < record.stmts.length; i++) {
    const [sql, params] = record.stmts[i] as JournalStatement;
    json += `${i === 0 ? '' : ','}[${quoteSql(sql)},${quoteParams(params)}]`;
  }
  json += ']}';
  const length = Buffer.byteLength(json, 'utf8');
  const buffer = Buffer.allocUnsafe(headerBytes + length);
  buffer.write(json, headerBytes, 'utf8');
  buffer.writeUInt32LE(length, 0);
  buffer.writeUInt32LE(crc32(buffer.subarray(headerBytes)), 4);
  return buffer;
}

/** Parses a payload; undefined when it is not a well-formed record (so it cannot be replayed). */
function parsePayload(payload: Buffer): JournalRecord | undefined {
  if (payload[0] !== 0x7b /* '{' */) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { seq, ts, schema, stmts } = parsed as Record<string, unknown>;
  if (!Number.isSafeInteger(seq) || (seq as number) < 1 || typeof ts !== 'number' || !Array.isArray(stmts)) return undefined;
  if (schema !== undefined && !Number.isSafeInteger(schema)) return undefined;
  try {
    const decoded = stmts.map((stmt: unknown): JournalStatement => {
      if (!Array.isArray(stmt) || typeof stmt[0] !== 'string' || !Array.isArray(stmt[1])) throw new Error('bad statement');
      return [stmt[0], (stmt[1] as unknown[]).map(decodeValue)];
    });
    return { seq: seq as number, ts, ...(schema === undefined ? {} : { schema: schema as number }), stmts: decoded };
  } catch {
    return undefined;
  }
}

/** Decodes the record starting at `offset`, or undefined if there is no intact record there. */
export function decodeRecordAt(bytes: Buffer, offset: number): { record: JournalRecord; end: number } | undefined {
  if (bytes.length - offset < headerBytes) return undefined;
  const length = bytes.readUInt32LE(offset);
  const end = offset + headerBytes + length;
  if (length > maxPayloadBytes || end > bytes.length) return undefined;
  const payload = bytes.subarray(offset + headerBytes, end);
  if (crc32(payload) !== bytes.readUInt32LE(offset + 4)) return undefined;
  const record = parsePayload(payload);
  return record && { record, end };
}

/** Bytes that could not be read as records, followed by intact ones: not a torn write. */
export interface JournalDamage {
  readonly offset: number;
  readonly length: number;
}

export interface JournalScan {
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
export function scanJournal(bytes: Buffer): JournalScan {
  const records: JournalRecord[] = [];
  const damage: JournalDamage[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const decoded = decodeRecordAt(bytes, offset);
    if (decoded) {
      records.push(decoded.record);
      offset = decoded.end;
      continue;
    }
    let next = offset + 1;
    while (next < bytes.length && !decodeRecordAt(bytes, next)) next++;
    if (next >= bytes.length) {
      return { records, validBytes: offset, tornTail: { offset, length: bytes.length - offset }, damage };
    }
    damage.push({ offset, length: next - offset });
    offset = next;
  }
  return { records, validBytes: offset, damage };
}
