/**
 * Eight clients through one owner against eight processes on better-sqlite3 (issue 13: "8 clients
 * through one owner ≥ 0.5× of 8 processes on better-sqlite3 WAL FULL, for heartbeats and claims").
 *
 * The owner is a real `foreman serve --no-agents` from dist/ on a store seeded with `--tasks` queued
 * tasks and 8 workers. Each client is a long-lived process (bench/clientsChild.ts) with one
 * connection to the owner's endpoint, looping one request at a time for `--seconds`:
 *   - heartbeats: each client beats for its own worker (which holds a task, so the lease renews);
 *   - claims: each client claims the next task for its worker, then fails it (`fail`: the worker is
 *     idle again, the task queued again after an hour's backoff), two durable writes per claim.
 * The baseline in the same run: 8 processes on one better-sqlite3 database (WAL, synchronous=FULL,
 * same schema and tasks) running the same statements in their own transactions: the engine's
 * heartbeat queries, and the store bench's claim SQL followed by a release (the task queued again).
 * Settings hold the owner's dispatcher to one busy worker, so it rarely hands a worker a task
 * between a client's cancel and its next claim; when it does, that claim is refused (not counted)
 * and the client releases the task it was handed.
 *
 * Printed per side: counted operations a second, every request's latency (median/p99/max), the
 * owner's CPU per operation (its user + system time over the phase) and the load average.
 *
 * Every client runs bundled by esbuild as the product's code is (support/bundle.ts), whichever side
 * it is on; `--sources` runs them from sources under tsx.
 *
 * Usage: node --import tsx bench/clients.bench.ts [--seconds 10] [--tasks 40000] [--clients 8] [--only heartbeat|claim]
 *   [--cpu-prof <dir>] (the owner's and every client's CPU profiles) [--sources] [--quick]. Builds dist/ first (not under
 *   `npm test`, which just did).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ok } from '../src/core/result';
import { SqlJsStore } from '../src/infra/db';
import { migrations } from '../src/infra/db/migrations/index';
import { foreman, git, startServe } from './support/cliProcesses';
import { cpuByThread, cpuOf } from './support/procfs';
import { percentile, round, tails } from './support/stats';
import { benchSettings, engineOnBetter, executeParsed } from './clientsChild';
import { openBetter } from './support/betterStore';
import { bundleChild } from './support/bundle';
import { buildDist, givenOption, numberOption } from './support/options';
import { seed } from './support/claimWorkload';

const root = path.join(__dirname, '..');
const child = path.join(__dirname, 'clientsChild.ts');
const fromSources = process.argv.includes('--sources');
/** How a client is run: bundled as dist/ is (set in `main`), or from sources under tsx (`--sources`). */
let clientScript = ['--import', 'tsx', child];

const seconds = numberOption('seconds', 10, 1);
const taskCount = numberOption('tasks', 40_000, 500);
const clients = numberOption('clients', 8, 1);
/** A folder for the owner's CPU profile (`--cpu-prof`), written when it closes. */
const profileDir = givenOption('cpu-prof');
/** Only these kinds (`--only claim`). */
const only = givenOption('only');
/** From the schedule sent to the start: every client has it by then. */
const startDelayMs = 200;
const kinds = ['heartbeat', 'claim'] as const;
type Kind = (typeof kinds)[number];
type Side = 'owner' | 'engine' | 'better';

interface ClientRun {
  readonly counted: number;
  readonly rounds: number;
  readonly latencies: number[];
  /** When the client found no task left to claim (epoch ms), if it did. */
  readonly ranDryAt: number | null;
  /** The client process's own CPU (user + system) over its run. */
  readonly cpuMs: number;
}

/** A client process, set up and waiting for its schedule. */
interface ReadyClient {
  begin(startAt: number, endAt: number): void;
  readonly finished: Promise<ClientRun>;
}

