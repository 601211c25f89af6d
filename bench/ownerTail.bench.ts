/**
 * The owner's tail through a real `foreman serve` (issue 34, items 1 and 3): open-loop requests,
 * each on a new connection, against the same requests run by Foreman's engine in this process on
 * better-sqlite3 (WAL, synchronous=FULL), and a bare 4 KiB append + fsync, on the same schedule in
 * the same run.
 *
 * Every `--interval-ms` (12) a cycle starts, whether or not the last one was answered (open loop):
 * `claim` for one of the workers (round robin, so overlapping cycles do not refuse each other),
 * then, once answered, `fail` for it (the task is queued again after an hour: not within the run).
 * A claim's latency runs from its scheduled start (a late start is the owner's delay too), a fail's
 * from when it was sent. Printed per side: median, p99 and max of every request, and the ratios of
 * the owner's max and p99 to the engine's (target: max ≤ 2×). `--history` seeds that many rows of
 * finished work's history (transitions) on both sides. The owner's longest single turn of its event
 * loop during the run (target at 1M tasks + 1M history: ≤ 50 ms) is watched from inside the serve
 * (support/turnMonitor.mjs, preloaded), its start left out. FOREMAN_BENCH_SERVE_PROFILE=<dir> has
 * the serve write a CPU profile there.
 *
 * Usage: node --import tsx bench/ownerTail.bench.ts [--tasks 100000] [--history 0] [--seconds 20]
 *   [--interval-ms 12] [--workers 8] [--quick]. Builds dist/ first (not under `npm test`, which just did).
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { ok } from '../src/core/result';
import { SqlJsStore } from '../src/infra/db';
import { migrations } from '../src/infra/db/migrations/index';
import { readAnnouncement } from '../src/infra/endpoint/discovery';
import { readEndpointResponse } from '../src/infra/endpoint/wire';
import { benchSettings, engineOnBetter, executeParsed } from './clientsChild';
import { openBetter } from './support/betterStore';
import { seed, seedHistory } from './support/claimWorkload';
import { foreman, git, startServe } from './support/cliProcesses';
import { cpuOf } from './support/procfs';
import { round, tails } from './support/stats';
import { buildDist, numberOption } from './support/options';

const taskCount = numberOption('tasks', 100_000, 500);
const historyRows = numberOption('history', 0, 0);
/** FOREMAN_BENCH_SERVE_PROFILE=<dir>: the serve writes a CPU profile there when it stops. */
const profileDir = process.env.FOREMAN_BENCH_SERVE_PROFILE;
const profileOptions = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
const seconds = numberOption('seconds', 20, 1);
const intervalMs = numberOption('interval-ms', 12);
const workerCount = numberOption('workers', 8, 2);
const workers = Array.from({ length: workerCount }, (_, index) => `tail-${index + 1}`);

type Request = { command: string; args: object; actor: string };
type Answer = { ok: boolean; kind?: string; code?: string; value?: unknown };
type Send = (request: Request) => Promise<Answer>;

/** Connections refused for a full backlog (EAGAIN) and tried again: the owner was not accepting. */
let connectRetries = 0;

/**
 * One request on a connection of its own, as every CLI call and agent hook opens one. A connect
 * refused with EAGAIN (the socket's backlog is full while the owner's thread is held) is tried again
 * a millisecond later, as the time it costs is the owner's delay too.
 */
function sendOnNewConnection(socketPath: string, token: string): Send {
  const attempt = (request: Request, resolve: (answer: Answer) => void, reject: (error: Error) => void): void => {
    const socket = net.createConnection(socketPath);
    let text = '';
    let connected = false;
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (connected || error.code !== 'EAGAIN') return reject(error);
      connectRetries++;
      socket.destroy();
      setTimeout(() => attempt(request, resolve, reject), 1);
    });
    socket.on('connect', () => {
      connected = true;
      socket.write(`${JSON.stringify({ token, request })}\n`);
    });
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const end = text.indexOf('\n');
      if (end < 0) return;
      socket.destroy();
      const response = readEndpointResponse(JSON.parse(text.slice(0, end)));
      if (!response) return reject(new Error('the owner sent a response that is not valid'));
      const { result } = response;
      resolve(result.ok ? { ok: true, value: result.value } : { ok: false, kind: result.kind, code: result.code });
    });
    socket.on('close', () => {
      if (connected) reject(new Error('the owner closed the connection without answering'));
    });
  };
  return (request) => new Promise<Answer>((resolve, reject) => attempt(request, resolve, reject));
}

