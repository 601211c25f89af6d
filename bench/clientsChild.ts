/**
 * One client of bench/clients.bench.ts, in its own process: loops one kind of request until a
 * deadline and prints its count and per-request latencies as one JSON line.
 *   owner:  a long-lived connection to the owner's endpoint (found through `.foreman/endpoint.json`
 *           and the token, as every client finds it), one request out at a time;
 *   engine: the same requests run by Foreman's engine in this process, on a better-sqlite3 database
 *           (WAL, synchronous=FULL) that every client of the phase shares: Foreman without an owner;
 *   better: the same work as bare SQL on a shared better-sqlite3 database (WAL, synchronous=FULL).
 * Kinds: `heartbeat` (this client's worker beats), `claim` (claim the next task, then release it:
 * through the owner or the engine `claim` + `fail`, which frees the worker and queues the task again
 * after its backoff; as bare SQL the store bench's claim statements and a release doing the same to the task).
 *
 * Usage: node --import tsx bench/clientsChild.ts <owner|engine|better> <heartbeat|claim> <worker> <dir or db>
 * Says `ready` on stdout once set up, then reads `<startAt> <endAt>` (epoch ms) from stdin.
 */
import * as net from 'node:net';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { parseRequest } from '../src/core/requests';
import type { Engine } from '../src/engine/engine';
import { type SettingsFile, mergeSettings } from '../src/engine/settings';
import { findInputAnswer, findWorker, renewTaskLease, upsertHeartbeat } from '../src/engine/queries';
import { readAnnouncement } from '../src/infra/endpoint/discovery';
import { LineBuffer } from '../src/infra/endpoint/lineBuffer';
import { readEndpointResponse } from '../src/infra/endpoint/wire';
import { yieldToOwner } from '../src/cli/priority';
import { benchEngine } from './support/benchEngine';
import { BetterStore, betterTx, openBetter } from './support/betterStore';
import { claimSql, transitionSql } from './support/claimWorkload';

const argsSchema = z.tuple([z.enum(['owner', 'better', 'engine']), z.enum(['heartbeat', 'claim']), z.string(), z.string()]);
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

/** What a request came to, as the owner's client reads its answer. */
type Answer = { ok: boolean; kind?: string; code?: string; value?: unknown };
type Send = (request: { command: string; args: object; actor: string }) => Promise<Answer>;

/** The rounds of one kind made of Foreman requests, sent through `send` (an owner, or an engine in this process). */
async function requestRound(
  kind: Kind,
  worker: string,
  sendRequest: Send,
  close: () => void,
): Promise<{ round: Round; close: () => void }> {
  const send = async (command: string, args: object): Promise<Answer> => {
    const answer = await timed(() => sendRequest({ command, args, actor: worker }));
    // A refusal (a worker busy or idle when the dispatcher moved it first) is part of the loop; anything else is a bug.
    if (!answer.ok && answer.kind !== 'refused') throw new Error(`${command} for ${worker} failed: ${answer.kind} ${answer.code}`);
    return answer;
  };
  if (kind === 'heartbeat') {
    // A worker that holds a task, as one that beats does: each beat also renews the task's lease.
    await send('claim', { worker });
    return { round: async () => ((await send('heartbeat', { worker, progress: nextProgress() })).ok ? 'counted' : 'notCounted'), close };
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
    close,
  };
}

async function ownerRound(kind: Kind, worker: string, dir: string): Promise<{ round: Round; close: () => void }> {
  const connection = await OwnerConnection.open(dir);
  // As every CLI call does once it has an owner to send to (src/cli/priority.ts).
  yieldToOwner();
  return requestRound(
    kind,
    worker,
    (request) => connection.send(request),
    () => connection.close(),
  );
}

/** The settings of the owner's store and of every engine on better-sqlite3 (clients.bench.ts writes them). */
export const benchSettings: SettingsFile = {
  // The dispatcher would otherwise hand every idle worker a task between a release and a claim;
  // a released task comes back after the run; and a task may be released as often as it comes.
  concurrency: 1,
  retryBaseMs: retryAfterMs,
  retryMaxMs: retryAfterMs,
  defaultMaxAttempts: 20,
};

/**
 * Foreman's engine on a better-sqlite3 database, in this process: what a client would run with no
 * owner, each process writing the shared file under SQLite's lock. Nothing here is started (no
 * dispatcher, no monitor): requests only, as a one-shot CLI call runs them.
 */
export function engineOnBetter(file: string): { engine: Engine; store: BetterStore } {
  const store = new BetterStore(openBetter(file));
  const engine = benchEngine(store, mergeSettings(benchSettings), path.dirname(file), path.join(path.dirname(file), 'engine-files'));
  return { engine, store };
}

/** A request parsed as the owner parses one off the wire, then run by the engine. */
export async function executeParsed(engine: Engine, request: { command: string; args: object; actor: string }): Promise<Answer> {
  const parsed = parseRequest(request);
  if (!parsed.ok) throw new Error(parsed.message);
  const result = await engine.execute(parsed.request);
  return result.ok ? { ok: true, value: result.value } : { ok: false, kind: result.kind, code: result.code };
}

async function engineRound(kind: Kind, worker: string, file: string): Promise<{ round: Round; close: () => void }> {
  const { engine, store } = engineOnBetter(file);
  return requestRound(
    kind,
    worker,
    (request) => executeParsed(engine, request),
    () => {
      engine.dispose();
      store.close();
    },
  );
}

function betterRound(kind: Kind, worker: string, file: string): { round: Round; close: () => void } {
  const db = openBetter(file);
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
  const { round, close } =
    side === 'owner'
      ? await ownerRound(kind, worker, where)
      : side === 'engine'
        ? await engineRound(kind, worker, where)
        : betterRound(kind, worker, where);
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
