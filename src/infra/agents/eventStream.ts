/**
 * Reads an agent's event stream while it runs (ARCHITECTURE §6). The agent writes its stdout
 * straight into a file of the attempt (as the log, so an owner restart never cuts it); Foreman
 * reads what was added since the last look, hands each complete line to the kind's parser,
 * stamps the events, appends them to the attempt's normalised events file (the transcript's source)
 * and passes them on. It also keeps what the end of the run is judged by.
 */
import { appendFileSync, closeSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { AgentEvent } from '../../core/agentEvents';
import type { RunResult, StreamParser } from './kinds';

/** Longest line kept while waiting for its end; a longer one is dropped (no agent event is that big). */
const maxLineBytes = 8 * 1024 * 1024;

export class EventStream {
  private partial = '';
  private dropping = false;
  /** Keeps a character split across two reads whole. */
  private readonly decoder = new StringDecoder('utf8');
  /** The run's own verdict and last words, for the judgement at exit. */
  result: RunResult | undefined;
  lastMessage: string | undefined;
  sessionId: string | undefined;
  readonly errors: string[] = [];
  /** The last usage or rate limit the agent reported: when its end is a pause, until when. */
  limit: { message: string; resetsAt?: number } | undefined;
  /** When the last line came (any line: one the parser skips is still a sign of life). */
  lastLineAt: number | undefined;

  constructor(
    private readonly streamFile: string,
    private readonly eventsFile: string,
    private readonly parser: StreamParser,
    private readonly onEvents: (events: AgentEvent[]) => void,
    /** Where this run's output starts: a follow-up run appends to the attempt's stream after the earlier runs. */
    private offset: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Reads what the agent added since the last call. */
  poll(): void {
    const text = this.readNew();
    if (!text) return;
    const lines = (this.partial + text).split('\n');
    this.partial = lines.pop() ?? '';
    if (this.partial.length > maxLineBytes) {
      this.partial = '';
      this.dropping = true;
    }
    this.handle(lines);
  }

  /** After the agent exited: the rest, including a last line without its newline. */
  finish(): void {
    this.poll();
    const rest = this.partial;
    this.partial = '';
    if (rest.trim()) this.handle([rest]);
  }

  private handle(lines: string[]): void {
    const events: AgentEvent[] = [];
    for (const line of lines) {
      if (this.dropping) {
        // The tail of an over-long line: skip it, resume with the next one.
        this.dropping = false;
        continue;
      }
      if (!line.trim()) continue;
      const at = this.now();
      this.lastLineAt = at;
      for (const input of this.parser.line(line)) events.push({ at, ...input });
    }
    if (events.length === 0) return;
    for (const event of events) this.remember(event);
    try {
      appendFileSync(this.eventsFile, events.map((event) => JSON.stringify(event)).join('\n') + '\n', { mode: 0o600 });
    } catch {
      // The transcript is a view; the engine still gets the events.
    }
    this.onEvents(events);
  }

  private remember(event: AgentEvent): void {
    // The first end that only a setting can fix stands: Claude may print a result of its own after it.
    if (event.type === 'result' && !this.result?.failure) {
      this.result = { summary: event.summary, isError: event.isError, ...(event.failure ? { failure: event.failure } : {}) };
    }
    if (event.type === 'message') this.lastMessage = event.text;
    if (event.type === 'session') this.sessionId = event.sessionId;
    if (event.type === 'error') this.errors.push(event.message);
    if (event.type === 'limit') this.limit = event.resetsAt === undefined ? { message: event.message } : { message: event.message, resetsAt: event.resetsAt };
  }

  private readNew(): string {
    let descriptor: number;
    try {
      descriptor = openSync(this.streamFile, 'r');
    } catch {
      return '';
    }
    try {
      let text = '';
      const buffer = Buffer.alloc(64 * 1024);
      for (;;) {
        const read = readSync(descriptor, buffer, 0, buffer.length, this.offset);
        if (read === 0) break;
        text += this.decoder.write(buffer.subarray(0, read));
        this.offset += read;
      }
      return text;
    } finally {
      closeSync(descriptor);
    }
  }
}
