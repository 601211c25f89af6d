/** States in which an agent should be running, so silence from it means something. */
const agentExpected: ReadonlySet<string> = new Set(['ASSIGNED', 'WORKING', 'STALE']);

/** Whether a worker in `state` is expected to heartbeat (no heartbeat is due in review, approved, idle or failed). */
export function heartbeatExpected(state: string): boolean {
  return agentExpected.has(state);
}

/**
 * The liveness verdict worth showing beside a worker's state, or undefined. Only while an agent
 * should be running: a FAILED worker's verdict is DEAD by construction (it holds its task and
 * sends nothing), which says less than FAILED and its reason; a worker in review has nothing to beat for.
 */
export function shownLiveness(worker: { readonly state: string; readonly liveness: string }): 'WARN' | 'STALE' | 'DEAD' | undefined {
  if (!agentExpected.has(worker.state)) return undefined;
  const level = worker.liveness;
  return level === 'WARN' || level === 'STALE' || level === 'DEAD' ? level : undefined;
}
