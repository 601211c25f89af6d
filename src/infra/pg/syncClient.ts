/**
 * PostgreSQL, called synchronously (issue 14). Foreman's engine is synchronous: a request is one
 * guarded transaction run to its end on the owner's thread, which is what keeps the single-writer
 * rules simple (ARCHITECTURE §2). The `pg` driver is asynchronous. This client keeps the engine's
 * shape: a worker thread holds the connection, and each statement is posted to it while the calling
 * thread waits in `Atomics.wait` (bounded by `statementTimeoutMs`) and then reads the answer from
 * shared memory (or, when too long for it, with `receiveMessageOnPort`). A round trip on a local network costs what a statement costs the server,
 * plus ~0.1 ms; the owner's thread is blocked meanwhile, as it is by sql.js's own work today.
 *
 * A server that does not answer in time fails the statement with an error naming the server and what
 * to do (the URL's password is never in it), and the worker is replaced: its connection closes, so the
 * server rolls back whatever transaction the statement was in (a COMMIT already sent may still land,
 * as with any client that loses its server mid-commit).
 */
import * as path from 'node:path';
import { deserialize } from 'node:v8';
import { MessageChannel, type MessagePort, type Worker, receiveMessageOnPort } from 'node:worker_threads';
import { startWorker } from '../threads/startWorker';
import type { PgReply, PgRequest, PgStatement, PgValue, PgWorkerStart } from './protocol';
import type { PgTls } from './tls';

export type { PgStatement, PgValue } from './protocol';

export interface SyncPgOptions {
  /** How long a statement may take before it fails (and its connection is dropped). Default 10 s. */
  readonly statementTimeoutMs?: number;
  /** How long connecting may take. Default 5 s. */
  readonly connectTimeoutMs?: number;
  /** The bundled worker to run; tests from sources use the default. */
  readonly workerScript?: string;
  /** TLS options (tls.ts), from `.foreman/store.json`. */
  readonly ssl?: PgTls;
}

export interface PgResult<T> {
  readonly rows: T[];
  readonly rowCount: number;
}

/** A statement PostgreSQL refused (its SQLSTATE in `code`), or a server that could not be reached. */
export class PgError extends Error {
  constructor(
    message: string,
    /** The SQLSTATE (`23505` a unique violation, `40001` a serialisation failure, …), or a connection error code. */
    readonly code: string | undefined,
    /**
     * True when the server could not be reached or the connection was lost (refused, reset, shut
     * down, timed out, login refused): the statement did not run to its end, and the next statement
     * connects again. False for a statement the server itself refused.
     */
    readonly unreachable = false,
    /** In a batch (`SyncPgClient.batch`), which statement failed (0 first). */
    readonly statement = 0,
  ) {
    super(message);
    this.name = 'PgError';
  }
}

/**
 * Whether a failure means the connection is gone rather than the statement refused: no SQLSTATE
 * (a socket error), connection exceptions (class 08), the server shutting down (57P01-57P03).
 */
function connectionLost(code: string | undefined): boolean {
  return code === undefined || !/^[0-9A-Z]{5}$/.test(code) || code.startsWith('08') || code.startsWith('57P0');
}

/**
 * What to do about a failure to connect, by its cause. pg reports a password the server asks for
 * and nobody gave with a SASL message and no SQLSTATE; it is a login problem all the same.
 */
function connectHint(code: string | undefined, message: string): string {
  if (code === '28P01' || code === '28000' || /password/i.test(message)) {
    return 'Give the password in PGPASSWORD or ~/.pgpass (Foreman never stores it), and check the user name in the URL.';
  }
  if (code === '3D000') return 'Create the database first (createdb), or name an existing one in the URL.';
  return 'Check that the server is running and reachable from this machine (`foreman doctor` checks it), then try again.';
}

/** The server's address without its credentials, for messages. */
export function describeServer(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return 'the PostgreSQL server (its URL does not parse)';
  }
}

/** One worker with its connection, and the port and shared slot it answers through. */
interface Connection {
  readonly worker: Worker;
  readonly port: MessagePort;
  readonly signal: Int32Array;
  /** Where the worker leaves an answer that fits (protocol.ts `PgWorkerStart.reply`). */
  readonly reply: Uint8Array;
}

/** Room for an answer in shared memory; a longer one (a large read) comes as a message. */
const replyCapacity = 256 * 1024;

/** How long a new worker thread may take to load before its first statement's time starts. */
const workerLoadMs = 60_000;

export class SyncPgClient {
  private connection: Connection;
  private nextId = 1;
  private closed = false;
  /** The server as messages name it: never with its password. */
  readonly server: string;
  private readonly statementTimeoutMs: number;

  constructor(
    private readonly url: string,
    private readonly options: SyncPgOptions = {},
  ) {
    this.server = describeServer(url);
    this.statementTimeoutMs = options.statementTimeoutMs ?? 10_000;
    this.connection = this.connect();
  }