/** Runs the open loop through `send` for `seconds`; every request's latency in ms. */
async function openLoop(send: Send): Promise<{ latencies: number[]; refused: number; cycles: number }> {
  const latencies: number[] = [];
  let refused = 0;
  const expect = (answer: Answer, command: string): void => {
    // A claim while the same worker's last cycle is still open is refused; anything else is a bug.
    if (answer.ok) return;
    if (answer.kind !== 'refused') throw new Error(`${command} failed: ${answer.kind} ${answer.code}`);
    refused++;
  };
  const cycle = async (index: number, scheduledAt: number): Promise<void> => {
    const worker = workers[index % workers.length] ?? 'tail-1';
    const claimed = await send({ command: 'claim', args: { worker }, actor: worker });
    latencies.push(performance.now() - scheduledAt);
    expect(claimed, 'claim');
    const failSent = performance.now();
    expect(await send({ command: 'fail', args: { worker, reason: 'released by the bench' }, actor: worker }), 'fail');
    latencies.push(performance.now() - failSent);
  };
  const started = performance.now();
  const cycles = Math.floor((seconds * 1000) / intervalMs);
  const running: Promise<void>[] = [];
  for (let index = 0; index < cycles; index++) {
    const scheduledAt = started + index * intervalMs;
    const wait = scheduledAt - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    running.push(cycle(index, scheduledAt));
  }
  await Promise.all(running);
  return { latencies, refused, cycles };
}

/** The floor under every durable write: a 4 KiB append + fsync on the same schedule. */
async function bareFsync(dir: string): Promise<number[]> {
  const fd = fs.openSync(path.join(dir, 'bare.journal'), 'a');
  const block = Buffer.alloc(4096, 7);
  const latencies: number[] = [];
  const started = performance.now();
  const writes = Math.floor((seconds * 1000) / intervalMs) * 2;
  try {
    for (let index = 0; index < writes; index++) {
      const scheduledAt = started + (index * intervalMs) / 2;
      const wait = scheduledAt - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      fs.writeSync(fd, block);
      await new Promise<void>((resolve, reject) => fs.fsync(fd, (error) => (error ? reject(error) : resolve())));
      latencies.push(performance.now() - scheduledAt);
    }
  } finally {
    fs.closeSync(fd);
  }
  return latencies;
}

async function seedOwner(repo: string): Promise<void> {
  git(repo, 'init', '--quiet', '-b', 'main');
  git(repo, '-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', 'commit', '--quiet', '--allow-empty', '-m', 'initial');
  foreman(repo, 'init');
  fs.writeFileSync(path.join(repo, '.foreman', 'settings.json'), JSON.stringify(benchSettings));
  for (const worker of workers) foreman(repo, 'worker', 'add', worker);
  const store = await SqlJsStore.open(path.join(repo, '.foreman'));
  seed(taskCount, (sql, params) => store.write((tx) => ok(tx.run(sql, params))));
  seedHistory(historyRows, taskCount, (sql, params) => store.write((tx) => ok(tx.run(sql, params))));
  store.close();
}

async function engineSide(file: string): Promise<{ latencies: number[]; refused: number; cycles: number }> {
  const db = openBetter(file);
  db.exec(migrations.map((migration) => migration.sql).join('\n'));
  db.exec('BEGIN');
  seed(taskCount, (sql, params) => db.prepare(sql).run(...params));
  seedHistory(historyRows, taskCount, (sql, params) => db.prepare(sql).run(...params));
  db.exec('COMMIT');
  db.close();
  const { engine, store } = engineOnBetter(file);
  try {
    for (const worker of workers) {
      const added = await executeParsed(engine, { command: 'worker.add', args: { id: worker }, actor: 'bench' });
      if (!added.ok) throw new Error(`worker.add ${worker}: ${added.kind} ${added.code}`);
    }
    return await openLoop((request) => executeParsed(engine, request));
  } finally {
    engine.dispose();
    store.close();
  }
}

