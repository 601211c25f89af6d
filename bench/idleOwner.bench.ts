/**
 * An idle owner's CPU (issue 13: ≤ 0.05 s over 60 s). A real `foreman serve` (agents enabled) with
 * 8 idle workers and nothing asking it anything; its own CPU time (utime + stime, from /proc) over
 * `--seconds`, after a pause (`--settle`, default 60 s) that lets the start-up work end: recovery,
 * the first retention pass 5 s in, and the garbage collections V8 runs for a while after a start
 * (measured: 0.10 s of CPU over the 15–75 s after start, none over the 60 s after that). The baseline, over the same window: a Node process that only keeps a
 * timer alive, i.e. what any resident Node process costs when it does nothing.
 * /proc counts in clock ticks (10 ms here), so a figure under one tick reads as 0.
 *
 * Usage: node --import tsx bench/idleOwner.bench.ts [--seconds 60] [--workers 8] [--settle 60] [--quick]. Needs dist/ (built
 * when missing). Prints one JSON object.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { cliPath, foreman, git, startServe } from './support/cliProcesses';
import { clockTicks, cpuOf, statusField } from './support/procfs';
import { buildDist, numberOption } from './support/options';
import { round } from './support/stats';

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const closed = new Promise((resolve) => child.once('close', resolve));
  child.kill('SIGTERM');
  await closed;
}

async function main(): Promise<void> {
  const seconds = numberOption('seconds', 60, 1);
  const workers = numberOption('workers', 8, 1);
  buildDist({ whenMissing: [cliPath] });
  const repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'foreman-idle-bench-')));
  let serve: ChildProcess | undefined;
  let floor: ChildProcess | undefined;
  try {
    git(repo, 'init', '--quiet', '-b', 'main');
    git(repo, '-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', 'commit', '--quiet', '--allow-empty', '-m', 'initial');
    foreman(repo, 'init');
    for (let n = 1; n <= workers; n++) foreman(repo, 'worker', 'add', `w${n}`);
    serve = await startServe(repo, []);
    floor = spawn(process.execPath, ['-e', 'setInterval(() => {}, 2 ** 30)'], { stdio: 'ignore' });
    await delay(numberOption('settle', 60, 1) * 1000);
    const [ownerPid, floorPid] = [serve.pid!, floor.pid!];
    const before = { owner: cpuOf(ownerPid).own, floor: cpuOf(floorPid).own };
    const started = performance.now();
    await delay(seconds * 1000);
    const after = { owner: cpuOf(ownerPid).own, floor: cpuOf(floorPid).own };
    const elapsed = (performance.now() - started) / 1000;
    const owner = after.owner - before.owner;
    const idleNode = after.floor - before.floor;
    process.stdout.write(
      `${JSON.stringify(
        {
          seconds: round(elapsed, 1),
          idleWorkers: workers,
          ownerCpuSeconds: round(owner, 3),
          idleNodeCpuSeconds: round(idleNode, 3),
          ownerOverIdleNode: idleNode > 0 ? round(owner / idleNode, 2) : null,
          ownerRssMiB: round(statusField(ownerPid, 'VmRSS'), 1),
          clockTickSeconds: round(1 / clockTicks, 3),
          target: 'owner CPU ≤ 0.05 s over 60 s',
          met: owner <= 0.05 * (elapsed / 60),
          environment: { node: process.version, cpus: os.cpus().length, loadAverage1m: round(os.loadavg()[0] ?? 0, 2) },
        },
        null,
        2,
      )}\n`,
    );
  } finally {
    if (floor) await stop(floor);
    if (serve) await stop(serve);
    fs.rmSync(repo, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
