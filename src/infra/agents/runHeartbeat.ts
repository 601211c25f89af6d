/**
 * The supervisor's periodic beat for a live agent (ARCHITECTURE §4): while its process lives and it
 * shows signs of life, the supervisor heartbeats on its behalf, because a long silent model call is
 * not death. A stalled one gets no beat (so nothing keeps it looking healthy) and its stall is
 * reported once; its next sign of life brings the beats back.
 */
import { type LiveRun, type RunCallbacks, interruptedActivity, planWaitActivity } from './agentRun';
import { isAlive } from './processes';
import { safeCall } from './safeCall';

export function heartbeat(
  entry: LiveRun,
  lastOutput: () => number | undefined,
  callbacks: RunCallbacks,
  say: (line: string) => void,
): void {
  const { run, vitals } = entry;
  const notify = (what: string, callback: () => unknown): void => safeCall(what, callback, say);
  // The interval is cleared at exit; the check covers a process that died unseen (e.g. a lost exit event).
  if (!isAlive(run.pid)) return;
  // Interrupted, it waits for a person: quiet on purpose, neither stalled nor failed.
  if (entry.conversation?.waitingForMessage) {
    entry.stalled = undefined;
    notify(`heartbeat for ${run.workerId}`, () => callbacks.onHeartbeat?.(run, interruptedActivity));
    return;
  }
  if (entry.planApproval?.waiting) {
    // A person may take long to read a plan: the silence bound counts from their answer.
    vitals?.sign(Date.now());
    entry.stalled = undefined;
    notify(`heartbeat for ${run.workerId}`, () => callbacks.onHeartbeat?.(run, planWaitActivity));
    return;
  }
  const output = lastOutput();
  if (output !== undefined) vitals?.sign(output);
  const state = vitals?.check(Date.now()) ?? { healthy: true };
  if (!state.healthy) {
    if (entry.stalled === undefined) {
      entry.stalled = state.reason;
      say(`agent for ${run.workerId} stalled: ${state.reason}`);
      const { rateLimit } = state;
      const onRateLimit = callbacks.onRateLimit;
      if (rateLimit && onRateLimit) notify(`rate limit of ${run.workerId}`, () => onRateLimit(run, state.reason, rateLimit.waitMs));
      else notify(`stall of ${run.workerId}`, () => callbacks.onStall?.(run, state.reason));
    }
    return;
  }
  entry.stalled = undefined;
  notify(`heartbeat for ${run.workerId}`, () => callbacks.onHeartbeat?.(run, state.activity));
}
