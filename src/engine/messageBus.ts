import { randomUUID } from 'node:crypto';
import type { CommandArgs } from '../core/requests';
import { type Result, invalid, ok } from '../core/result';
import type { BlobStore, Reader } from './ports';
import {
  type MessageRow,
  advanceCursor,
  deleteMessagesThrough,
  findCursor,
  findMessageSeq,
  insertMessage,
  lastMessageSeq,
  listMessagesFor,
  lowestCursor,
  readExportedSeq,
} from './queries';
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
    const existing = findMessageSeq(unit.tx, id);
    if (existing !== undefined) return ok({ seq: existing, id, duplicate: true });
    const text = args.payload === undefined ? null : JSON.stringify(args.payload);
    const bytes = text === null ? 0 : Buffer.byteLength(text);
    if (bytes > this.settings.maxPayloadBytes) {
      return invalid(
        'payloadTooLarge',
        `payload: ${bytes} bytes is over the limit of ${this.settings.maxPayloadBytes}; put large data in a file and send its path.`,
      );
    }
    const ref = text !== null && bytes > this.settings.inlinePayloadBytes ? this.blobs.put(Buffer.from(text)) : null;
    const seq = insertMessage(unit.tx, {
      id,
      tsMs: unit.now,
      from: args.from,
      to: args.to ?? null,
      type: args.type,
      correlationId: args.correlationId ?? null,
      inReplyTo: args.inReplyTo ?? null,
      payload: ref ? null : text,
      payloadRef: ref,
    });
    unit.events.push({ kind: 'message', seq, to: args.to ?? null });
    return ok({ seq, id, duplicate: false });
  }

  /** Messages for an agent (direct and broadcast, not its own) after its cursor. */
  poll(reader: Reader, agent: string, limit: number): { cursor: number; messages: BusMessage[] } {
    const cursor = this.cursor(reader, agent);
    const rows = listMessagesFor(reader, agent, cursor, limit);
    return { cursor, messages: rows.map((row) => this.toMessage(row)) };
  }

  ack(unit: Unit, agent: string, seq: number): Result<{ cursor: number; moved: boolean }> {
    const last = lastMessageSeq(unit.tx);
    if (seq > last) return invalid('seqOutOfRange', `seq: ${seq} is past the last message (${last}); acknowledge a seq you polled.`);
    const cursor = this.cursor(unit.tx, agent);
    if (seq <= cursor) return ok({ cursor, moved: false });
    advanceCursor(unit.tx, agent, seq, unit.now);
    return ok({ cursor: seq, moved: true });
  }

  /** Deletes messages every cursor has passed and the export has written. */
  compact(unit: Unit): Result<{ removed: number; below: number }> {
    const below = Math.min(lowestCursor(unit.tx), readExportedSeq(unit.tx, 'messages'));
    const removed = deleteMessagesThrough(unit.tx, below);
    return ok({ removed, below });
  }

  cursor(reader: Reader, agent: string): number {
    return findCursor(reader, agent);
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
