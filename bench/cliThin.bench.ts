/**
 * A CLI call through a running owner, thin vs full (issue 13: "≤ 1.5× `node -e 0`"). Measured side
 * by side in one run, interleaved so a slow moment of the machine hits every kind alike:
 *   - `node -e 0`: the floor of starting Node at all;
 *   - `foreman heartbeat` through dist/cli.js, the thin CLI, to a real `foreman serve`;
 *   - the same call through dist/cli-local.js, the full CLI (zod, sql.js, the engine), which is
 *     what every call loaded before the thin entry;
 *   - `foreman status --limit 10` through the thin CLI (a read with a larger answer).
 * Each heartbeat carries its sample's progress, read back at the end, so every one really landed.
 *
 * Usage: node --import tsx bench/cliThin.bench.ts [--samples 40] [--quick]. Builds dist/ first (not under `npm test`, which just did). Prints one JSON object.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cliPath, foreman, git, startServe, timed } from './support/cliProcesses';
import { buildDist, numberOption } from './support/options';
import { percentile, round, tails } from './support/stats';

const root = path.join(__dirname, '..');
const thinCli = cliPath;
const fullCli = path.join(root, 'dist', 'cli-local.js');
const samples = numberOption('samples', 40, 1);

async function main(): Promise<void> {
  buildDist();
  const repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'foreman-thin-bench-')));
  git(repo, 'init', '--quiet', '-b', 'main');
  git(repo, '-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', 'commit', '--quiet', '--allow-empty', '-m', 'initial');
  foreman(repo, 'init');
  foreman(repo, 'worker', 'add', 'ada');
  foreman(repo, 'task', 'add', 'Bench', '--id', 'bench', '--manual');
  const serve = await startServe(repo);
  try {
    foreman(repo, 'assign', 'ada', 'bench');
    foreman(repo, 'start', 'ada');
    const env = { ...process.env, FOREMAN_DIR: repo, FOREMAN_WORKER_ID: 'ada', FOREMAN_ATTEMPT: '1' };
    const progress = (index: number): string => String(round((index + 1) / (2 * samples + 1), 4));
    const results = { nodeFloor: [] as number[], thinHeartbeat: [] as number[], fullHeartbeat: [] as number[], thinStatus: [] as number[] };
    for (let index = 0; index < samples; index++) {
      results.nodeFloor.push(await timed([process.execPath, '-e', '0'], env));
      results.fullHeartbeat.push(await timed([process.execPath, fullCli, 'heartbeat', '--progress', progress(2 * index)], env));
      results.thinHeartbeat.push(await timed([process.execPath, thinCli, 'heartbeat', '--progress', progress(2 * index + 1)], env));
      results.thinStatus.push(await timed([process.execPath, thinCli, 'status', '--limit', '10'], env));
    }
    const status = JSON.parse(foreman(repo, 'status', '--json')) as { workers: Array<{ progress: number | null }> };
    const landed = status.workers[0]?.progress;
    if (landed !== Number(progress(2 * samples - 1))) throw new Error(`the last heartbeat did not land: progress ${landed}`);
    const median = (values: readonly number[]): number => percentile(values, 0.5);
    const floor = median(results.nodeFloor);
    console.log(
      JSON.stringify(
        {
          samples,
          machine: { cpus: os.cpus().length, node: process.version, loadAverage: os.loadavg().map((load) => round(load, 2)) },
          bundles: { thinBytes: fs.statSync(thinCli).size, fullBytes: fs.statSync(fullCli).size },
          nodeFloor: tails(results.nodeFloor),
          thinHeartbeat: tails(results.thinHeartbeat),
          fullHeartbeat: tails(results.fullHeartbeat),
          thinStatus: tails(results.thinStatus),
          thinHeartbeatOverNodeFloor: {
            median: round(median(results.thinHeartbeat) / floor, 2),
            p99: round(percentile(results.thinHeartbeat, 0.99) / percentile(results.nodeFloor, 0.99), 2),
            target: 1.5,
          },
          fullHeartbeatOverNodeFloor: round(median(results.fullHeartbeat) / floor, 2),
          thinStatusOverNodeFloor: round(median(results.thinStatus) / floor, 2),
          thinOverFullHeartbeat: round(median(results.thinHeartbeat) / median(results.fullHeartbeat), 2),
        },
        null,
        2,
      ),
    );
  } finally {
    serve.kill('SIGTERM');
    await new Promise((resolve) => serve.once('close', resolve));
    fs.rmSync(repo, { recursive: true, force: true });
  }
}

void main();
