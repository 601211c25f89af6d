/**
 * One owner process of bench/ownersScale.bench.ts: an engine with an owner identity on PostgreSQL,
 * wired as `foreman serve` wires it (owner lease, waker, dispatcher, monitor, the listener of the
 * other owners' notifications); with `view`, also a view that reads the rows the notifications name,
 * at most every 250 ms, as a VS Code window's dashboard does. No agents. Its workers `<prefix>-0…` claim through the engine's front door; between
 * rounds the bench's own hand puts them back to IDLE (one statement, no notification, not timed).
 *
 * The parent drives it with lines on stdin (`claims`, `heartbeats`, `end`); it answers each phase
 * with one JSON line on stdout.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import type { ChangedRows } from '../src/engine/ports';
import { defaultEngineSettings } from '../src/engine/settings';
import { PgListener } from '../src/infra/pg/listener';
import { PgStore } from '../src/infra/pg/pgStore';
import { SyncPgClient } from '../src/infra/pg/syncClient';
import { benchClone, benchEngine, executorOf } from './support/benchEngine';
import { CountingStore } from './support/countingStore';

const [url = '', ownerId = '', host = '', prefix = '', workersText, claimRoundsText, beatRoundsText, viewText, beatRateText] =
  process.argv.slice(2);
if (!url || !ownerId || !host || !prefix) {
  throw new Error(
    'usage: ownersScaleChild.ts <url> <owner> <host> <prefix> <workers> <claimRounds> <beatRounds> <view|serve> <beatsPerSecond>',
  );
}
/** This owner's heartbeats per second, as its agents would send them (0: as fast as they go). */
const beatRate = Number(beatRateText ?? 0);
const withView = viewText === 'view';
const workers = Number(workersText);
const claimRounds = Number(claimRoundsText);
const beatRounds = Number(beatRoundsText);
const say = (line: object): void => void process.stdout.write(`${JSON.stringify(line)}\n`);

async function main(): Promise<void> {
  const dir = benchClone(`scale-${ownerId}`);
  const foremanDir = join(dir, '.foreman');

  const opening = performance.now();
  let pg: PgStore;
  try {
    pg = PgStore.open(url, { ownerId });
  } catch (error) {
    say({ phase: 'open', ok: false, openMs: performance.now() - opening, error: error instanceof Error ? error.message : String(error) });
    process.exit(1);
  }
  const store = new CountingStore(pg);
  // This owner's workers claim by themselves (`claim`): its dispatcher hands out nothing, but it
  // still runs whenever something wakes it, which is the cost measured here.
  const settings = { ...defaultEngineSettings, concurrency: 0 };
  const engine = benchEngine(store, settings, dir, foremanDir, { id: ownerId, host });
  let notices = 0;
  /** Time this owner's thread spent on the others' changes: handling notices, and its view's reads. */
  const spent = { noticesMs: 0, viewMs: 0 };
  const listener = new PgListener(url, {
    self: ownerId,
    onChange: (notice) => {
      notices++;
      const begun = performance.now();
      engine.noteExternalChange(notice.changed);
      spent.noticesMs += performance.now() - begun;
    },
  });
  // A view, as the dashboard's: the rows the changes named are read at most once per 250 ms (all of
  // them after a change that named none).
  let pending: { workers: Set<string>; tasks: Set<string> } | 'all' | undefined;
  let viewReads = 0;
  let lastRead = Number.NEGATIVE_INFINITY;
  const onChange = (changed: ChangedRows | undefined) => {
    const first = pending === undefined;
    if (!changed) pending = 'all';
    else if (pending !== 'all') {
      pending ??= { workers: new Set(), tasks: new Set() };
      for (const id of changed.workers) pending.workers.add(id);
      for (const id of changed.tasks) pending.tasks.add(id);
    }
    if (!first) return;
    setTimeout(
      () => {
        const asked = pending;
        pending = undefined;
        viewReads++;
        lastRead = Date.now();
        const args = asked === 'all' || asked === undefined ? {} : { ids: { workers: [...asked.workers], tasks: [...asked.tasks] } };
        const begun = performance.now();
        engine.query({ command: 'status', args, actor: 'view' });
        spent.viewMs += performance.now() - begun;
      },
      Math.max(0, lastRead + 250 - Date.now()),
    );
  };
  if (withView) engine.onDidChangeExternally(onChange);
  await listener.ready;
  engine.startBackground();
  say({ phase: 'open', ok: true, openMs: performance.now() - opening });

  const execute = executorOf(engine, ownerId);
  // Requests reach a real owner through its socket, one event-loop turn each; so do the others'
  // notifications. Without this turn a loop of requests would hold every notification until its end.
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
  const hand = new SyncPgClient(url);
  const ids = Array.from({ length: workers }, (_, i) => `${prefix}-${i}`);

  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    if (line === 'claims') {
      const latencies: number[] = [];
      let handMs = 0;
      const before = { ...spent, notices, viewReads, ...store.snapshot() };
      const claimCpu = process.cpuUsage();
      const started = Date.now();
      for (let round = 0; round < claimRounds; round++) {
        if (round > 0) {
          const reset = performance.now();
          hand.query(`UPDATE workers SET state = 'IDLE', task_id = NULL, branch = NULL, attempt = 0 WHERE id LIKE $1`, [`${prefix}-%`]);
          handMs += performance.now() - reset;
        }
        for (const worker of ids) {
          const begun = performance.now();
          const claimed = await execute('claim', { worker });
          if (claimed) latencies.push(performance.now() - begun);
          await nextTurn();
        }
      }
      say({
        phase: 'claims',
        latencies,
        span: [started, Date.now()],
        cpuMs: ((usage) => (usage.user + usage.system) / 1000)(process.cpuUsage(claimCpu)),
        handMs,
        noticesMs: spent.noticesMs - before.noticesMs,
        viewMs: spent.viewMs - before.viewMs,
        notices: notices - before.notices,
        viewReads: viewReads - before.viewReads,
        storeWrites: store.counts.writes - before.writes,
        storeReads: store.counts.reads - before.reads,
      });
    } else if (line === 'heartbeats') {
      const latencies: number[] = [];
      const before = { ...store.snapshot(), notices, viewReads };
      const cpuBefore = process.cpuUsage();
      const started = Date.now();
      let sent = 0;
      for (let round = 0; round < beatRounds; round++) {
        for (const worker of ids) {
          // Paced like agents' beats: the CPU measured is the work's, not that of ten processes fighting for two cores.
          const due = started + (sent++ * 1000) / (beatRate || Number.POSITIVE_INFINITY);
          if (Date.now() < due) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
          const begun = performance.now();
          await execute('heartbeat', { worker, status: 'working' });
          latencies.push(performance.now() - begun);
          await nextTurn();
        }
      }
      const ended = Date.now();
      const cpu = process.cpuUsage(cpuBefore);
      // Notifications sent during the phase arrive a little after it: counted until the others finish too.
      say({
        phase: 'heartbeats',
        latencies,
        span: [started, ended],
        cpuMs: (cpu.user + cpu.system) / 1000,
        storeWrites: store.counts.writes - before.writes,
        storeReads: store.counts.reads - before.reads,
        notices: notices - before.notices,
        viewReads: viewReads - before.viewReads,
      });
    } else if (line === 'end') {
      break;
    }
  }
  say({ phase: 'end', notices, viewReads, storeWrites: store.counts.writes, storeReads: store.counts.reads });
  hand.close();
  await listener.close();
  engine.dispose();
  store.close();
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}

void main();
