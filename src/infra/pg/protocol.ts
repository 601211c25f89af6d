/** The messages between a synchronous PostgreSQL client and its worker thread (syncClient.ts, pgWorker.ts). */
import type { MessagePort } from 'node:worker_threads';
import type { PgTls } from './tls';

/** Given to the worker as `workerData`. */
export interface PgWorkerStart {
  /** The connection URL; it stays in memory, never in a file or a log line. */
  readonly url: string;
  /** Where the worker answers; the caller receives from it synchronously. */
  readonly port: MessagePort;
  /** Int32 slot 0: the id of the last request answered, for `Atomics.wait`. */
  readonly signal: SharedArrayBuffer;
  /** Milliseconds to wait for a connection. */
  readonly connectTimeoutMs: number;
  /** TLS from `.foreman/store.json` (tls.ts); the URL's `sslmode` and friends apply as well. */
  readonly ssl?: PgTls;
}

export type PgValue = string | number | boolean | null | Uint8Array;

export interface PgRequest {
  readonly id: number;
  readonly sql: string;
  readonly params: readonly PgValue[];
}

export type PgReply =
  | { readonly id: number; readonly ok: true; readonly rows: Record<string, unknown>[]; readonly rowCount: number }
  | {
      readonly id: number;
      readonly ok: false;
      readonly message: string;
      readonly code: string | undefined;
      /** The failure came while connecting (refused, unknown host, bad password), not from the statement. */
      readonly connecting: boolean;
    };
