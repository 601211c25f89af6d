/** Files the engine writes through ports: message payloads, JSONL exports, the retention archive. */
import type { SegmentDraft, SegmentRead } from '../../core/archiveSegment';

/** Content-addressed storage for message payloads over the inline limit. */
export interface BlobStore {
  /** Stores the bytes (atomically) and returns their reference, `sha256-<hex>`. */
  put(bytes: Uint8Array): string;
  get(ref: string): Uint8Array | undefined;
}

export type ExportStream = 'messages' | 'transitions';

/** The last line of an export file, as far as the exporter trusts it. */
export interface ExportedLine {
  readonly seq: number;
  readonly store: string | undefined;
}

/** Where incremental JSONL exports go (`.foreman/bus.jsonl`, `.foreman/transitions.jsonl`). */
export interface ExportSink {
  /** Appends complete lines durably; `lastSeq` is the seq of the last line. */
  append(stream: ExportStream, lines: readonly string[], lastSeq: number): void;
  /**
   * The seq and store of the last complete line in the file (a crash between append and bookkeeping
   * never duplicates lines); `store` is undefined for a line written before lines named their store.
   * Undefined when the file holds no line.
   */
  lastExported(stream: ExportStream): ExportedLine | undefined;
  /** The file of `stream`, for messages. */
  fileOf(stream: ExportStream): string;
}

/**
 * Where retention puts finished history (issue 13): append-only segments, each sealed whole or
 * absent, never changed once written.
 */
export interface ArchiveSink {
  /**
   * Writes segment `draft.batch` (the lines, then the `end` line that seals them, their store and the
   * previous segment's hash) durably, reads it back, notes its tasks in the index, and returns the
   * segment's hash; throws unless it reads back as written.
   */
  write(draft: SegmentDraft): string;
  /**
   * The same, with the file work (writes, fsyncs, read-back) off the calling thread; false, with
   * nothing written, when segment `batch` appeared meanwhile (another call wrote it).
   */
  writeInBackground(draft: SegmentDraft): Promise<string | false>;
  /** Removes segment `batch`, written by this store but never applied, once its rows have changed. */
  discard(batch: number): void;
  /** Notes in the index that segment `batch` (of hash `hash`) holds these tasks, unless it says so already. */
  index(batch: number, store: string, hash: string, tasks: readonly string[]): void;
  /** Segment `batch`: sealed (its lines without the `end` line, the seal, its hash), missing, or unsealed. */
  read(batch: number): SegmentRead;
  /** The numbers of the segment files present, in order. */
  batches(): number[];
  /** Where segment `batch` is, for messages. */
  fileOf(batch: number): string;
  /** Why the archive cannot be written (a file stands where its folder goes); undefined when it can. */
  problem(): string | undefined;
}
