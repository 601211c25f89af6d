/**
 * The worker thread of a synchronous PostgreSQL client (syncClient.ts): one `pg` connection, one
 * statement at a time, each answer posted and then signalled through shared memory so that the
 * caller, blocked in `Atomics.wait`, wakes and reads it. A lost connection is dropped and opened
 * again for the next statement; the statement that found it lost fails with the reason.
 */
import { workerData } from 'node:worker_threads';
import { type Client, types } from 'pg';
import { newPgClient } from './connect';
import type { PgReply, PgRequest, PgWorkerStart } from './protocol';

// Numbers as numbers: bigint (times in ms, counts) and numeric (sums) would otherwise arrive as text.
// Foreman's values stay far inside 2^53.
types.setTypeParser(types.builtins.INT8, Number);
types.setTypeParser(types.builtins.NUMERIC, Number);

const start = workerData as PgWorkerStart;
const signal = new Int32Array(start.signal);
let client: Client | undefined;

async function connected(): Promise<Client> {
  if (client) return client;
  const fresh = newPgClient(start.url, {
    connectTimeoutMs: start.connectTimeoutMs,
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

function answer(reply: PgReply): void {
  start.port.postMessage(reply);
  Atomics.store(signal, 0, reply.id);
  Atomics.notify(signal, 0);
}

async function handle(request: PgRequest): Promise<void> {
  let connecting = true;
  try {
    const db = await connected();
    connecting = false;
    const result = await db.query({ text: request.sql, values: [...request.params] });
    answer({ id: request.id, ok: true, rows: result.rows as Record<string, unknown>[], rowCount: result.rowCount ?? 0 });
  } catch (error) {
    const { message, code } = error as { message?: string; code?: string };
    // A statement's own error (a SQLSTATE) leaves the connection usable; anything else (refused,
    // reset, the server shutting down: class 08 and 57P0x) drops it, and the next statement reconnects.
    const sqlState = code !== undefined && /^[0-9A-Z]{5}$/.test(code);
    if (!sqlState || code.startsWith('08') || code.startsWith('57P0')) {
      const lost = client;
      client = undefined;
      lost?.end().catch(() => undefined);
    }
    answer({ id: request.id, ok: false, message: message ?? String(error), code, connecting });
  }
}

let queue = Promise.resolve();
start.port.on('message', (request: PgRequest) => {
  queue = queue.then(() => handle(request));
});
