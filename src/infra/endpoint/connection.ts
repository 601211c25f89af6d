import type * as net from 'node:net';
import { ExitCode, exitCodeOf, invalid } from '../../core/result';
import { SerializedValue } from '../../engine/serializedValue';
import { LineBuffer } from './lineBuffer';
import { type EndpointResponse, type EndpointResult, maxLineBytes } from './protocol';

/** What one connection may cost the owner; a client cannot make it hold more. */
export interface ConnectionLimits {
  /** Requests taken but not yet answered and flushed; reading stops at this many. */
  readonly maxInFlight: number;
  /** A connection with nothing running for it and no traffic this long is closed. */
  readonly idleTimeoutMs: number;
}

/** Runs one request line in the owner's single queue (`work` decides the answer) and resolves to it. */
export type Submit = (work: () => Promise<EndpointResponse>) => Promise<EndpointResponse>;

/**
 * One client's connection to the owner. Memory is bounded whatever the client does: an unfinished
 * line holds at most `maxLineBytes` (a longer one is refused and the connection closed); lines read
 * but not started are at most one read's worth, because reading stops (socket.pause(), so the
 * kernel pushes back on the client) while `maxInFlight` answers are running or unsent, and resumes
 * when they have been flushed. A client that stops sending halfway through a line, or stops reading
 * its answers, is closed after `idleTimeoutMs`; a request the owner is still running is never cut off.
 */
export class EndpointConnection {
  private readonly lines = new LineBuffer(maxLineBytes);
  /** Complete lines not yet handed to the queue; `undefined` stands for the refusal of an overlong line. */
  private readonly waiting: Array<string | undefined> = [];
  /** Handed to the queue, no answer yet. */
  private running = 0;
  /** Answered, not yet flushed to the kernel (the client is not reading). */
  private unsent = 0;
  /** An overlong line was seen: nothing more is read, and the refusal ends the connection. */
  private stoppedReading = false;
  /** The answers owed so far, in request order: a request that gave way may finish after a later one. */
  private answersInOrder: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly socket: net.Socket,
    private readonly limits: ConnectionLimits,
    private readonly handle: (line: string) => Promise<EndpointResponse>,
    private readonly submit: Submit,
    private readonly log: (line: string) => void,
  ) {
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.setTimeout(limits.idleTimeoutMs, () => this.onIdle());
  }

  private onData(chunk: Buffer): void {
    if (this.stoppedReading) return;
    const { lines, overflow } = this.lines.push(chunk);
    this.waiting.push(...lines);
    if (overflow) {
      // The refusal still goes out after the answers already owed, then the connection ends.
      this.stoppedReading = true;
      this.socket.removeAllListeners('data');
      this.waiting.push(undefined);
    }
    this.pump();
  }

  /** Starts waiting lines while there is room, and reads from the client only while there is. */
  private pump(): void {
    while (this.waiting.length > 0 && this.running + this.unsent < this.limits.maxInFlight && !this.socket.destroyed) {
      const line = this.waiting.shift();
      this.start(line);
    }
    const full = this.waiting.length > 0 || this.running + this.unsent >= this.limits.maxInFlight;
    if (full || this.stoppedReading) this.socket.pause();
    else this.socket.resume();
  }

  private start(line: string | undefined): void {
    this.running++;
    const work =
      line === undefined
        ? () =>
            Promise.resolve(
              respondTo(
                invalid('lineTooLong', `endpoint: a request line is at most ${maxLineBytes} bytes (1 MiB); send large data as a file.`),
              ),
            )
        : () => this.handle(line);
    const answered = this.submit(work);
    this.answersInOrder = Promise.all([this.answersInOrder, answered]).then(([, response]) => {
      this.running--;
      if (this.socket.destroyed) return undefined;
      if (line === undefined) {
        this.socket.end(lineOf(response).join(''));
        return undefined;
      }
      this.unsent++;
      return this.write(lineOf(response), () => {
        this.unsent--;
        this.pump();
      });
    });
    // An answer that cannot be sent (it failed to encode) must not hold back every later one on
    // this connection: the client hears the connection end, and the others keep theirs.
    this.answersInOrder = this.answersInOrder.catch(() => this.socket.destroy());
  }

  /**
   * Hands the parts of one answer to the socket, the next only once it has drained (a listing in
   * pages is 30 MB: never encoded in one turn); resolves when the last is handed over, so the next
   * answer cannot come between them. `written` runs once the last is flushed.
   */
  private write(parts: readonly string[], written: () => void): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        this.socket.off('close', done);
        resolve();
      };
      // A client gone halfway never drains: the rest is dropped with its socket.
      this.socket.once('close', done);
      const from = (start: number): void => {
        for (let index = start; index < parts.length; index++) {
          const last = index === parts.length - 1;
          const more = this.socket.write(parts[index] ?? '', last ? written : undefined);
          if (last) return done();
          if (!more) {
            this.socket.once('drain', () => from(index + 1));
            return;
          }
        }
      };
      from(0);
    });
  }

  private onIdle(): void {
    // The owner is still working for this client: a long request (a merge) is not idleness.
    if (this.running > 0) return;
    const what =
      this.unsent > 0 ? `${this.unsent} answer(s) it does not read` : this.lines.holdsPartialLine ? 'a half-sent request' : 'no request';
    this.log(`endpoint: closed a connection idle for ${this.limits.idleTimeoutMs} ms with ${what}`);
    this.waiting.length = 0;
    this.socket.destroy();
  }
}

/** The line sent for a response, in parts; a value serialized already (in pages) goes as its parts. */
function lineOf(response: EndpointResponse): readonly string[] {
  const { result } = response;
  if (!(result.ok && result.value instanceof SerializedValue)) return [`${JSON.stringify(response)}\n`];
  return [`{"ok":${response.ok},"exitCode":${response.exitCode},"result":{"ok":true,"value":`, ...result.value.parts, '}}\n'];
}

/** The response line for a result, with the exit code a CLI should end with. */
export function respondTo(result: EndpointResult): EndpointResponse {
  const exitCode = !result.ok && result.kind === 'unexpected' ? ExitCode.unexpected : exitCodeOf(result);
  return { ok: result.ok, exitCode, result };
}
