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
