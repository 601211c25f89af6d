import { type Failure, type Result, ok, refused } from '../core/result';
import { severityOf, type TransitionEvent } from '../core/transitionLog';
import type { ExportSink, ExportStream, ExportedLine, Reader } from './ports';
import {
  type TransitionRow,
  listMessagesAfter,
  listLatestTransitions,
  listTransitions,
  readExportedSeq,
  writeExportedSeq,
} from './queries';
import { ensureStoreId } from './storeIdentity';
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
 *
 * Every line names its store (`"store": id`, issue 28), and the file's last line is trusted only
 * when it is this store's (or, written before lines named their store, when this store has exported
 * before): a file another store left in the folder is refused with what to do, never appended to
 * after its seq.
 */
export class Exporter {
  constructor(private readonly sink: ExportSink) {}

  /** Everything not yet exported, both streams (`foreman export`, `foreman archive`). */
  export(unit: Unit): Result<Record<ExportStream, number>> {
    const transitions = this.exportStream(unit, 'transitions');
    if (!transitions.ok) return transitions;
    const messages = this.exportStream(unit, 'messages');
    if (!messages.ok) return messages;
    return ok({ transitions: transitions.value.written, messages: messages.value.written });
  }

  /**
   * At most `maxRows` of each stream (a step of the owner's background export, so that an hour's
   * history does not stop the owner in one transaction); all of them by default. True when both
   * streams are caught up.
   */
  exportSome(unit: Unit, maxRows = Number.POSITIVE_INFINITY): Result<boolean> {
    const transitions = this.exportStream(unit, 'transitions', maxRows);
    if (!transitions.ok) return transitions;
    const messages = this.exportStream(unit, 'messages', maxRows);
    if (!messages.ok) return messages;
    return ok(transitions.value.caughtUp && messages.value.caughtUp);
  }

  /** The last seq the export files hold, as read back from the files themselves. */
  exportedThrough(): Record<ExportStream, number> {
    return { transitions: this.sink.lastExported('transitions')?.seq ?? 0, messages: this.sink.lastExported('messages')?.seq ?? 0 };
  }

  /** Pages of up to `pageRows` after the last exported seq, until the stream ends or `maxRows` are written. */
  private exportStream(
    unit: Unit,
    stream: ExportStream,
    maxRows = Number.POSITIVE_INFINITY,
  ): Result<{ written: number; caughtUp: boolean }> {
    const store = ensureStoreId(unit.tx);
    const recorded = readExportedSeq(unit.tx, stream);
    const after = this.trustedEnd(stream, this.sink.lastExported(stream), store, recorded);
    if (typeof after !== 'number') return after;
    let written = 0;
    let last = after;
    let caughtUp = false;
    while (!caughtUp && written < maxRows) {
      const limit = Math.min(pageRows, maxRows - written);
      const lines =
        stream === 'transitions' ? this.transitionLines(unit.tx, last, limit, store) : this.messageLines(unit.tx, last, limit, store);
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
    return ok({ written, caughtUp });
  }

  /** Where this store's export of `stream` stands: the file's last seq when the file is this store's; a refusal when it is not. */
  private trustedEnd(stream: ExportStream, tail: ExportedLine | undefined, store: string, recorded: number): number | Failure {
    if (tail === undefined) return recorded;
    // A file from before lines named their store is this store's once it has exported: a new store has not.
    if (tail.store === store || (tail.store === undefined && recorded > 0)) return Math.max(recorded, tail.seq);
    const file = this.sink.fileOf(stream);
    const whose =
      tail.store === undefined
        ? 'a store from before export lines named their store, while this store has exported nothing yet'
        : `another store (${tail.store}; this store is ${store})`;
    return refused(
      'foreignExport',
      `export: ${file} ends with a line of ${whose}, so its seq ${tail.seq} says nothing about this store's export, and nothing was exported or archived. ` +
        `Move the file aside (for example \`mv ${file} ${file}.old\`) and run again: this store's export then starts a new file after seq ${recorded}.`,
      { file },
    );
  }

  private transitionLines(reader: Reader, after: number, limit: number, store: string): Array<{ seq: number; text: string }> {
    return readTransitions(reader, { afterSeq: after, limit }).map((event) => ({
      seq: event.seq,
      text: JSON.stringify({ ...event, store }),
    }));
  }

  private messageLines(reader: Reader, after: number, limit: number, store: string): Array<{ seq: number; text: string }> {
    return listMessagesAfter(reader, after, limit).map((row) => ({ seq: row.seq, text: JSON.stringify({ ...row, store }) }));
  }
}
