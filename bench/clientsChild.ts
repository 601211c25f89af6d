/**
 * One client of bench/clients.bench.ts, in its own process: loops one kind of request until a
 * deadline and prints its count and per-request latencies as one JSON line.
 *   owner: a long-lived connection to the owner's endpoint (found through `.foreman/endpoint.json`
 *          and the token, as every client finds it), one request out at a time;
 *   better: the same work as SQL on a shared better-sqlite3 database (WAL, synchronous=FULL).
 * Kinds: `heartbeat` (this client's worker beats), `claim` (claim the next task, then release it:
 * through the owner `claim` + `fail`, which frees the worker and queues the task again after its
 * backoff; on better-sqlite3 the claim statements and a release doing the same to the task).
 *
 * Usage: node --import tsx bench/clientsChild.ts <owner|better> <heartbeat|claim> <worker> <dir or db>
 * Says `ready` on stdout once set up, then reads `<startAt> <endAt>` (epoch ms) from stdin.
 */
import { createRequire } from 'node:module';
import * as net from 'node:net';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import type { Reader, SqlValue, Tx } from '../src/engine/ports';
import { findInputAnswer, findWorker, renewTaskLease, upsertHeartbeat } from '../src/engine/queries';
import { readAnnouncement } from '../src/infra/endpoint/discovery';
import { LineBuffer } from '../src/infra/endpoint/lineBuffer';
import { readEndpointResponse } from '../src/infra/endpoint/wire';
import { claimSql, transitionSql } from './storeBenchChild';

const argsSchema = z.tuple([z.enum(['owner', 'better']), z.enum(['heartbeat', 'claim']), z.string(), z.string()]);
const scheduleSchema = z.tuple([z.coerce.number(), z.coerce.number()]);

/** The start and end of the run, sent by the bench once every client is ready. */
function schedule(): Promise<[startAt: number, endAt: number]> {
  return new Promise((resolve) => {
    let text = '';
    process.stdin.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) resolve(scheduleSchema.parse(text.trim().split(' ')));
    });
  });
}
type Kind = 'heartbeat' | 'claim';

let beats = 0;
/** A new progress on every beat: a beat that changes nothing costs SQLite no write at all. */
const nextProgress = (): number => ((beats++ % 999) + 1) / 1000;
/** A released task comes back after this (the owner's `retryBaseMs` in the bench's settings): not within a run. */
export const retryAfterMs = 3_600_000;

/** What one round came to: counted (a heartbeat, a claim that got a task), not counted (a claim
 * refused because the dispatcher moved the worker first), or the queue ran dry (the client stops). */
type Outcome = 'counted' | 'notCounted' | 'ranDry';
type Round = () => Promise<Outcome>;

/** Each request's (or transaction's) time from sent to answered, in ms. */
const latencies: number[] = [];

async function timed<T>(work: () => T | Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await work();
  latencies.push(performance.now() - started);
  return result;
}

/** A connection to the owner that sends one request line and waits for its answer line. */
class OwnerConnection {
  private readonly lines = new LineBuffer(64 * 2 ** 20);
  private waiting: { resolve: (line: string) => void; reject: (error: Error) => void } | undefined;

  private constructor(
    private readonly socket: net.Socket,
    private readonly token: string,
  ) {
    socket.on('data', (chunk: Buffer) => {
      for (const line of this.lines.push(chunk).lines) this.waiting?.resolve(line);
    });
    socket.on('close', () => this.waiting?.reject(new Error('the owner closed the connection without answering')));
  }

  static async open(foremanDir: string): Promise<OwnerConnection> {
    const announcement = readAnnouncement(foremanDir);
    if (!announcement) throw new Error(`no owner announced in ${foremanDir}`);
    const socket = net.createConnection(announcement.info.socketPath);
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    return new OwnerConnection(socket, announcement.token);
  }

  /** The engine's result for `request`: `ok` and, when refused, its code. */
  async send(request: {
    command: string;
    args: object;
    actor: string;
  }): Promise<{ ok: boolean; kind?: string; code?: string; value?: unknown }> {
    const answered = new Promise<string>((resolve, reject) => (this.waiting = { resolve, reject }));
    this.socket.write(`${JSON.stringify({ token: this.token, request })}\n`);
    const response = readEndpointResponse(JSON.parse(await answered));
    if (!response) throw new Error('the owner sent a response that is not valid');
    const { result } = response;
    return result.ok ? { ok: true, value: result.value } : { ok: false, kind: result.kind, code: result.code };
  }

  close(): void {
    this.socket.destroy();
  }
}

