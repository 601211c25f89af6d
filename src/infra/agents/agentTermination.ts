/**
 * Cancel ends an agent's whole process group: SIGTERM, then SIGKILL after a grace period. It
 * resolves with the run's exit, which the supervisor's exit handler settles.
 */
import type { AgentExit, Clock } from '../../engine/ports';
import type { LiveRun } from './agentRun';
import { isAlive, isGroupAlive, signalGroup } from './processes';

/** How often cancel looks whether the group has gone; short, and only during a cancel. */
const cancelPollMs = 25;
/** How long cancel waits for SIGKILL to take effect before it reports and returns. */
const killWaitMs = 2000;

export async function terminateRun(entry: LiveRun, graceMs: number, say: (line: string) => void, clock: Clock): Promise<AgentExit> {
  const { pid, workerId } = entry.run;
  entry.cancelled = true;
  const stillRunning = (): boolean => isGroupAlive(pid) || isAlive(pid);
  say(`cancel ${workerId}: SIGTERM to process group ${pid}`);
  signalAll(pid, 'SIGTERM', say);
  const deadline = clock.now() + graceMs;
  while (stillRunning() && clock.now() < deadline) await clock.sleep(cancelPollMs);
  if (stillRunning()) {
    entry.escalated = true;
    say(`cancel ${workerId}: still running after ${graceMs} ms, SIGKILL to process group ${pid}`);
    signalAll(pid, 'SIGKILL', say);
    // SIGKILL cannot be ignored, so this wait only covers the kernel tearing the processes down;
    // it is bounded because a process stuck in the kernel (or one we may not signal) never goes.
    const killDeadline = clock.now() + killWaitMs;
    while (stillRunning() && clock.now() < killDeadline) await clock.sleep(cancelPollMs);
    if (stillRunning()) say(`cancel ${workerId}: process group ${pid} still has processes after SIGKILL`);
  }
  return entry.run.exited;
}

/** The group, and the leader by itself in case it left the group (setsid); a vanished target is fine. */
function signalAll(pid: number, signal: NodeJS.Signals, say: (line: string) => void): void {
  try {
    signalGroup(pid, signal);
  } catch (error) {
    say(`signal ${signal} to group ${pid} failed: ${String(error)}`);
  }
  try {
    if (isAlive(pid)) process.kill(pid, signal);
  } catch {
    // It exited between the check and the signal.
  }
}