function startClient(side: Side, kind: Kind, worker: string, where: string): Promise<ReadyClient> {
  // With --cpu-prof each client writes its profile too, named by its pid (said on stderr).
  const profiling = profileDir ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(profileDir)] : [];
  const clientProcess = spawn(process.execPath, [...profiling, ...clientScript, side, kind, worker, where], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  if (profileDir) process.stderr.write(`clients bench: ${side} ${kind} client ${worker} is pid ${clientProcess.pid}\n`);
  let output = '';
  let errors = '';
  clientProcess.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const finished = new Promise<ClientRun>((resolve, reject) =>
    clientProcess.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${side} ${kind} ${worker} exited ${code}: ${errors}`));
      resolve(JSON.parse(output.slice(output.indexOf('\n') + 1)) as ClientRun);
    }),
  );
  return new Promise((resolve, reject) => {
    clientProcess.stdout.on('data', (chunk: Buffer) => {
      const before = output;
      output += chunk.toString();
      if (!before.includes('ready\n') && output.includes('ready\n'))
        resolve({ begin: (startAt, endAt) => clientProcess.stdin.end(`${startAt} ${endAt}\n`), finished });
    });
    finished.catch(reject);
  });
}

const workers = Array.from({ length: clients }, (_, index) => `bench-${index + 1}`);

async function phase(side: Side, kind: Kind, where: string, owner?: ChildProcess): Promise<Record<string, unknown>> {
  process.stderr.write(`clients bench: ${side} ${kind}: starting ${clients} clients\n`);
  // Loaded one after another, so the start-up of one does not eat into another's run.
  const ready: ReadyClient[] = [];
  for (const worker of workers) ready.push(await startClient(side, kind, worker, where));
  const startAt = Date.now() + startDelayMs;
  const endAt = startAt + seconds * 1000;
  for (const client of ready) client.begin(startAt, endAt);
  process.stderr.write(`clients bench: ${side} ${kind}: running for ${seconds} s\n`);
  await new Promise((resolve) => setTimeout(resolve, startDelayMs));
  const running = Promise.all(ready.map((client) => client.finished));
  const cpuBefore = owner?.pid ? cpuOf(owner.pid).own : 0;
  // Per thread: the main one (its tid is its pid) answers; the rest are the replica, V8's GC helpers, libuv's pool.
  const threadsBefore = owner?.pid ? cpuByThread(owner.pid) : undefined;
  const loads: number[] = [];
  const sampler = setInterval(() => loads.push(os.loadavg()[0] ?? 0), 1000);
  const runs = await running;
  clearInterval(sampler);
  const cpu = owner?.pid ? cpuOf(owner.pid).own - cpuBefore : undefined;
  const threads = owner?.pid
    ? [...cpuByThread(owner.pid)].map(([tid, seconds]) => ({ tid, seconds: seconds - (threadsBefore?.get(tid) ?? 0) }))
    : undefined;
  const mainCpu = threads?.find((thread) => thread.tid === String(owner?.pid))?.seconds;
  const counted = runs.reduce((sum, run) => sum + run.counted, 0);
  const rounds = runs.reduce((sum, run) => sum + run.rounds, 0);
  // A side that empties the queue early is timed until its last client found it empty, not for the
  // whole run (the rounds after that would claim nothing and hide its rate).
  const ranDry = runs.some((run) => run.ranDryAt !== null);
  const elapsedS = (Math.max(...runs.map((run) => run.ranDryAt ?? endAt)) - startAt) / 1000;
  return {
    opsPerSecond: round(counted / elapsedS, 0),
    counted,
    notCounted: rounds - counted,
    ...(ranDry ? { queueRanDryAfterS: round(elapsedS, 2) } : {}),
    latency: tails(
      runs.flatMap((run) => run.latencies),
      2,
    ),
    ...(cpu !== undefined ? { ownerCpuMsPerOp: round((cpu * 1000) / Math.max(1, counted), 3) } : {}),
    ...(mainCpu !== undefined
      ? {
          ownerMainThreadCpuMsPerOp: round((mainCpu * 1000) / Math.max(1, counted), 3),
          ownerMainThreadBusy: round(mainCpu / elapsedS, 2),
          // The replica's thread is the busiest of the others when the store has one; V8's GC helpers come next.
          ownerOtherThreadsCpuMsPerOp: (threads ?? [])
            .filter((thread) => thread.tid !== String(owner?.pid) && thread.seconds > 0)
            .map((thread) => round((thread.seconds * 1000) / Math.max(1, counted), 3))
            .sort((a, b) => b - a),
        }
      : {}),
    clientsCpuMsPerOp: round(runs.reduce((sum, run) => sum + run.cpuMs, 0) / Math.max(1, counted), 3),
    loadAverage: { median: round(percentile(loads, 0.5), 2), max: round(Math.max(...loads), 2) },
  };
}

async function seedOwnerStore(repo: string): Promise<void> {
  git(repo, 'init', '--quiet', '-b', 'main');
  git(repo, '-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', 'commit', '--quiet', '--allow-empty', '-m', 'initial');
  foreman(repo, 'init');
  fs.writeFileSync(path.join(repo, '.foreman', 'settings.json'), JSON.stringify(benchSettings));
  for (const worker of workers) foreman(repo, 'worker', 'add', worker);
  const store = await SqlJsStore.open(path.join(repo, '.foreman'));
  seed(taskCount, (sql, params) => store.write((tx) => ok(tx.run(sql, params))));
  store.close();
}

function seedBetter(file: string): void {
  const db = openBetter(file);
  db.exec(migrations.map((migration) => migration.sql).join('\n'));
  db.exec('BEGIN');
  seed(taskCount, (sql, params) => db.prepare(sql).run(...params));
  const now = Date.now();
  for (const [index, worker] of workers.entries()) {
    const task = `task-${String(index * 4).padStart(7, '0')}`;
    db.prepare(`UPDATE tasks SET status = 'running', worker_id = ?, attempt = 1 WHERE id = ?`).run(worker, task);
    db.prepare(
      `INSERT INTO workers (id, state, agent, task_id, attempt, state_changed_at, created_at) VALUES (?, 'ASSIGNED', 'demo', ?, 1, ?, ?)`,
    ).run(worker, task, now, now);
    db.prepare('INSERT INTO task_claims (task_id, claimed_by, attempt, claimed_at_ms, lease_until_ms) VALUES (?, ?, 1, ?, ?)').run(
      task,
      worker,
      now,
      now,
    );
  }
  db.exec('COMMIT');
  db.close();
}

/** The engine baseline's database: the same schema and tasks, its workers added by the engine (IDLE). */
async function seedEngineBaseline(file: string): Promise<void> {
  const db = openBetter(file);
  db.exec(migrations.map((migration) => migration.sql).join('\n'));
  db.exec('BEGIN');
  seed(taskCount, (sql, params) => db.prepare(sql).run(...params));
  db.exec('COMMIT');
  db.close();
  const { engine, store } = engineOnBetter(file);
  for (const worker of workers) {
    const added = await executeParsed(engine, { command: 'worker.add', args: { id: worker }, actor: 'bench' });
    if (!added.ok) throw new Error(`worker.add ${worker}: ${added.kind} ${added.code}`);
  }
  engine.dispose();
  store.close();
}

async function main(): Promise<void> {
  buildDist();
  if (!fromSources) clientScript = [await bundleChild(child)];
  const work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'foreman-clients-bench-')));
  const repo = path.join(work, 'repo');
  fs.mkdirSync(repo);
  const betterFile = path.join(work, 'better.db');
  const engineFile = path.join(work, 'engine', 'engine.db');
  fs.mkdirSync(path.dirname(engineFile));
  await seedOwnerStore(repo);
  seedBetter(betterFile);
  await seedEngineBaseline(engineFile);
  const serve = await startServe(repo, ['--no-agents'], profileDir ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(profileDir)] : []);
  let serveOutput = '';
  const keep = (chunk: Buffer): void => void (serveOutput = (serveOutput + chunk.toString()).slice(-4000));
  serve.stdout?.on('data', keep);
  serve.stderr?.on('data', keep);
  const results: Record<string, Record<string, unknown>> = {};
  try {
    for (const kind of kinds.filter((name) => only === undefined || name === only)) {
      const owner = await phase('owner', kind, path.join(repo, '.foreman'), serve);
      const better = await phase('better', kind, betterFile);
      const engine = await phase('engine', kind, engineFile);
      const ratio = (baseline: Record<string, unknown>): number =>
        round(Number(owner['opsPerSecond']) / Number(baseline['opsPerSecond']), 2);
      results[kind] = {
        owner,
        betterSqlite3: better,
        engineOnBetterSqlite3: engine,
        ownerOverBetter: ratio(better),
        ownerOverEngineOnBetter: ratio(engine),
        target: 0.5,
      };
    }
  } catch (error) {
    process.stderr.write(`the owner's last output:\n${serveOutput}\n`);
    throw error;
  } finally {
    serve.kill('SIGTERM');
    await new Promise((resolve) => serve.once('close', resolve));
    fs.rmSync(work, { recursive: true, force: true });
  }
  console.log(
    JSON.stringify(
      {
        clients,
        seconds,
        tasks: taskCount,
        clientCode: fromSources ? 'from sources under tsx (--sources)' : 'bundled by esbuild as dist/ is',
        machine: { cpus: os.cpus().length, node: process.version },
        ...results,
      },
      null,
      2,
    ),
  );
}

void main();