async function ownerRound(kind: Kind, worker: string, dir: string): Promise<{ round: Round; close: () => void }> {
  const connection = await OwnerConnection.open(dir);
  const send = async (command: string, args: object): Promise<{ ok: boolean; value?: unknown }> => {
    const answer = await timed(() => connection.send({ command, args, actor: worker }));
    // A refusal (a worker busy or idle when the dispatcher moved it first) is part of the loop; anything else is a bug.
    if (!answer.ok && answer.kind !== 'refused') throw new Error(`${command} for ${worker} failed: ${answer.kind} ${answer.code}`);
    return answer;
  };
  if (kind === 'heartbeat') {
    // A worker that holds a task, as one that beats does: each beat also renews the task's lease.
    await send('claim', { worker });
    return {
      round: async () => ((await send('heartbeat', { worker, progress: nextProgress() })).ok ? 'counted' : 'notCounted'),
      close: () => connection.close(),
    };
  }
  return {
    round: async () => {
      const claimed = await send('claim', { worker });
      // The owner's dispatcher may have handed this worker a task in between; releasing it goes on.
      await send('fail', { worker, reason: 'released by the bench' });
      // `null`: nothing left to claim.
      if (!claimed.ok) return 'notCounted';
      return claimed.value === null ? 'ranDry' : 'counted';
    },
    close: () => connection.close(),
  };
}

interface BetterStatement {
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): { changes: number };
}
interface BetterDatabase {
  pragma(source: string): unknown;
  prepare(source: string): BetterStatement;
  transaction<A extends unknown[], R>(fn: (...args: A) => R): { immediate: (...args: A) => R };
  close(): void;
}

/** The engine's query functions over better-sqlite3, so the baseline runs the owner's own statements. */
function betterTx(db: BetterDatabase): Tx {
  const statements = new Map<string, BetterStatement>();
  const prepared = (sql: string): BetterStatement => {
    let statement = statements.get(sql);
    if (!statement) statements.set(sql, (statement = db.prepare(sql)));
    return statement;
  };
  const reader: Reader = {
    get: <T extends object>(sql: string, params: readonly SqlValue[] = []) => prepared(sql).get(...params) as T | undefined,
    all: <T extends object>(sql: string, params: readonly SqlValue[] = []) => prepared(sql).all(...params) as T[],
  };
  return {
    ...reader,
    run: (sql, params = []) => prepared(sql).run(...params).changes,
    returning: <T extends object>(sql: string, params: readonly SqlValue[] = []) => prepared(sql).all(...params) as T[],
  };
}

function betterRound(kind: Kind, worker: string, file: string): { round: Round; close: () => void } {
  // A dev dependency without bundled types: loaded untyped, the few calls used are declared above.
  const Database = createRequire(__filename)('better-sqlite3') as new (file: string, options: object) => BetterDatabase;
  // Transactions BEGIN IMMEDIATE: one that reads first and then writes cannot wait for the lock.
  const db = new Database(file, { timeout: 60_000 });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  const tx = betterTx(db);
  const close = (): void => db.close();
  if (kind === 'heartbeat') {
    const beat = db.transaction(() => {
      const now = Date.now();
      const row = findWorker(tx, worker);
      if (!row) throw new Error(`no worker ${worker}`);
      upsertHeartbeat(tx, worker, now, 'working', row.task_id, row.attempt || null, nextProgress(), 'agent', null, null, false);
      if (row.task_id) renewTaskLease(tx, row.task_id, worker, now + 60_000);
      findInputAnswer(tx, worker);
    });
    return { round: async () => (await timed(beat.immediate), 'counted'), close };
  }
  const claim = db.transaction((): string | undefined => {
    const now = Date.now();
    const [row] = tx.returning<{ id: string; attempt: number }>(claimSql, [now, worker, now]);
    if (!row) return undefined;
    tx.run(transitionSql, [now, row.id, worker, row.attempt]);
    return row.id;
  });
  const release = db.transaction((task: string) => {
    const now = Date.now();
    tx.run(
      `UPDATE tasks SET status = 'queued', worker_id = NULL, scheduled_for = ?, version = version + 1 WHERE id = ? AND status = 'running'`,
      [now + retryAfterMs, task],
    );
    tx.run(
      `INSERT INTO transitions (ts_ms, entity_type, entity_id, from_state, to_state, trigger, actor) VALUES (?, 'task', ?, 'running', 'queued', 'fail', ?)`,
      [now, task, worker],
    );
  });
  return {
    round: async () => {
      const task = await timed(claim.immediate);
      if (task === undefined) return 'ranDry';
      await timed(() => release.immediate(task));
      return 'counted';
    },
    close,
  };
}

async function main(): Promise<void> {
  const [side, kind, worker, where] = argsSchema.parse(process.argv.slice(2));
  const { round, close } = side === 'owner' ? await ownerRound(kind, worker, where) : betterRound(kind, worker, where);
  latencies.length = 0;
  process.stdout.write('ready\n');
  const [startAt, endAt] = await schedule();
  process.stdin.destroy();
  const cpuBefore = process.cpuUsage();
  let counted = 0;
  let rounds = 0;
  /** When this client found the queue empty (epoch ms): a rate is counted up to then, not to `endAt`. */
  let ranDryAt: number | null = null;
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, startAt - Date.now())));
  while (Date.now() < endAt) {
    const outcome = await round();
    rounds++;
    if (outcome === 'counted') counted++;
    if (outcome === 'ranDry') {
      ranDryAt = Date.now();
      break;
    }
  }
  const cpu = process.cpuUsage(cpuBefore);
  close();
  const cpuMs = (cpu.user + cpu.system) / 1000;
  process.stdout.write(`${JSON.stringify({ counted, rounds, latencies, ranDryAt, cpuMs })}\n`);
}

if (require.main === module)
  main().catch((error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  });
