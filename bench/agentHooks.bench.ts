/**
 * What Foreman adds per agent event. Claude Code runs `foreman hook claude` for each tool call and
 * waits for it; the hook routes a heartbeat with the activity to the owner (`foreman serve`) and
 * exits once the owner has committed it. So the time from spawning the hook to its exit is the
 * overhead per event, hook call to committed heartbeat. Measured side by side in one run:
 *   - `node -e 0`: the floor of any hook command that is a Node program;
 *   - `foreman heartbeat`: the plain CLI call an agent makes itself;
 *   - `foreman hook claude` with a PreToolUse payload on stdin (what Claude Code sends), through the
 *     thin CLI (dist/cli.js), which forwards the payload to the owner;
 *   - the same hook through the full CLI (dist/cli-local.js), which every hook call loaded before.
 * Also the owner's side alone: a heartbeat with activity executed in-process (the engine's work).
 * Each sample checks the heartbeat really landed (the activity is read back at the end).
 *
 * Usage: node --import tsx bench/agentHooks.bench.ts [--samples 40] [--quick]. Needs dist/ (built when missing).
 * Prints one JSON object.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cliPath, foreman, git, startServe, timed } from './support/cliProcesses';
import { buildDist, numberOption } from './support/options';
import { percentile, round, tails } from './support/stats';

const cli = cliPath;
const fullCli = path.join(path.dirname(cliPath), 'cli-local.js');
const samples = numberOption('samples', 40, 1);

async function main(): Promise<void> {
  buildDist({ whenMissing: [cli] });
  const repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'foreman-hook-bench-')));
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
    const payload = (index: number) =>
      JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: `npm test -- --shard ${index}` } });
    const results: Record<string, number[]> = { nodeFloor: [], cliHeartbeat: [], hookToCommittedHeartbeat: [], fullCliHook: [] };
    // Interleaved, so a slow moment of the machine hits every kind alike.
    for (let index = 0; index < samples; index++) {
      results['nodeFloor']!.push(await timed([process.execPath, '-e', '0'], env));
      results['cliHeartbeat']!.push(await timed([process.execPath, cli, 'heartbeat'], env));
      results['fullCliHook']!.push(
        await timed([process.execPath, fullCli, 'hook', 'claude'], env, { stdin: payload(-index), failWhen: 'foreman hook:' }),
      );
      results['hookToCommittedHeartbeat']!.push(
        await timed([process.execPath, cli, 'hook', 'claude'], env, { stdin: payload(index), failWhen: 'foreman hook:' }),
      );
    }
    // The thin hook runs last in each round: the activity read back is its own.
    const status = JSON.parse(foreman(repo, 'status', '--json')) as { workers: Array<{ activity: { text: string } | null }> };
    const landed = status.workers[0]?.activity?.text;
    if (landed !== `Bash: npm test -- --shard ${samples - 1}`) throw new Error(`the last hook's heartbeat did not land: ${landed}`);
    const floor = percentile(results['nodeFloor']!, 0.5);
    console.log(
      JSON.stringify(
        {
          samples,
          machine: { cpus: os.cpus().length, node: process.version },
          nodeFloor: tails(results['nodeFloor']!),
          cliHeartbeat: tails(results['cliHeartbeat']!),
          hookToCommittedHeartbeat: tails(results['hookToCommittedHeartbeat']!),
          fullCliHook: tails(results['fullCliHook']!),
          hookMedianOverNodeFloor: round(percentile(results['hookToCommittedHeartbeat']!, 0.5) / floor, 2),
          hookMedianOverFullCliHook: round(
            percentile(results['hookToCommittedHeartbeat']!, 0.5) / percentile(results['fullCliHook']!, 0.5),
            2,
          ),
          hookMedianOverCliHeartbeat: round(
            percentile(results['hookToCommittedHeartbeat']!, 0.5) / percentile(results['cliHeartbeat']!, 0.5),
            2,
          ),
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
