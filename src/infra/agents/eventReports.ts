import { type AgentEvent, describeTool } from '../../core/agentEvents';
import type { Request } from '../../core/requests';

/** Who reports what Foreman read from an agent's own events (not a heartbeat of the agent itself). */
export const agentEventsActor = 'agent-events';

/**
 * The engine requests an agent's events amount to (ARCHITECTURE §6): its session and usage go to
 * its task attempt; a tool call is activity (it does not end a wait for input — the stream may lag
 * behind a permission request the hooks already reported); a wait for input is a wait.
 */
export function reportsOf(run: { workerId: string; attempt: number; kind: string }, events: readonly AgentEvent[]): Request[] {
  const requests: Request[] = [];
  const usage = (fields: {
    sessionId?: string;
    inputTokens?: number;
    outputTokens?: number;
    cacheReadTokens?: number;
    cacheWriteTokens?: number;
    costUsd?: number;
    run?: boolean;
  }): Request => ({
    command: 'usage',
    args: {
      worker: run.workerId,
      attempt: run.attempt,
      kind: run.kind,
      inputTokens: fields.inputTokens ?? 0,
      outputTokens: fields.outputTokens ?? 0,
      cacheReadTokens: fields.cacheReadTokens ?? 0,
      cacheWriteTokens: fields.cacheWriteTokens ?? 0,
      costUsd: fields.costUsd ?? 0,
      run: fields.run ?? false,
      ...(fields.sessionId ? { sessionId: fields.sessionId } : {}),
    },
    actor: agentEventsActor,
  });
  const heartbeat = (fields: { activity?: string; needsInput?: string; touched?: string[] }): Request => ({
    command: 'heartbeat',
    args: { worker: run.workerId, attempt: run.attempt, status: 'working', ...fields },
    actor: agentEventsActor,
  });
  let activity: string | undefined;
  // Files an editing tool changes, for the overlap check: every one of the batch, not only the last call's.
  const touched = new Set<string>();
  for (const event of events) {
    switch (event.type) {
      case 'session':
        requests.push(usage({ sessionId: event.sessionId, run: true }));
        break;
      case 'usage':
        requests.push(usage(event.usage));
        break;
      case 'tool':
        activity = describeTool(event.name, event.detail);
        for (const file of event.files ?? []) if (touched.size < 50) touched.add(file);
        break;
      case 'needsInput':
        requests.push(heartbeat({ needsInput: event.message.slice(0, 500) }));
        break;
      default:
        break;
    }
  }
  // One heartbeat for a batch read at once: the latest tool call is what the agent does now.
  if (activity) requests.push(heartbeat({ activity, ...(touched.size ? { touched: [...touched] } : {}) }));
  return requests;
}
