/**
 * Owner costs as machines join (issue 29, finding 6), in one run on one PostgreSQL: for 1, 2, 5 and
 * 10 owner processes (each an engine wired as `foreman serve` wires it, with the listener of the
 * other owners' notifications; with `--views` also a view that reads what they name;
 * bench/ownersScaleChild.ts),
 * started at once on a fresh database,
 *
 *   open        how many opened, and how long it took (they migrate the new database together);
 *   claims      each owner's `--workers` workers claim through the engine's front door, `--claim-rounds`
 *               times each; against raw `FOR UPDATE SKIP LOCKED` claims from as many processes
 *               (bench/pgClaimsChild.ts, the same synchronous client) on the same queue size, run
 *               just before and just after the engine's (the ratios take their mean: the machine's
 *               load moves between minutes); for both, the CPU a claim cost the claiming processes
 *               and the server (/proc), which is what bounds claims per second on 2 busy cores;
 *   heartbeats  each worker beats `--beat-rounds` times, each owner `--beat-rate` beats a second (as
 *               agents beat, not flat out: on 2 cores ten owners beating flat out measure the fight
 *               for the CPU); the owner's CPU per heartbeat of its own, and what the others'
 *               notifications made it do meanwhile (store transactions and reads beyond its own
 *               beats, notifications heard, view reads).
 *
 * Ratios: engine claims per second ÷ raw, engine claim p99 ÷ raw p99, and CPU per heartbeat at N
 * owners ÷ at 1. The server runs on the same machine as every owner: on 2 cores, 10 owners and the
 * server compete for the CPU, which is in every figure at 10.
 *
 * Usage: node --import tsx bench/ownersScale.bench.ts [--owners 1,2,5,10] [--workers 10]
 *        [--claim-rounds 30] [--beat-rounds 60] [--beat-rate 20] [--views] [--cpu-prof <dir>] [--quick].
 * Prints one JSON object. `--cpu-prof` writes each owner process's CPU profiles (main and pg threads)
 * to `<dir>` (node --cpu-prof), to see where an owner's milliseconds per claim go. `--views` gives
 * each owner a view of the others' changes as a VS Code window's dashboard reads them; `--quick`
 * runs 1 and 2 owners of 3 workers for a few claims and beats (a check that it runs, not figures).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { SyncPgClient } from '../src/infra/pg/syncClient';
import { type TestPostgres, createDatabase, startPostgres } from '../test/support/postgres';
import { numberOption, numbersOption, textOption } from './support/options';
import { serverCpuSeconds } from './support/pgServerCpu';
import { stealMs } from './support/procfs';
import { rawClaims, spanPerSecond } from './support/rawClaims';
import { round, tails } from './support/stats';

const ownerChild = path.join(__dirname, 'ownersScaleChild.ts');

/** A whole number of at least 1 (`numberOption` takes any number ≥ 0). */
function whole(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} takes a whole number of at least 1, not ${value}`);
  return value;
}

// Quick mode (`--quick`, npm test's bench pass): two owner counts, a few claims and beats, seconds in all.
const ownerCounts = numbersOption('owners', '1,2,5,10', '1,2').map((value) => whole('owners', value));
const workers = whole('workers', numberOption('workers', 10, 3));
const claimRounds = whole('claim-rounds', numberOption('claim-rounds', 30, 2));
const beatRounds = whole('beat-rounds', numberOption('beat-rounds', 60, 2));
/** Each owner with a dashboard-like view of the others' changes (a VS Code window), not as `foreman serve`. */
const views = process.argv.includes('--views');
/** Each owner's heartbeats per second in the heartbeat phase (its agents' beats); 0: as fast as they go. */
const beatRate = numberOption('beat-rate', 20, 0);
/** Where the owners' CPU profiles go (node --cpu-prof), if anywhere. */
const profileDir = textOption('cpu-prof', '');

/** Raw SQL on the server, for seeding. */
function sql(url: string, text: string, params: readonly (string | number)[] = []): void {
  const client = new SyncPgClient(url);
  try {
    client.query(text, params);
  } finally {
    client.close();
  }
}

function seedTasks(url: string, tasks: number): void {
  sql(url, 'DELETE FROM tasks');
  sql(
    url,
    `INSERT INTO tasks (id, title, prompt, status, sort_order, created_at, max_attempts)
     SELECT 't-' || n, 'task ' || n, '', 'queued', n, 1000, 3 FROM generate_series(0, $1 - 1) AS n`,
    [tasks],
  );
}

function seedWorkers(url: string, owners: number): void {
  for (let i = 0; i < owners; i++) {
    sql(
      url,
      `INSERT INTO workers (id, state, agent, state_changed_at, created_at, host)
       SELECT $2 || '-' || n, 'IDLE', 'demo', 1000, 1000, $3 FROM generate_series(0, $1 - 1) AS n`,
      [workers, `o${i}`, `machine-${i}`],
    );
  }
}

/** An owner process and its answers, one JSON line per phase. */
class Owner {
  private readonly answers: Array<Record<string, unknown>> = [];
  private waiting: ((answer: Record<string, unknown>) => void) | undefined;
  readonly exited: Promise<number | null>;
  private stderr = '';

  constructor(
    readonly child: ChildProcess,
    readonly name: string,
  ) {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const answer = JSON.parse(line) as Record<string, unknown>;
      if (this.waiting) {
        const waiting = this.waiting;
        this.waiting = undefined;
        waiting(answer);
      } else this.answers.push(answer);
    });
    child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  }

  /** The next answer; rejects if the process ends first. */
  next(): Promise<Record<string, unknown>> {
    const queued = this.answers.shift();
    if (queued) return Promise.resolve(queued);
    return Promise.race([
      new Promise<Record<string, unknown>>((resolve) => (this.waiting = resolve)),
      this.exited.then((code) => {
        throw new Error(`${this.name} exited (${code}) without answering: ${this.stderr.slice(-2000)}`);
      }),
    ]);
  }

  send(line: string): void {
    this.child.stdin!.write(`${line}\n`);
  }
}

/** Raw claims from `processes` processes until `tasks` are taken, with the CPU they and the server spent per claim. */
async function rawSkipLocked(server: TestPostgres, url: string, processes: number, tasks: number) {
  seedTasks(url, tasks);
  const startAt = Date.now() + 5_000 + processes * 1_000;
  // Read when the claims start: the children have connected by then (a password exchange costs the
  // server milliseconds of CPU, which is no part of a claim; the owners connected long before theirs).
  let serverBefore = serverCpuSeconds(server.dataDir);
  const atStart = setTimeout(() => (serverBefore = serverCpuSeconds(server.dataDir)), startAt - Date.now());
  const raw = await rawClaims(url, processes, startAt);
  clearTimeout(atStart);
  const serverMs = (serverCpuSeconds(server.dataDir) - serverBefore) * 1000;
  return { ...raw, cpuMsPerClaim: { client: round(raw.clientCpuMs / raw.claims, 3), server: round(serverMs / raw.claims, 3) } };
}

async function ownersRun(server: TestPostgres, owners: number) {
  const baseUrl = server.url;
  const url = createDatabase(baseUrl, `scale_${owners}_${process.pid}`);
  // The schema comes from the owners themselves, opened at once; the rows are seeded after.
  const processes = Array.from(
    { length: owners },
    (_, i) =>
      new Owner(
        spawn(
          process.execPath,
          [
            ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
            '--import',
            'tsx',
            ownerChild,
            url,
            `owner-${i}`,
            `machine-${i}`,
            `o${i}`,
            String(workers),
            String(claimRounds),
            String(beatRounds),
            views ? 'view' : 'serve',
            String(beatRate),
          ],
          { stdio: ['pipe', 'pipe', 'pipe'] },
        ),
        `owner-${i}`,
      ),
  );
  try {
    const opened = await Promise.all(processes.map((owner) => owner.next()));
    const failed = opened.filter((answer) => answer['ok'] !== true);
    if (failed.length) throw new Error(`${failed.length} of ${owners} owners did not open: ${String(failed[0]?.['error'])}`);
    seedWorkers(url, owners);
    const tasks = owners * workers * claimRounds;
    // Raw claims just before the engine's and just after, with as many processes: the machine's load
    // moves from minute to minute (other work shares its 2 cores), and the engine's phase sits between the two.
    const rawBefore = await rawSkipLocked(server, url, owners, tasks);
    seedTasks(url, tasks);

    const serverBefore = serverCpuSeconds(server.dataDir);
    for (const owner of processes) owner.send('claims');
    const claimRuns = await Promise.all(processes.map((owner) => owner.next()));
    const engineServerMs = (serverCpuSeconds(server.dataDir) - serverBefore) * 1000;
    const rawAfter = await rawSkipLocked(server, url, owners, tasks);
    const claimLatencies = claimRuns.flatMap((answer) => answer['latencies'] as number[]);
    const handMs = claimRuns.reduce((sum, answer) => sum + (answer['handMs'] as number), 0) / owners;
    const claimSpans = claimRuns.map((answer) => answer['span'] as [number, number]);
    // The bench's own resets between rounds are not claims: their time comes off the span.
    const claimSeconds = (Math.max(...claimSpans.map((span) => span[1])) - Math.min(...claimSpans.map((span) => span[0])) - handMs) / 1000;

    const stealBefore = stealMs();
    for (const owner of processes) owner.send('heartbeats');
    const beatRuns = await Promise.all(processes.map((owner) => owner.next()));
    const steal = stealMs() - stealBefore;
    for (const owner of processes) owner.send('end');
    const ends = await Promise.all(processes.map((owner) => owner.next()));
    await Promise.all(processes.map((owner) => owner.exited));

    const beats = beatRuns.reduce((sum, answer) => sum + (answer['latencies'] as number[]).length, 0);
    const sum = (key: string) => beatRuns.reduce((total, answer) => total + (answer[key] as number), 0);
    const mean = (pick: (run: typeof rawBefore) => number) => round((pick(rawBefore) + pick(rawAfter)) / 2, 3);
    const raw = {
      perSecond: mean((run) => run.perSecond),
      p99Ms: mean((run) => run.latency['p99Ms'] ?? 0),
      medianMs: mean((run) => run.latency['medianMs'] ?? 0),
      cpuMsPerClaim: { client: mean((run) => run.cpuMsPerClaim.client), server: mean((run) => run.cpuMsPerClaim.server) },
      before: rawBefore,
      after: rawAfter,
    };
    const claimCount = claimLatencies.length;
    const engineClaims = {
      perSecond: round(claimCount / claimSeconds, 0),
      latency: tails(claimLatencies, 2),
      // The owners' processes (engine, pg worker threads) and the server, per claim.
      cpuMsPerClaim: {
        owners: round(claimRuns.reduce((total, answer) => total + (answer['cpuMs'] as number), 0) / claimCount, 3),
        server: round(engineServerMs / claimCount, 3),
      },
      // Each owner's phase: its span, the time its claims took, and the bench's resets, in ms.
      perOwner: claimRuns.map((answer) => {
        const span = answer['span'] as [number, number];
        const latencies = answer['latencies'] as number[];
        return {
          spanMs: span[1] - span[0],
          inClaimsMs: round(
            latencies.reduce((total, value) => total + value, 0),
            0,
          ),
          resetsMs: round(answer['handMs'] as number, 0),
          cpuMs: round(answer['cpuMs'] as number, 0),
          onNoticesMs: round(answer['noticesMs'] as number, 0),
          viewReadsMs: round(answer['viewMs'] as number, 0),
          noticesHeard: answer['notices'] as number,
          viewReads: answer['viewReads'] as number,
          storeWrites: answer['storeWrites'] as number,
          storeReads: answer['storeReads'] as number,
        };
      }),
    };
    return {
      owners,
      open: {
        opened: opened.length,
        failed: failed.length,
        latency: tails(
          opened.map((answer) => answer['openMs'] as number),
          0,
        ),
      },
      engineClaims,
      rawSkipLocked: raw,
      heartbeats: {
        perSecond: spanPerSecond(
          beats,
          beatRuns.map((answer) => answer['span'] as [number, number]),
        ),
        latency: tails(
          beatRuns.flatMap((answer) => answer['latencies'] as number[]),
          2,
        ),
        ownerCpuMsPerHeartbeat: round(sum('cpuMs') / beats, 3),
        // Each owner's store transactions beyond its own beats, per beat of its own: what woke it.
        otherWritesPerHeartbeat: round((sum('storeWrites') - beats) / beats, 3),
        readsPerHeartbeat: round(sum('storeReads') / beats, 3),
        noticesHeardPerHeartbeat: round(sum('notices') / beats, 3),
        viewReadsPerHeartbeat: round(sum('viewReads') / beats, 3),
        hypervisorStealMs: round(steal, 0),
      },
      noticesHeardInAll: ends.reduce((total, answer) => total + (answer['notices'] as number), 0),
      // Against the mean of the raw runs before and after the engine's.
      ratios: {
        engineClaimsOverRaw: round(engineClaims.perSecond / raw.perSecond, 2),
        engineClaimP99OverRaw: round((engineClaims.latency['p99Ms'] ?? 0) / (raw.p99Ms || 1), 2),
        engineClaimP50OverRaw: round((engineClaims.latency['medianMs'] ?? 0) / (raw.medianMs || 1), 2),
        // What a claim costs the machine in all (client + server CPU): on 2 cores, what bounds claims per second.
        engineCpuPerClaimOverRaw: round(
          (engineClaims.cpuMsPerClaim.owners + engineClaims.cpuMsPerClaim.server) /
            (raw.cpuMsPerClaim.client + raw.cpuMsPerClaim.server || 1),
          2,
        ),
      },
    };
  } finally {
    for (const owner of processes) if (owner.child.exitCode === null) owner.child.kill();
  }
}

async function main(): Promise<void> {
  const server = await startPostgres();
  const loadBefore = os.loadavg();
  try {
    const runs = [];
    for (const owners of ownerCounts) runs.push(await ownersRun(server, owners));
    const one = runs.find((entry) => entry.owners === 1);
    const most = runs.at(-1);
    const cpuGrowth = one && most ? round(most.heartbeats.ownerCpuMsPerHeartbeat / one.heartbeats.ownerCpuMsPerHeartbeat, 2) : Number.NaN;
    const result = {
      bench: 'ownersScale',
      environment: {
        node: process.version,
        cpus: os.cpus().length,
        loadAverageBefore: loadBefore.map((value) => round(value, 1)),
        loadAverageAfter: os.loadavg().map((value) => round(value, 1)),
      },
      ownersWith: views ? 'a dashboard-like view each (a VS Code window)' : 'no view (foreman serve)',
      workersPerOwner: workers,
      claimRounds,
      beatRounds,
      beatsPerSecondPerOwner: beatRate,
      runs,
      targets: {
        engineClaimsOverRawAtLeast0_5: runs.map((entry) => ({
          owners: entry.owners,
          value: entry.ratios.engineClaimsOverRaw,
          met: entry.ratios.engineClaimsOverRaw >= 0.5,
        })),
        engineClaimP99AtMost3xRaw: runs.map((entry) => ({
          owners: entry.owners,
          value: entry.ratios.engineClaimP99OverRaw,
          met: entry.ratios.engineClaimP99OverRaw <= 3,
        })),
        cpuPerHeartbeatAtMostOwnersOver1AtMost1_3: { owners: most?.owners, value: cpuGrowth, met: cpuGrowth <= 1.3 },
        everyOwnerOpened: runs.every((entry) => entry.open.failed === 0),
      },
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await server.stop();
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
