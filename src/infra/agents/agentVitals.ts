/**
 * Whether a running agent shows signs of life, read from its own event stream (ARCHITECTURE §4).
 * A live process proves little: a CLI that retries its model call for minutes, or waits on a
 * server that never answers, is alive and does nothing. So every line the agent writes is a sign,
 * a tool it runs is one that lasts until the tool returns, and its own API retries are signs of
 * life but not progress: when they go on past a bound, or nothing comes at all for `silenceMs`,
 * the agent is stalled, with a reason a person can read.
 */
import type { AgentEvent } from '../../core/agentEvents';
import { type AgentStallSettings, defaultAgentStall, formatDuration } from '../../core/policies';

export type VitalsSettings = Pick<AgentStallSettings, 'silenceMs' | 'retryMs'>;
export const defaultVitals: VitalsSettings = defaultAgentStall;

/** Silence shorter than this is not worth a word; longer, the card says how long it has been. */
const quietNoticeMs = 30_000;

/**
 * What the supervisor does on its next beat: beat (maybe saying what the agent is at), or report
 * the stall — a rate limit's when every retry of the streak was one (HTTP 429), with how long the
 * agent itself meant to wait before its next try.
 */
export type Vitals =
  | { readonly healthy: true; readonly activity?: string }
  | { readonly healthy: false; readonly reason: string; readonly rateLimit?: { readonly waitMs: number } };

export class AgentVitals {
  private lastSignAt: number;
  /** The first retry of the current streak and the latest one's words; cleared by any progress. */
  private retrying: { since: number; text: string; rateLimited: boolean; delayMs: number } | undefined;
  /** A tool call the agent waits on: its silence is the tool's, not the agent's. */
  private toolRunning = false;
  private wroteSomething = false;

  constructor(
    startedAt: number,
    private readonly settings: VitalsSettings,
  ) {
    this.lastSignAt = startedAt;
  }

  /** Output that is not an event (a line of its log, a line of its stream we do not model). */
  sign(at: number): void {
    this.lastSignAt = Math.max(this.lastSignAt, at);
    this.wroteSomething = true;
  }

  event(event: AgentEvent): void {
    this.sign(event.at);
    switch (event.type) {
      case 'retry':
        this.retrying = {
          since: this.retrying?.since ?? event.at,
          text: retryText(event),
          rateLimited: (this.retrying?.rateLimited ?? true) && event.status === 429,
          delayMs: event.delayMs ?? 0,
        };
        return;
      case 'tool':
        this.toolRunning = true;
        break;
      case 'toolResult':
      case 'result':
        this.toolRunning = false;
        break;
      default:
        break;
    }
    this.retrying = undefined;
  }

  /** The words of the retry streak going on, if one is. */
  get retryActivity(): string | undefined {
    return this.retrying?.text;
  }

  check(now: number): Vitals {
    if (this.retrying && now - this.retrying.since >= this.settings.retryMs) {
      const reason = `${this.retrying.text}, retrying for ${formatDuration(now - this.retrying.since)}`;
      return this.retrying.rateLimited ? { healthy: false, reason, rateLimit: { waitMs: this.retrying.delayMs } } : { healthy: false, reason };
    }
    if (this.retrying) return { healthy: true, activity: this.retrying.text };
    if (this.toolRunning) return { healthy: true };
    const silent = now - this.lastSignAt;
    if (silent >= this.settings.silenceMs) return { healthy: false, reason: `no output from the agent for ${formatDuration(silent)}` };
    if (silent >= quietNoticeMs) {
      const what = this.wroteSomething ? 'no output from the agent' : 'the agent has written nothing yet';
      return { healthy: true, activity: `${what} for ${formatDuration(silent)}` };
    }
    return { healthy: true };
  }
}

/** "API retry 3/10: 429 rate_limit_error". */
export function retryText(event: Extract<AgentEvent, { type: 'retry' }>): string {
  const count = event.attempt === undefined ? '' : event.maxAttempts ? ` ${event.attempt}/${event.maxAttempts}` : ` ${event.attempt}`;
  const status = event.status === undefined ? '' : ` ${event.status}`;
  const words = event.message && event.message !== String(event.status) ? ` ${event.message}` : '';
  const detail = `${status}${words}`.trim();
  return `API retry${count}${detail ? `: ${detail}` : ''}`.slice(0, 300);
}
