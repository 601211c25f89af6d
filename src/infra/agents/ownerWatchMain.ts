/**
 * The watchdog of one agent (ownerWatch.ts): `node owner-watch.js <orders as JSON>`, stdin a pipe
 * from the owner. It waits, doing nothing, until the owner says `release` (leave), says `stop`, or
 * the pipe closes because the owner is gone. Then it ends the agent's process group (SIGTERM,
 * SIGKILL after the grace), snapshots the worktree as `refs/foreman/wip/<task>/<attempt>` with the
 * crew's own code (git by argv, never a shell), writes its outcome file and exits.
 */
// Raw timers (eslint.config.mjs rawTimerFiles): the watchdog is a process of its own, outliving the owner's clock.
import { setTimeout as delay } from 'node:timers/promises';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { refused } from '../../core/result';
import { writeFileAtomic } from '../fs/atomicFile';
import { wipRefFor } from '../git/names';
import { snapshotWip } from '../git/snapshots';
import { type WatchOrders, type WatchOutcome, watchOrdersSchema } from './ownerWatch';
import { isAlive, isGroupAlive, signalGroup } from './processes';

/** How often the group is looked at, only while it is being stopped. */
const stopPollMs = 50;
/** How long SIGKILL is given to take effect (only the kernel's teardown). */
const killWaitMs = 2000;

function groupRuns(pid: number): boolean {
  return isGroupAlive(pid) || isAlive(pid);
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    signalGroup(pid, name);
  } catch {
    // Not ours to signal (EPERM): nothing more can be done from here.
  }
  try {
    // The leader by itself too, in case it left its group.
    if (isAlive(pid)) process.kill(pid, name);
  } catch {
    // It exited between the look and the signal.
  }
}

async function waitWhileRuns(pid: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (groupRuns(pid) && Date.now() < deadline) await delay(stopPollMs);
}

async function stopAgent(orders: WatchOrders, cause: WatchOutcome['cause']): Promise<void> {
  // Already gone: it ended as the owner went, and its exit was not seen. The next owner finds it
  // "not running" and saves its work itself; nothing here (its folders may be gone too).
  if (!groupRuns(orders.pid)) return;
  let last: WatchOutcome['signal'] = 'SIGTERM';
  signal(orders.pid, 'SIGTERM');
  await waitWhileRuns(orders.pid, orders.graceMs);
  if (groupRuns(orders.pid)) {
    last = 'SIGKILL';
    signal(orders.pid, 'SIGKILL');
    await waitWhileRuns(orders.pid, killWaitMs);
  }
  // Only once nothing writes to the worktree any more is its snapshot the agent's whole work.
  const message = `Foreman wip: ${cause === 'ownerGone' ? 'its owner went away' : 'its owner stopped'}; the agent was stopped`;
  let saved: Awaited<ReturnType<typeof snapshotWip>>;
  try {
    saved = await snapshotWip({ worktreePath: orders.worktree, taskId: orders.taskId, attempt: orders.attempt, message });
  } catch (error) {
    saved = refused('snapshotFailed', String(error));
  }
  const ref = wipRefFor(orders.taskId, orders.attempt);
  const outcome: WatchOutcome = {
    workerId: orders.workerId,
    taskId: orders.taskId,
    attempt: orders.attempt,
    pid: orders.pid,
    cause,
    signal: last,
    ...(saved.ok && saved.value && ref.ok ? { wipRef: ref.value } : {}),
    ...(saved.ok ? {} : { snapshotError: saved.message }),
    stoppedAt: Date.now(),
  };
  mkdirSync(dirname(orders.outcomeFile), { recursive: true, mode: 0o700 });
  writeFileAtomic(orders.outcomeFile, `${JSON.stringify(outcome)}\n`);
}

function main(): void {
  let orders: WatchOrders;
  try {
    orders = watchOrdersSchema.parse(JSON.parse(process.argv[2] ?? ''));
  } catch (error) {
    process.stderr.write(`usage: owner-watch <orders as JSON>: ${String(error)}\n`);
    process.exit(2);
  }
  // Detached, it has no terminal; these are ignored so that nothing but the owner decides.
  for (const name of ['SIGINT', 'SIGHUP', 'SIGPIPE'] as const) process.on(name, () => undefined);
  let acting = false;
  const act = (cause: WatchOutcome['cause']): void => {
    if (acting) return;
    acting = true;
    stopAgent(orders, cause).then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`owner-watch: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  let received = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    received += chunk;
    const lines = received.split('\n');
    if (!acting && lines.includes('release')) process.exit(0);
    if (lines.includes('stop')) act('ownerStopping');
  });
  process.stdin.on('end', () => act('ownerGone'));
  process.stdin.on('error', () => act('ownerGone'));
}

main();
