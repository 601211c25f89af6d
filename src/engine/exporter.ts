import { severityOf, type TransitionEvent } from '../core/transitionLog';
import type { ExportSink, ExportStream, Reader } from './ports';
import type { Unit } from './unit';

interface TransitionRow {
  seq: number;
  ts_ms: number;
  entity_type: 'worker' | 'task';
  entity_id: string;
  from_state: string;
  to_state: string;
  trigger: string;
  reason: string | null;
  actor: string;
  attempt: number | null;
  request_id: string | null;
  metadata: string | null;
}

export function toTransitionEvent(row: TransitionRow): TransitionEvent {
  return {
    seq: row.seq,
    timestamp: new Date(row.ts_ms).toISOString(),
    event_type: row.entity_type === 'worker' ? 'worker_state_transition' : 'task_state_transition',
    severity: severityOf(row.to_state),
    entity_id: row.entity_id,
    from_state: row.from_state,
    to_state: row.to_state,
    trigger: row.trigger,
    actor: row.actor,
    reason: row.reason,
    attempt: row.attempt,
    request_id: row.request_id,
    ...(row.metadata ? { metadata: JSON.parse(row.metadata) as Record<string, unknown> } : {}),
  };
}

export function readTransitions(reader: Reader, options: { entity?: string; afterSeq?: number; limit: number }): TransitionEvent[] {
  const rows = options.entity
    ? reader.all<TransitionRow>('SELECT * FROM transitions WHERE entity_id = ? AND seq > ? ORDER BY seq LIMIT ?', [
        options.entity,
        options.afterSeq ?? 0,
        options.limit,
      ])
    : reader.all<TransitionRow>('SELECT * FROM transitions WHERE seq > ? ORDER BY seq LIMIT ?', [options.afterSeq ?? 0, options.limit]);
  return rows.map(toTransitionEvent);
}

/**
 * Incremental JSONL export (ARCHITECTURE §7), tracked by seq, never by line count. The file's own
 * last line wins over the bookkeeping row, so a crash between the two never duplicates a line.
 */
export class Exporter {
  constructor(private readonly sink: ExportSink) {}

  export(unit: Unit): Record<ExportStream, number> {
    return { transitions: this.exportStream(unit, 'transitions'), messages: this.exportStream(unit, 'messages') };
  }

  private exportStream(unit: Unit, stream: ExportStream): number {
    const recorded = unit.tx.get<{ last_seq: number }>('SELECT last_seq FROM export_state WHERE stream = ?', [stream])?.last_seq ?? 0;
    const after = Math.max(recorded, this.sink.lastExportedSeq(stream) ?? 0);
    let written = 0;
    let last = after;
    for (;;) {
      const lines = stream === 'transitions' ? this.transitionLines(unit.tx, last) : this.messageLines(unit.tx, last);
      if (lines.length === 0) break;
      last = lines[lines.length - 1]!.seq;
      this.sink.append(
        stream,
        lines.map((line) => line.text),
        last,
      );
      written += lines.length;
    }
    if (last !== recorded) unit.tx.run('UPDATE export_state SET last_seq = ? WHERE stream = ?', [last, stream]);
    return written;
  }

  private transitionLines(reader: Reader, after: number): Array<{ seq: number; text: string }> {
    return readTransitions(reader, { afterSeq: after, limit: 5000 }).map((event) => ({ seq: event.seq, text: JSON.stringify(event) }));
  }

  private messageLines(reader: Reader, after: number): Array<{ seq: number; text: string }> {
    const rows = reader.all<Record<string, unknown> & { seq: number }>('SELECT * FROM messages WHERE seq > ? ORDER BY seq LIMIT 5000', [
      after,
    ]);
    return rows.map((row) => ({ seq: row.seq, text: JSON.stringify(row) }));
  }
}
