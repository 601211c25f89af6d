import type { NativeSql, Reader, SqlValue, Tx } from '../ports';
import { appendRow } from './appendRow';

/** The bus (seed 002): the `messages` table and each agent's acknowledged position in `cursors`. */

/** A message as stored. */
export interface MessageRow {
  seq: number;
  id: string;
  ts_ms: number;
  from_agent: string;
  to_agent: string | null;
  type: string;
  correlation_id: string | null;
  in_reply_to: string | null;
  /** JSON text when inline. */
  payload: string | null;
  /** The blob holding the payload when it was too large to keep inline. */
  payload_ref: string | null;
}

export interface MessageInsert {
  readonly id: string;
  readonly tsMs: number;
  readonly from: string;
  readonly to: string | null;
  readonly type: string;
  readonly correlationId: string | null;
  readonly inReplyTo: string | null;
  readonly payload: string | null;
  readonly payloadRef: string | null;
}

/** The seq of the message with this id, if it was published already. */
export function findMessageSeq(reader: Reader, id: string): number | undefined {
  return reader.get<{ seq: number }>('SELECT seq FROM messages WHERE id = ?', [id])?.seq;
}

/** Appends a message and returns its seq. */
export function insertMessage(tx: Tx, message: MessageInsert): number {
  const [row] = tx.returning<{ seq: number }>(
    `INSERT INTO messages (id, ts_ms, from_agent, to_agent, type, correlation_id, in_reply_to, payload, payload_ref)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq`,
    [
      message.id,
      message.tsMs,
      message.from,
      message.to,
      message.type,
      message.correlationId,
      message.inReplyTo,
      message.payload,
      message.payloadRef,
    ],
  );
  if (!row) throw new Error('bug: INSERT … RETURNING seq returned no row');
  return row.seq;
}

/**
 * Broadcasts a request's `state_change` messages (ARCHITECTURE §7), one per transition in order, as
 * one multi-row INSERT (issue 34: one statement per request, not one per transition). Each payload
 * is JSON text; each id a UUID (seed 002), made by the caller: the journal replays parameters, so
 * the statement itself draws nothing at random.
 */
export function insertStateChangeMessages(tx: Tx, tsMs: number, messages: readonly { id: string; payload: string }[]): void {
  if (messages.length === 0) return;
  const params: SqlValue[] = [];
  for (const message of messages) params.push(message.id, tsMs, message.payload);
  appendRow(tx, `${stateChangeInsert}${stateChangeRows(messages.length)}`, params);
}

const stateChangeInsert = 'INSERT INTO messages (id, ts_ms, from_agent, to_agent, type, payload) VALUES ';
/** The VALUES rows for 1, 2, 3… messages, built once each: a statement's text is its prepared statement's key. */
const rowsByCount: string[] = [];
function stateChangeRows(count: number): string {
  return (rowsByCount[count] ??= Array.from({ length: count }, () => "(?, ?, 'foreman', NULL, 'state_change', ?)").join(', '));
}

/** Messages for an agent (direct and broadcast, not its own) after `afterSeq`, oldest first. */
export function listMessagesFor(reader: Reader, agent: string, afterSeq: number, limit: number): MessageRow[] {
  return reader.all<MessageRow>(
    `SELECT * FROM messages WHERE seq > ? AND (to_agent = ? OR to_agent IS NULL) AND from_agent <> ? ORDER BY seq LIMIT ?`,
    [afterSeq, agent, agent, limit],
  );
}

/** Every message after `afterSeq`, oldest first (the export). */
export function listMessagesAfter(reader: Reader, afterSeq: number, limit: number): MessageRow[] {
  return reader.all<MessageRow>('SELECT * FROM messages WHERE seq > ? ORDER BY seq LIMIT ?', [afterSeq, limit]);
}

/** The seq of the newest message, 0 when there is none. */
export function lastMessageSeq(reader: Reader): number {
  return reader.get<{ seq: number | null }>('SELECT MAX(seq) AS seq FROM messages')?.seq ?? 0;
}

/** Deletes messages up to and including `seq`; returns how many. */
export function deleteMessagesThrough(tx: Tx, seq: number): number {
  return tx.run('DELETE FROM messages WHERE seq <= ?', [seq]);
}

/** The last seq the agent acknowledged, 0 before its first ack. */
export function findCursor(reader: Reader, agent: string): number {
  return reader.get<{ last_acked_seq: number }>('SELECT last_acked_seq FROM cursors WHERE agent_id = ?', [agent])?.last_acked_seq ?? 0;
}

const advanceCursorTo = (greater: string): string => `INSERT INTO cursors (agent_id, last_acked_seq, updated_at_ms) VALUES (?, ?, ?)
       ON CONFLICT(agent_id) DO UPDATE SET last_acked_seq = ${greater}(cursors.last_acked_seq, excluded.last_acked_seq), updated_at_ms = excluded.updated_at_ms`;
// SQLite's two-argument MAX is PostgreSQL's GREATEST.
const advanceCursorSql: NativeSql = { sqlite: advanceCursorTo('MAX'), postgres: advanceCursorTo('GREATEST') };

/** Moves the agent's cursor to `seq`, never backwards. */
export function advanceCursor(tx: Tx, agent: string, seq: number, now: number): void {
  tx.run(advanceCursorSql, [agent, seq, now]);
}

/** The lowest cursor of all agents, 0 when none has acknowledged anything. */
export function lowestCursor(reader: Reader): number {
  return reader.get<{ low: number | null }>('SELECT MIN(last_acked_seq) AS low FROM cursors')?.low ?? 0;
}
