/**
 * Issue 33: how soon an overlap shows after the edit that makes it, through a real `foreman serve`
 * with two real demo agents. Each round, agent one has edited line 1 of `shared.txt` and waits;
 * agent two waits for a signal file, then edits line 2. From the moment the bench writes the signal,
 * it reads `status` through the owner's endpoint every few ms and notes two times:
 * - `activityMs`, the baseline: agent two's edit shows as its activity ("Edit: shared.txt"), the
 *   same edit event without the overlap work (the agent's poll for the signal, its heartbeat
 *   process, the owner's commit);
 * - `overlapMs`: both tasks report the overlap.
 * `addedMs` (overlap − activity) is what the overlap check adds on that path. The views follow the
 * status within their refresh throttle (250 ms in the window, docs/overlaps.md); the target is the
 * warning in every view within 2 s of the edit, so `overlapMs` ≤ 1.5 s leaves them their throttle.
 *
 * Usage: node --import tsx bench/overlapLatency.bench.ts [--rounds 8] [--quick]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { readAnnouncement, sendToEndpoint } from '../src/infra/endpoint';
import { foreman, git, startServe } from './support/cliProcesses';
import { buildDist, numberOption } from './support/options';
import { percentile, round, tails } from './support/stats';

const rounds = numberOption('rounds', 8, 2);
const pollMs = 5;

interface StatusView {
  readonly workers: ReadonlyArray<{
    id: string;
    state: string;
    activity: { text: string } | null;
    overlaps: ReadonlyArray<{ taskId: string }>;
  }>;
}

async function status(foremanDir: string): Promise<StatusView> {
  const announced = readAnnouncement(foremanDir);
  if (!announced) throw new Error('no owner announced in .foreman/');
  const sent = await sendToEndpoint(
    { socketPath: announced.info.socketPath, token: announced.token },
    { command: 'status', args: {}, actor: 'cli' },
    { timeoutMs: 10_000 },
  );
  if (sent.kind !== 'response' || !sent.response.result.ok) throw new Error(`status failed: ${JSON.stringify(sent)}`);
  return sent.response.result.value as StatusView;
}

/** What the last wait saw, for its error. */
let last = '';

async function until<T>(what: string, read: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}; last seen: ${last}`);
    await delay(pollMs);
  }
}

async function main(): Promise<void> {
  buildDist();
  const scratch = mkdtempSync(join(os.tmpdir(), 'foreman-overlap-latency-'));
  const repo = join(scratch, 'repo');
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  git(repo, 'config', 'user.name', 'Bench');
  git(repo, 'config', 'user.email', 'bench@foreman.invalid');
  writeFileSync(join(repo, 'shared.txt'), Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'Start');
  foreman(repo, 'init');
  foreman(repo, 'worker', 'add', 'one');
  foreman(repo, 'worker', 'add', 'two');
  const foremanDir = join(repo, '.foreman');
  const serve = await startServe(repo, []);
  const activity: number[] = [];
  const overlap: number[] = [];
  try {
    for (let r = 0; r < rounds; r++) {
      const go = join(scratch, `go-${r}`);
      const hold = join(scratch, `hold-${r}`);
      foreman(
        repo,
        'task',
        'add',
        `First ${r}`,
        '--id',
        `first-${r}`,
        '--manual',
        '--prompt',
        `replace-line shared.txt 1 one-${r}\nwait-for ${hold}`,
      );
      foreman(
        repo,
        'task',
        'add',
        `Second ${r}`,
        '--id',
        `second-${r}`,
        '--manual',
        '--prompt',
        `wait-for ${go}\nreplace-line shared.txt 2 two-${r}\nwait-for ${hold}`,
      );
      foreman(repo, 'assign', 'one', `first-${r}`);
      foreman(repo, 'assign', 'two', `second-${r}`);
      // Agent one's edit is in, agent two waits for the signal.
      await until('both agents at work, the first edit seen', async () => {
        const seen = await status(foremanDir);
        last = JSON.stringify(seen.workers.map((w) => [w.id, w.state, w.activity?.text]));
        const one = seen.workers.find((w) => w.id === 'one');
        const two = seen.workers.find((w) => w.id === 'two');
        return one?.activity?.text === 'Edit: shared.txt' && two?.state === 'WORKING' && /^started /.test(two.activity?.text ?? '')
          ? true
          : undefined;
      });
      const signalled = performance.now();
      writeFileSync(go, '');
      let activityAt: number | undefined;
      await until('the overlap on both sides', async () => {
        const seen = await status(foremanDir);
        const now = performance.now() - signalled;
        const two = seen.workers.find((w) => w.id === 'two');
        const one = seen.workers.find((w) => w.id === 'one');
        if (activityAt === undefined && two?.activity?.text === 'Edit: shared.txt') activityAt = now;
        return two?.overlaps.some((o) => o.taskId === `first-${r}`) && one?.overlaps.some((o) => o.taskId === `second-${r}`)
          ? now
          : undefined;
      }).then((at) => {
        overlap.push(at);
        activity.push(activityAt ?? at);
      });
      writeFileSync(hold, '');
      foreman(repo, 'cancel', 'one');
      foreman(repo, 'cancel', 'two');
      await until('both workers idle again', async () => {
        const seen = await status(foremanDir);
        return seen.workers.every((w) => w.state === 'IDLE') ? true : undefined;
      });
      if (!existsSync(hold)) throw new Error('the hold file went missing');
    }
  } finally {
    serve.kill('SIGTERM');
    await new Promise((resolve) => serve.once('close', resolve));
    rmSync(scratch, { recursive: true, force: true });
  }
  const added = overlap.map((at, i) => at - (activity[i] ?? at));
  const overlapTails = tails(overlap);
  console.log(
    JSON.stringify(
      {
        bench: 'overlapLatency',
        rounds,
        activityMs: tails(activity),
        overlapMs: overlapTails,
        addedMs: tails(added),
        ratioOverlapToActivityMedian: round(percentile(overlap, 0.5) / Math.max(percentile(activity, 0.5), 1), 2),
        target: { overlapUnder1500ms: (overlapTails['maxMs'] ?? Infinity) <= 1500 },
        note: 'ms from the bench writing the signal file; the agent polls for it every 100 ms, then runs `foreman heartbeat --touched` as a process; status is read through the endpoint every 5 ms',
        machine: { cpus: os.cpus().length, node: process.version, loadAverage: os.loadavg().map((load) => round(load, 2)) },
      },
      null,
      2,
    ),
  );
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