  private connect(): Connection {
    // Slot 0: the id of the last answer; slot 1: 1 once the worker has loaded; slot 2: where the answer is (pgWorker.ts).
    const shared = new SharedArrayBuffer(12);
    const reply = new SharedArrayBuffer(replyCapacity);
    const { port1, port2 } = new MessageChannel();
    const start: PgWorkerStart = {
      url: this.url,
      port: port2,
      signal: shared,
      reply,
      connectTimeoutMs: this.options.connectTimeoutMs ?? 5_000,
      ...(this.options.ssl !== undefined ? { ssl: this.options.ssl } : {}),
    };
    const worker = startWorker(this.options.workerScript ?? path.join(__dirname, 'foreman-pg.js'), path.join(__dirname, 'pgWorker.ts'), {
      workerData: start,
      transferList: [port2],
    });
    // The process may exit while the connection idles.
    worker.unref();
    port1.unref();
    return { worker, port: port1, signal: new Int32Array(shared), reply: new Uint8Array(reply) };
  }

  /** Runs one statement with `$1`-style parameters and returns its rows. */
  query<T extends object = Record<string, unknown>>(sql: string, params: readonly PgValue[] = []): PgResult<T> {
    const [result] = this.batch([{ sql, params }]);
    if (!result) throw new Error('bug: a batch of one statement answered none');
    return { rows: result.rows as T[], rowCount: result.rowCount };
  }

  /**
   * Runs statements in one round trip, in order (pipelined: the server has them all at once), and
   * returns what each answered. The first that fails throws, with its place in `PgError.statement`;
   * the server ran those after it too, so batch statements whose outcome depends on the earlier ones
   * inside a transaction (an error there makes the rest fail).
   */
  batch(statements: readonly PgStatement[]): PgResult<Record<string, unknown>>[] {
    if (this.closed) throw new PgError(`The connection to ${this.server} was closed.`, undefined);
    const id = this.nextId++;
    const request: PgRequest = { id, statements };
    this.connection.port.postMessage(request);
    const reply = this.waitFor(id);
    if (!reply.ok) throw this.failure(reply);
    return reply.results.map((result) => ({ rows: result.rows, rowCount: result.rowCount }));
  }

  /** The error for a failed reply: a connection problem names the server and what to do; never the password. */
  private failure(reply: Extract<PgReply, { ok: false }>): PgError {
    const said = this.withoutPassword(reply.message);
    if (reply.connecting) {
      const message = /client password must be a string/.test(said) ? 'the server asks for a password, and none was given' : said;
      return new PgError(
        `Cannot connect to PostgreSQL at ${this.server}: ${message}. ${connectHint(reply.code, message)}`,
        reply.code,
        true,
      );
    }
    const message = said;
    if (connectionLost(reply.code)) {
      return new PgError(
        `Lost the connection to PostgreSQL at ${this.server} (${message}). The statement did not complete; the next one connects again. ` +
          connectHint(undefined, ''),
        reply.code,
        true,
        reply.index,
      );
    }
    return new PgError(message, reply.code, false, reply.index);
  }

  /** A driver message could in principle quote the URL: the password, in any spelling, is cut out. */
  private withoutPassword(message: string): string {
    let password: string;
    try {
      password = new URL(this.url).password;
    } catch {
      return message;
    }
    if (!password) return message;
    let decoded = password;
    try {
      decoded = decodeURIComponent(password);
    } catch {
      // Not percent-encoded text: the raw spelling is the only one.
    }
    return [password, decoded].reduce((text, secret) => text.split(secret).join('***'), message);
  }

  /** Ends the worker and its connection. Safe to call twice. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.connection.port.close();
    void this.connection.worker.terminate();
  }

  private waitFor(id: number): PgReply {
    const { port, signal, reply: replyBytes } = this.connection;
    // A new worker's loading is no part of the statement's time: on a machine busy starting several
    // owners at once it alone can take seconds (issue 29). It has its own, longer bound.
    let loaded = Atomics.load(signal, 1) === 1;
    let deadline = Date.now() + (loaded ? this.statementTimeoutMs : workerLoadMs + this.statementTimeoutMs);
    for (;;) {
      // The answer in shared memory (the worker answers one request at a time, and this is the only one waiting).
      if (Atomics.load(signal, 0) === id) {
        const length = Atomics.load(signal, 2);
        if (length >= 0) return deserialize(replyBytes.subarray(0, length)) as PgReply;
      }
      const received = receiveMessageOnPort(port);
      if (received) {
        // Only this module's worker posts on the port (pgWorker.ts).
        const reply: PgReply = received.message as PgReply;
        // An answer to a statement that timed out earlier: discarded.
        if (reply.id === id) return reply;
        continue;
      }
      if (!loaded && Atomics.load(signal, 1) === 1) {
        loaded = true;
        deadline = Math.min(deadline, Date.now() + this.statementTimeoutMs);
      }
      const left = deadline - Date.now();
      const answered = Atomics.load(signal, 0);
      if (left <= 0) {
        // A new connection for what follows; closing this one rolls back its open transaction.
        this.connection.port.close();
        void this.connection.worker.terminate();
        this.connection = this.connect();
        throw new PgError(
          `${this.server} did not answer within ${this.statementTimeoutMs} ms. Check that the server is running and reachable. ` +
            'The statement was abandoned, and its transaction with it (the server rolls it back).',
          'timeout',
          true,
        );
      }
      // Wakes when the worker signals any answer; a stale one is read and skipped above.
      // Until the worker has loaded, it is looked at every 50 ms (its load is signalled in the other slot).
      if (answered < id) Atomics.wait(signal, 0, answered, loaded ? left : Math.min(left, 50));
    }
  }
}
