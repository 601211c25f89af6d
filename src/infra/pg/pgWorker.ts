/**
 * The worker thread of a synchronous PostgreSQL client (syncClient.ts): one `pg` connection, one
 * request at a time (a statement, or several pipelined, written to the socket at once), each answer
 * put in shared memory (or posted, when too long for it) and then signalled, so that the caller,
 * blocked in `Atomics.wait`, wakes and reads it. A lost connection is dropped and opened again for
 * the next statement; the statement that found it lost fails with the reason.
 */
import { serialize } from 'node:v8';
import { workerData } from 'node:worker_threads';
import { type Client, type QueryConfig, types } from 'pg';
import { newPgClient } from './connect';
import type { PgReply, PgRequest, PgRows, PgStatement, PgWorkerStart } from './protocol';

// Numbers as numbers: bigint (times in ms, counts) and numeric (sums) would otherwise arrive as text.
// Foreman's values stay far inside 2^53.
types.setTypeParser(types.builtins.INT8, Number);
types.setTypeParser(types.builtins.NUMERIC, Number);

const start = workerData as PgWorkerStart;
const signal = new Int32Array(start.signal);
const replyBytes = new Uint8Array(start.reply);
// Loaded: the caller's statement timeout starts now (syncClient.ts).
Atomics.store(signal, 1, 1);
let client: Client | undefined;

async function connected(): Promise<Client> {
  if (client) return client;
  const fresh = newPgClient(start.url, {
    connectTimeoutMs: start.connectTimeoutMs,
    pipeline: true,
    ...(start.ssl !== undefined ? { ssl: start.ssl } : {}),
  });
  // A connection lost while idle is reported here; the next statement connects again.
  fresh.on('error', () => {
    if (client === fresh) client = undefined;
  });
  await fresh.connect();
  client = fresh;
  return fresh;
}

/**
 * An answer the caller's shared buffer holds is read from it: no message, so nothing wakes the
 * caller's event loop later for it (issue 29: a claim's round trips cost the owner less CPU).
 */
function answer(reply: PgReply): void {
  const bytes = serialize(reply);
  if (bytes.length <= replyBytes.length) {
    replyBytes.set(bytes);
    Atomics.store(signal, 2, bytes.length);
  } else {
    start.port.postMessage(reply);
    Atomics.store(signal, 2, -1);
  }
  Atomics.store(signal, 0, reply.id);
  Atomics.notify(signal, 0);
}

/**
 * Statements with parameters are prepared once per connection, under a name of their own: the
 * engine's are a few hundred constant texts, run again and again, and the server then skips their
 * parsing and planning. Those without (BEGIN, COMMIT, DDL) go as simple queries.
 */
const statementNames = new Map<string, string>();
const maxPreparedStatements = 2_000;

function queryOf(statement: PgStatement): QueryConfig {
  if (statement.params.length === 0) return { text: statement.sql };
  let name = statementNames.get(statement.sql);
  if (name === undefined && statementNames.size < maxPreparedStatements) {
    name = `foreman_${statementNames.size + 1}`;
    statementNames.set(statement.sql, name);
  }
  return { text: statement.sql, values: [...statement.params], ...(name !== undefined ? { name } : {}) };
}

/** What `pg` throws, for a reply. */
function failureOf(error: unknown): { message: string; code: string | undefined } {
  const { message, code } = error as { message?: string; code?: string };
  return { message: message ?? String(error), code };
}

async function handle(request: PgRequest): Promise<void> {
  let connecting = true;
  let index = 0;
  try {
    const db = await connected();
    connecting = false;
    // Pipelined: all are written at once (one write to the socket: corked while `pg` queues them) and
    // the server answers them in order, each on its own.
    const stream = (db as unknown as { connection: { stream: { cork?: () => void; uncork?: () => void } } }).connection.stream;
    stream.cork?.();
    let sent: Array<Promise<{ rows: unknown[]; rowCount: number | null }>>;
    try {
      sent = request.statements.map((statement) => db.query(queryOf(statement)));
    } finally {
      stream.uncork?.();
    }
    const settled = await Promise.allSettled(sent);
    const results: PgRows[] = [];
    for (const outcome of settled) {
      if (outcome.status === 'rejected') throw outcome.reason;
      results.push({ rows: outcome.value.rows as Record<string, unknown>[], rowCount: outcome.value.rowCount ?? 0 });
      index++;
    }
    answer({ id: request.id, ok: true, results });
  } catch (error) {
    const { message, code } = failureOf(error);
    // A statement's own error (a SQLSTATE) leaves the connection usable; anything else (refused,
    // reset, the server shutting down: class 08 and 57P0x) drops it, and the next statement reconnects.
    // So does a prepared statement whose table changed shape under it (another owner migrated):
    // a new connection prepares it again.
    const sqlState = code !== undefined && /^[0-9A-Z]{5}$/.test(code);
    const stalePlan = code === '0A000' && /cached plan/.test(message);
    if (!sqlState || code.startsWith('08') || code.startsWith('57P0') || stalePlan) {
      const lost = client;
      client = undefined;
      lost?.end().catch(() => undefined);
    }
    answer({ id: request.id, ok: false, message, code, connecting, index });
  }
}

let queue = Promise.resolve();
start.port.on('message', (request: PgRequest) => {
  queue = queue.then(() => handle(request));
});
