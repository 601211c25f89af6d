/**
 * A crew end to end: `foreman serve` with N workers running the demo agent on M small tasks (one
 * file and one commit each), approved and merged through the CLI as they reach review, the way a
 * person (or a script) would. Then the owner sits with its idle workers and we watch its CPU.
 *
 * Measured on the serve process (the owner) from /proc: its own CPU (utime + stime; its agents'
 * CPU is reported apart, as reaped children), its peak RSS (VmHWM), tasks per minute from serve's
 * start to the last merge, and the merge latency from `foreman merge` being run to it returning
 * with the task Done (merges for several workers are asked for at once, so this includes waiting
 * in the merge queue).
 *
 * Usage: node --import tsx bench/crew.bench.ts [--workers 8] [--tasks 40] [--idle-seconds 60] [--quick]
 * Needs dist/ (built when missing). Prints one JSON object.
 */
import { type ChildProcess, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { runProcess } from '../test/support/runProcess';
import { startServe as startServeOf } from '../test/support/serve';
import { buildDist, numberOption } from './support/options';
import { clockTicks, cpuOf, statusField } from './support/procfs';

const root = path.join(__dirname, '..');
const cli = path.join(root, 'dist', 'cli.js');

const round = (value: number, digits = 3): number => Math.round(value * 10 ** digits) / 10 ** digits;

function median(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function percentile(samples: readonly number[], fraction: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

interface Sandbox {
  readonly repo: string;
  readonly env: Record<string, string>;
}

function makeSandbox(base: string): Sandbox {
  const repo = path.join(base, 'repo');
  fs.mkdirSync(repo);
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('FOREMAN_')) env[key] = value;
  Object.assign(env, { HOME: base, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' });
  const git = (...args: string[]): void => void execFileSync('git', args, { cwd: repo, env, stdio: 'ignore' });
  git('init', '--quiet', '-b', 'main');
  git('-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', 'commit', '--quiet', '--allow-empty', '-m', 'initial');
  return { repo, env };
}

function foreman(sandbox: Sandbox, args: readonly string[]): ReturnType<typeof runProcess> {
  return runProcess(process.execPath, [cli, ...args], { cwd: sandbox.repo, env: sandbox.env });
}

async function must(sandbox: Sandbox, args: readonly string[]): Promise<string> {
  const run = await foreman(sandbox, args);
  if (run.code !== 0) throw new Error(`foreman ${args.join(' ')} exited ${run.code}: ${run.stdout}${run.stderr}`);
  return run.stdout;
}

interface Status {
  workers: Array<{ id: string; state: string }>;
  tasks: Array<{ id: string; status: string; attempt: number }>;
}

function startServe(sandbox: Sandbox): Promise<{ child: ChildProcess; output: () => string }> {
  return startServeOf(sandbox.repo, { env: sandbox.env, timeoutMs: 30_000 });
}

async function main(): Promise<void> {
  const workers = numberOption('workers', 8, 1);
  const taskCount = numberOption('tasks', 40, 1);
  const idleSeconds = numberOption('idle-seconds', 60, 1);
  buildDist({ whenMissing: [cli, path.join(root, 'dist', 'demo-agent.js')] });
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'foreman-crew-bench-')));
  let serve: { child: ChildProcess; output: () => string } | undefined;
  try {
    const sandbox = makeSandbox(base);
    await must(sandbox, ['init']);
    // Default liveness (nothing here should look stale); a short backoff in case of a retry.
    fs.writeFileSync(
      path.join(sandbox.repo, '.foreman', 'settings.json'),
      JSON.stringify({ worktreeRoot: path.join(base, 'worktrees'), concurrency: workers, retryBaseMs: 200, retryMaxMs: 1000 }),
    );
    for (let index = 1; index <= workers; index++) await must(sandbox, ['worker', 'add', `w${index}`, '--agent', 'demo']);
    for (let index = 1; index <= taskCount; index++) {
      await must(sandbox, [
        'task',
        'add',
        `Task ${index}`,
        '--id',
        `t${index}`,
        '--prompt',
        `write work/t${index}.txt task ${index}\ncommit task ${index}`,
      ]);
    }

    const startedAt = performance.now();
    serve = await startServe(sandbox);
    const pid = serve.child.pid!;
    const mergeLatencies: number[] = [];
    let statusCalls = 0;
    let merged = 0;
    let lastMergeAt = startedAt;
    const deadline = Date.now() + 15 * 60_000;
    for (;;) {
      const status = JSON.parse(await must(sandbox, ['status', '--json'])) as Status;
      statusCalls++;
      if (status.tasks.every((task) => task.status === 'done')) break;
      const failed = status.tasks.filter((task) => task.status === 'failed');
      if (failed.length > 0 || Date.now() > deadline)
        throw new Error(`the crew did not finish: ${JSON.stringify(status)}\n${serve.output()}`);
      const ready = status.workers.filter((worker) => worker.state === 'IN_REVIEW' || worker.state === 'APPROVED');
      if (ready.length === 0) {
        await delay(150);
        continue;
      }
      await Promise.all(
        ready.map(async (worker) => {
          if (worker.state === 'IN_REVIEW') await must(sandbox, ['approve', worker.id]);
          const asked = performance.now();
          await must(sandbox, ['merge', worker.id]);
          lastMergeAt = performance.now();
          mergeLatencies.push(lastMergeAt - asked);
          merged++;
        }),
      );
    }
    const runSeconds = (lastMergeAt - startedAt) / 1000;
    const busyCpu = cpuOf(pid);
    const commits = Number(
      execFileSync('git', ['rev-list', '--count', 'main'], { cwd: sandbox.repo, env: sandbox.env, encoding: 'utf8' }).trim(),
    );

    // Idle: nothing asks the owner anything (no status polling) while 8 idle workers sit there.
    await delay(1000);
    const idleStart = cpuOf(pid);
    const idleStartedAt = performance.now();
    await delay(idleSeconds * 1000);
    const idleEnd = cpuOf(pid);
    const idleElapsed = (performance.now() - idleStartedAt) / 1000;
    const peakRssMiB = statusField(pid, 'VmHWM');
    const rssMiB = statusField(pid, 'VmRSS');

    const result = {
      workers,
      tasks: taskCount,
      merged,
      commitsOnMain: commits - 1,
      run: {
        seconds: round(runSeconds, 2),
        tasksPerMinute: round((taskCount / runSeconds) * 60, 1),
        mergeLatencyMs: {
          median: round(median(mergeLatencies), 1),
          p95: round(percentile(mergeLatencies, 0.95), 1),
          n: mergeLatencies.length,
        },
        ownerCpuSeconds: round(busyCpu.own, 2),
        ownerCpuPercentOfOneCore: round((busyCpu.own / runSeconds) * 100, 1),
        agentsCpuSeconds: round(busyCpu.children, 2),
        statusPolls: statusCalls,
      },
      owner: { peakRssMiB: round(peakRssMiB, 1), rssAtEndMiB: round(rssMiB, 1) },
      idle: {
        seconds: round(idleElapsed, 1),
        idleWorkers: workers,
        ownerCpuSeconds: round(idleEnd.own - idleStart.own, 3),
        ownerCpuPercentOfOneCore: round(((idleEnd.own - idleStart.own) / Math.max(idleElapsed, 0.001)) * 100, 3),
        clockTickSeconds: round(1 / clockTicks, 3),
      },
      environment: {
        node: process.version,
        cpus: os.cpus().length,
        platform: `${os.platform()} ${os.release()}`,
        loadAverage1m: round(os.loadavg()[0]!, 2),
      },
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    if (serve && serve.child.exitCode === null) {
      const closed = new Promise((resolve) => serve!.child.once('close', resolve));
      serve.child.kill('SIGTERM');
      await closed;
    }
    fs.rmSync(base, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
