import { randomUUID } from 'node:crypto';
import type { CommandArgs } from '../core/requests';
import { type Result, invalid, ok } from '../core/result';
import type { BlobStore, Reader } from './ports';
import type { Unit } from './unit';

export interface BusMessage {
  readonly seq: number;
  readonly id: string;
  readonly ts: number;
  readonly from: string;
  readonly to: string | null;
  readonly type: string;
  readonly correlationId: string | null;
  readonly inReplyTo: string | null;
  readonly payload: unknown;
}

interface MessageRow {
  seq: number;
  id: string;
  ts_ms: number;
  from_agent: string;
  to_agent: string | null;
  type: string;
  correlation_id: string | null;
  in_reply_to: string | null;
  payload: string | null;
  payload_ref: string | null;
}

export interface BusSettings {
  readonly inlinePayloadBytes: number;
  readonly maxPayloadBytes: number;
}

/**
 * The message bus of seed 002: at-least-once delivery. Publishing is idempotent by message id,
 * polling never moves the cursor, acknowledging only moves it forward.
 */
export class MessageBus {
  constructor(
    private readonly settings: BusSettings,
    private readonly blobs: BlobStore,
    private readonly newId: () => string = randomUUID,
  ) {}

  publish(unit: Unit, args: CommandArgs<'send'>): Result<{ seq: number; id: string; duplicate: boolean }> {
    const id = args.id ?? this.newId();
    const existing = unit.tx.get<{ seq: number }>('SELECT seq FROM messages WHERE id = ?', [id]);
    if (existing) return ok({ seq: existing.seq, id, duplicate: true });
    const text = args.payload === undefined ? null : JSON.stringify(args.payload);
    const bytes = text === null ? 0 : Buffer.byteLength(text);
    if (bytes > this.settings.maxPayloadBytes) {
      return invalid(
        'payloadTooLarge',
        `payload: ${bytes} bytes is over the limit of ${this.settings.maxPayloadBytes}; put large data in a file and send its path.`,
      );
    }
    const ref = text !== null && bytes > this.settings.inlinePayloadBytes ? this.blobs.put(Buffer.from(text)) : null;
    const [row] = unit.tx.returning<{ seq: number }>(
      `INSERT INTO messages (id, ts_ms, from_agent, to_agent, type, correlation_id, in_reply_to, payload, payload_ref)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq`,
      [id, unit.now, args.from, args.to ?? null, args.type, args.correlationId ?? null, args.inReplyTo ?? null, ref ? null : text, ref],
    );
    unit.events.push({ kind: 'message', seq: row!.seq, to: args.to ?? null });
    return ok({ seq: row!.seq, id, duplicate: false });
  }

  /** Messages for an agent (direct and broadcast, not its own) after its cursor. */
  poll(reader: Reader, agent: string, limit: number): { cursor: number; messages: BusMessage[] } {
    const cursor = this.cursor(reader, agent);
    const rows = reader.all<MessageRow>(
      `SELECT * FROM messages WHERE seq > ? AND (to_agent = ? OR to_agent IS NULL) AND from_agent <> ? ORDER BY seq LIMIT ?`,
      [cursor, agent, agent, limit],
    );
    return { cursor, messages: rows.map((row) => this.toMessage(row)) };
  }

  ack(unit: Unit, agent: string, seq: number): Result<{ cursor: number; moved: boolean }> {
    const last = unit.tx.get<{ seq: number | null }>('SELECT MAX(seq) AS seq FROM messages')!.seq ?? 0;
    if (seq > last) return invalid('seqOutOfRange', `seq: ${seq} is past the last message (${last}); acknowledge a seq you polled.`);
    const cursor = this.cursor(unit.tx, agent);
    if (seq <= cursor) return ok({ cursor, moved: false });
    unit.tx.run(
      `INSERT INTO cursors (agent_id, last_acked_seq, updated_at_ms) VALUES (?, ?, ?)
       ON CONFLICT(agent_id) DO UPDATE SET last_acked_seq = MAX(cursors.last_acked_seq, excluded.last_acked_seq), updated_at_ms = excluded.updated_at_ms`,
      [agent, seq, unit.now],
    );
    return ok({ cursor: seq, moved: true });
  }

  /** Deletes messages every cursor has passed and the export has written. */
  compact(unit: Unit): Result<{ removed: number; below: number }> {
    const lowestCursor = unit.tx.get<{ low: number | null }>('SELECT MIN(last_acked_seq) AS low FROM cursors')!.low ?? 0;
    const exported = unit.tx.get<{ last_seq: number }>(`SELECT last_seq FROM export_state WHERE stream = 'messages'`)?.last_seq ?? 0;
    const below = Math.min(lowestCursor, exported);
    const removed = unit.tx.run('DELETE FROM messages WHERE seq <= ?', [below]);
    return ok({ removed, below });
  }

  cursor(reader: Reader, agent: string): number {
    return reader.get<{ last_acked_seq: number }>('SELECT last_acked_seq FROM cursors WHERE agent_id = ?', [agent])?.last_acked_seq ?? 0;
  }

  toMessage(row: MessageRow): BusMessage {
    const text = row.payload_ref ? Buffer.from(this.blobs.get(row.payload_ref) ?? []).toString('utf8') : row.payload;
    return {
      seq: row.seq,
      id: row.id,
      ts: row.ts_ms,
      from: row.from_agent,
      to: row.to_agent,
      type: row.type,
      correlationId: row.correlation_id,
      inReplyTo: row.in_reply_to,
      payload: text ? (JSON.parse(text) as unknown) : null,
    };
  }
}
