import { severityOf, type TransitionEvent } from '../core/transitionLog';
import type { ExportSink, ExportStream, Reader } from './ports';
import {
  type TransitionRow,
  listMessagesAfter,
  listLatestTransitions,
  listTransitions,
  readExportedSeq,
  writeExportedSeq,
} from './queries';
import type { Unit } from './unit';

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

export function readTransitions(
  reader: Reader,
  options: { entity?: string; afterSeq?: number; limit: number; latest?: boolean },
): TransitionEvent[] {
  const list = options.latest ? listLatestTransitions : listTransitions;
  return list(reader, options.afterSeq ?? 0, options.limit, options.entity).map(toTransitionEvent);
}

/** Rows read and appended at a time. */
const pageRows = 5000;

/**
 * Incremental JSONL export (ARCHITECTURE §7), tracked by seq, never by line count. The file's own
 * last line wins over the bookkeeping row, so a crash between the two never duplicates a line.
 */
export class Exporter {
  constructor(private readonly sink: ExportSink) {}

  /** Everything not yet exported, both streams (`foreman export`, `foreman archive`). */
  export(unit: Unit): Record<ExportStream, number> {
    return { transitions: this.exportStream(unit, 'transitions').written, messages: this.exportStream(unit, 'messages').written };
  }

  /**
   * At most `maxRows` of each stream (a step of the owner's background export, so that an hour's
   * history does not stop the owner in one transaction); all of them by default. True when both
   * streams are caught up.
   */
  exportSome(unit: Unit, maxRows = Number.POSITIVE_INFINITY): boolean {
    const transitions = this.exportStream(unit, 'transitions', maxRows);
    const messages = this.exportStream(unit, 'messages', maxRows);
    return transitions.caughtUp && messages.caughtUp;
  }

  /** The last seq the export files hold, as read back from the files themselves. */
  exportedThrough(): Record<ExportStream, number> {
    return { transitions: this.sink.lastExportedSeq('transitions') ?? 0, messages: this.sink.lastExportedSeq('messages') ?? 0 };
  }

  /** Pages of up to `pageRows` after the last exported seq, until the stream ends or `maxRows` are written. */
  private exportStream(unit: Unit, stream: ExportStream, maxRows = Number.POSITIVE_INFINITY): { written: number; caughtUp: boolean } {
    const recorded = readExportedSeq(unit.tx, stream);
    const after = Math.max(recorded, this.sink.lastExportedSeq(stream) ?? 0);
    let written = 0;
    let last = after;
    let caughtUp = false;
    while (!caughtUp && written < maxRows) {
      const limit = Math.min(pageRows, maxRows - written);
      const lines = stream === 'transitions' ? this.transitionLines(unit.tx, last, limit) : this.messageLines(unit.tx, last, limit);
      caughtUp = lines.length < limit;
      const final = lines.at(-1);
      if (!final) break;
      last = final.seq;
      this.sink.append(
        stream,
        lines.map((line) => line.text),
        last,
      );
      written += lines.length;
    }
    if (last !== recorded) writeExportedSeq(unit.tx, stream, last);
    return { written, caughtUp };
  }

  private transitionLines(reader: Reader, after: number, limit: number): Array<{ seq: number; text: string }> {
    return readTransitions(reader, { afterSeq: after, limit }).map((event) => ({ seq: event.seq, text: JSON.stringify(event) }));
  }

  private messageLines(reader: Reader, after: number, limit: number): Array<{ seq: number; text: string }> {
    return listMessagesAfter(reader, after, limit).map((row) => ({ seq: row.seq, text: JSON.stringify(row) }));
  }
}