/** The serve's turn window since the last call (support/turnMonitor.mjs): asks for it, then waits for the file. */
async function turnWindow(pid: number | undefined, file: string): Promise<{ maxMs: number; p99Ms: number; meanMs: number } | undefined> {
  if (pid === undefined) return undefined;
  fs.rmSync(file, { force: true });
  process.kill(pid, 'SIGUSR2');
  for (let waited = 0; !fs.existsSync(file); waited++) {
    if (waited > 10_000) throw new Error('the serve never wrote its turn window (support/turnMonitor.mjs)');
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return JSON.parse(fs.readFileSync(file, 'utf8')) as { maxMs: number; p99Ms: number; meanMs: number };
}

async function main(): Promise<void> {
  buildDist();
  const work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'foreman-owner-tail-')));
  const repo = path.join(work, 'repo');
  fs.mkdirSync(repo);
  fs.mkdirSync(path.join(work, 'engine'));
  try {
    await seedOwner(repo);
    const turnsFile = path.join(work, 'turns.json');
    process.env.FOREMAN_BENCH_TURNS_FILE = turnsFile;
    const serve = await startServe(
      repo,
      ['--no-agents'],
      ['--import', pathToFileURL(path.join(__dirname, 'support', 'turnMonitor.mjs')).href, ...profileOptions],
    );
    let serveOutput = '';
    const keep = (chunk: Buffer): void => void (serveOutput = (serveOutput + chunk.toString()).slice(-4000));
    serve.stdout?.on('data', keep);
    serve.stderr?.on('data', keep);
    let owner: Awaited<ReturnType<typeof openLoop>>;
    let ownerCpuS = 0;
    let ownerTurns: Awaited<ReturnType<typeof turnWindow>>;
    try {
      const announcement = readAnnouncement(path.join(repo, '.foreman'));
      if (!announcement) throw new Error('the owner announced no endpoint');
      const cpuBefore = serve.pid ? cpuOf(serve.pid).own : 0;
      await turnWindow(serve.pid, turnsFile);
      owner = await openLoop(sendOnNewConnection(announcement.info.socketPath, announcement.token));
      ownerTurns = await turnWindow(serve.pid, turnsFile);
      ownerCpuS = serve.pid ? cpuOf(serve.pid).own - cpuBefore : 0;
    } catch (error) {
      process.stderr.write(`the owner's last output:\n${serveOutput}\n`);
      throw error;
    } finally {
      serve.kill('SIGTERM');
      await new Promise((resolve) => serve.once('close', resolve));
    }
    const engine = await engineSide(path.join(work, 'engine', 'engine.db'));
    const bare = await bareFsync(work);
    const ownerTails = tails(owner.latencies, 2);
    const engineTails = tails(engine.latencies, 2);
    const maxRatio = round((ownerTails['maxMs'] ?? 0) / (engineTails['maxMs'] ?? 1), 2);
    console.log(
      JSON.stringify(
        {
          tasks: taskCount,
          historyRows,
          seconds,
          intervalMs,
          workers: workerCount,
          owner: { ...ownerTails, refused: owner.refused, cycles: owner.cycles, connectRetries, cpuBusy: round(ownerCpuS / seconds, 2) },
          engineOnBetterSqlite3InProcess: { ...engineTails, refused: engine.refused, cycles: engine.cycles },
          bareAppendFsync: tails(bare, 2),
          ownerMaxOverEngineMax: maxRatio,
          ownerP99OverEngineP99: round((ownerTails['p99Ms'] ?? 0) / (engineTails['p99Ms'] ?? 1), 2),
          targetOwnerMaxOverEngineMax: 2,
          met: maxRatio <= 2,
          ownerLongestTurn: ownerTurns,
          ownerLongestTurnLe50ms: ownerTurns === undefined ? null : ownerTurns.maxMs <= 50,
          machine: { cpus: os.cpus().length, node: process.version, loadAverage: os.loadavg().map((load) => round(load, 2)) },
        },
        null,
        2,
      ),
    );
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

void main();
