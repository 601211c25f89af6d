/**
 * A person talking to a running agent over its stdin (adapters with `input`: Claude Code's
 * stream-json input). The prompt is the first message; stdin stays open while the agent works so
 * that *Send Message* and *Interrupt* reach it, and is closed after a turn's `result` when nothing
 * the person said is still on its way in — which ends the run as a one-shot run ends.
 *
 * The agent echoes each message as it takes it in (`told` events): a message written but not yet
 * echoed when a turn ends starts the next turn, so stdin stays open for it. After an interrupt the
 * agent waits, stdin open, for the person's next message (or a cancel): it is neither failed nor
 * stalled, only waiting.
 */
import { randomUUID } from 'node:crypto';
import type { Writable } from 'node:stream';
import type { AgentEvent } from '../../core/agentEvents';
import { type Result, ok, refused } from '../../core/result';
import type { AgentInput } from './kinds';

/** Where the conversation stands. */
type Phase =
  /** A turn runs (or the next one is about to start). */
  | 'working'
  /** Interrupted: the turn ended, the agent waits for a message. */
  | 'waiting'
  /** stdin is closed: the run ends with its current turn. */
  | 'closed';

export class AgentConversation {
  private phase: Phase = 'working';
  /** Messages written and not yet echoed by the agent. */
  private pending = 0;
  /** An interrupt was sent and its turn has not ended yet. */
  private interrupting = false;

  constructor(
    private readonly stdin: Writable,
    private readonly input: AgentInput,
    private readonly describe: string,
    log: (line: string) => void,
  ) {
    // The agent may exit (or close stdin) at any time; that is its business, not a crash of ours.
    stdin.on('error', (error) => log(`${describe} stdin: ${error.message}`));
  }

  /** Sends the run's prompt, the first message. */
  start(prompt: string): void {
    this.stdin.write(this.input.message(prompt));
  }

  /** Whether the agent waits for a person's message after an interrupt. */
  get waitingForMessage(): boolean {
    return this.phase === 'waiting';
  }

  /** A person's message, written now; the agent takes it into its turn (or starts a new one with it). */
  tell(text: string): Result<{ waited: boolean }> {
    if (this.phase === 'closed')
      return refused('agentFinishing', `${this.describe} has finished its last turn and is ending; it takes no more messages.`);
    const waited = this.phase === 'waiting';
    this.pending += 1;
    this.phase = 'working';
    this.stdin.write(this.input.message(text));
    return ok({ waited });
  }

  /** Ends the running turn; the session stays and waits for a message. */
  interrupt(): Result<undefined> {
    if (this.phase === 'closed')
      return refused('agentFinishing', `${this.describe} has finished its last turn and is ending; there is nothing to interrupt.`);
    if (this.phase === 'waiting') return refused('agentWaiting', `${this.describe} is already interrupted and waits for your message.`);
    this.interrupting = true;
    this.stdin.write(this.input.interrupt(randomUUID()));
    return ok(undefined);
  }

  /** The agent's events as they are read: its echoes and the ends of its turns. */
  events(events: readonly AgentEvent[]): void {
    for (const event of events) {
      if (event.type === 'told') this.pending = Math.max(0, this.pending - 1);
      if (event.type !== 'result' || this.phase === 'closed') continue;
      if (this.interrupting) {
        this.interrupting = false;
        // A message sent after the interrupt already starts the next turn.
        if (this.pending === 0) this.phase = 'waiting';
        continue;
      }
      if (this.pending === 0 && this.phase === 'working') this.close();
    }
  }

  /** No more messages: the agent ends after its current turn. */
  close(): void {
    if (this.phase === 'closed') return;
    this.phase = 'closed';
    this.stdin.end();
  }
}
