/** The messages between a synchronous PostgreSQL client and its worker thread (syncClient.ts, pgWorker.ts). */
import type { MessagePort } from 'node:worker_threads';
import type { PgTls } from './tls';

/** Given to the worker as `workerData`. */
export interface PgWorkerStart {
  /** The connection URL; it stays in memory, never in a file or a log line. */
  readonly url: string;
  /** Where the worker answers; the caller receives from it synchronously. */
  readonly port: MessagePort;
  /**
   * Int32 slot 0: the id of the last request answered, for `Atomics.wait`; slot 1: 1 once the worker
   * has loaded; slot 2: the byte length of that answer in `reply`, or -1 when it was posted on `port`
   * instead (too long for `reply`).
   */
  readonly signal: SharedArrayBuffer;
  /** The answer's bytes (`v8.serialize`d `PgReply`) when they fit: the caller reads them without a message. */
  readonly reply: SharedArrayBuffer;
  /** Milliseconds to wait for a connection. */
  readonly connectTimeoutMs: number;
  /** TLS from `.foreman/store.json` (tls.ts); the URL's `sslmode` and friends apply as well. */
  readonly ssl?: PgTls;
}

export type PgValue = string | number | boolean | null | Uint8Array;

/** One statement with `$1`-style parameters. */
export interface PgStatement {
  readonly sql: string;
  readonly params: readonly PgValue[];
}

/**
 * Statements sent together (pipelined: the server gets them all at once and answers them in order),
 * answered together: one round trip for what the caller did not need to see in between.
 */
export interface PgRequest {
  readonly id: number;
  readonly statements: readonly PgStatement[];
}

/** What one statement answered. */
export interface PgRows {
  readonly rows: Record<string, unknown>[];
  readonly rowCount: number;
}

export type PgReply =
  | { readonly id: number; readonly ok: true; readonly results: readonly PgRows[] }
  | {
      readonly id: number;
      readonly ok: false;
      readonly message: string;
      readonly code: string | undefined;
      /** The failure came while connecting (refused, unknown host, bad password), not from the statement. */
      readonly connecting: boolean;
      /** Which statement of the request failed (the first that did); those after it did not take effect. */
      readonly index: number;
    };
