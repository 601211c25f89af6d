/** States in which an agent should be running, so silence from it means something. */
const agentExpected: ReadonlySet<string> = new Set(['ASSIGNED', 'WORKING', 'STALE']);

/** Whether a worker in `state` is expected to heartbeat (no heartbeat is due in review, approved, idle or failed). */
export function heartbeatExpected(state: string): boolean {
  return agentExpected.has(state);
}

/**
 * The liveness verdict worth showing beside a worker's state, or undefined. A heartbeat verdict
 * only while an agent should be running: a FAILED worker's verdict is DEAD by construction (it holds
 * its task and sends nothing), which says less than FAILED and its error. In review the one verdict
 * is the monitor's "review overdue" alert (WARN), which is about the person, not a heartbeat.
 */
export function shownLiveness(worker: { readonly state: string; readonly liveness: string }): 'WARN' | 'STALE' | 'DEAD' | undefined {
  const level = worker.liveness;
  if (worker.state === 'IN_REVIEW') return level === 'WARN' ? level : undefined;
  if (!agentExpected.has(worker.state)) return undefined;
  return level === 'WARN' || level === 'STALE' || level === 'DEAD' ? level : undefined;
}

/**
 * Why a worker is in trouble, in words. A STALE worker says why it went stale — its last error, the
 * words of the verdict that moved it ("no output from the agent for 5m00s") — since once its agent
 * is stopped its heartbeat reads like anyone's ("heartbeat 3s ago; pid 41 exited 143 on cancel").
 */
export function troubleReason(worker: {
  readonly state: string;
  readonly lastError: string | null;
  readonly livenessReason: string;
}): string {
  return worker.state === 'STALE' && worker.lastError ? worker.lastError : worker.livenessReason;
}
