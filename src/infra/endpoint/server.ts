import { timingSafeEqual } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import { describeIssues, parseRequest, type Request } from '../../core/requests';
import { ExitCode, type Result, exitCodeOf, invalid } from '../../core/result';
import type { Disposable } from '../../engine/events';
import { newToken, withdrawAnnouncement, writeAnnouncement, writeToken } from './announcement';
import { LineBuffer } from './lineBuffer';
import { type EndpointResponse, type EndpointResult, endpointRequestSchema, maxLineBytes, socketPathFor } from './protocol';

/** Runs one parsed request; the engine's `execute` fits, and so does an async front door. */
export type Executor = (request: Request) => Result<unknown> | Promise<Result<unknown>>;

export interface EndpointServerOptions {
  /** Problems worth a line in the owner's log (unexpected errors, refused connections). */
  readonly log?: (line: string) => void;
}

/**
 * The owner's local endpoint (ARCHITECTURE §2): a Unix socket only this user can open, and a
 * token only this user can read. Requests run one at a time in arrival order, across all
 * connections, so the engine sees exactly the sequence a single caller would.
 * The caller must hold the owner lock: starting removes any socket file left at the path.
 */
export class EndpointServer implements Disposable {
  private queue: Promise<void> = Promise.resolve();
  private readonly sockets = new Set<net.Socket>();
  private closed = false;

  private constructor(
    private readonly server: net.Server,
    private readonly foremanDir: string,
    readonly socketPath: string,
    private readonly token: Buffer,
    private readonly execute: Executor,
    private readonly log: (line: string) => void,
  ) {}

  static async start(foremanDir: string, execute: Executor, options: EndpointServerOptions = {}): Promise<EndpointServer> {
    const socketPath = socketPathFor(foremanDir);
    const token = newToken();
    writeToken(foremanDir, token);
    // A socket file left by a dead owner makes listen() fail with EADDRINUSE; we hold the lock, so it is stale.
    fs.rmSync(socketPath, { force: true });
    const server = net.createServer();
    const endpoint = new EndpointServer(server, foremanDir, socketPath, Buffer.from(token), execute, options.log ?? (() => undefined));
    server.on('connection', (socket) => endpoint.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (error) => endpoint.log(`endpoint: ${String(error)}`));
    fs.chmodSync(socketPath, 0o600);
    writeAnnouncement(foremanDir, { socketPath, pid: process.pid, startedAt: Date.now() });
    return endpoint;
  }

  private accept(socket: net.Socket): void {
    if (this.closed) {
      socket.destroy();
      return;
    }
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    const lines = new LineBuffer(maxLineBytes);
    socket.on('data', (chunk: Buffer) => {
      if (this.closed) return;
      const { lines: complete, overflow } = lines.push(chunk);
      for (const line of complete) this.enqueue(socket, () => this.handle(line));
      if (overflow) {
        // Stop reading at once; the refusal still goes out after the replies already queued.
        socket.pause();
        socket.removeAllListeners('data');
        const refusal = invalid(
          'lineTooLong',
          `endpoint: a request line is at most ${maxLineBytes} bytes (1 MiB); send large data as a file.`,
        );
        this.enqueue(socket, () => Promise.resolve(respond(refusal)), true);
      }
    });
  }

  private enqueue(socket: net.Socket, work: () => Promise<EndpointResponse>, end = false): void {
    this.queue = this.queue.then(async () => {
      const response = await work();
      if (socket.destroyed) return;
      const text = `${JSON.stringify(response)}\n`;
      if (end) socket.end(text);
      else socket.write(text);
    });
  }

  private async handle(line: string): Promise<EndpointResponse> {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (error) {
      return respond(invalid('badLine', `endpoint: a request line must be JSON (${(error as Error).message}).`));
    }
    const envelope = endpointRequestSchema.safeParse(json);
    if (!envelope.success) return respond(invalid('badLine', `endpoint: ${describeIssues(envelope.error)}`));
    // Checked before anything else is looked at: nothing runs for a caller without the secret.
    if (!this.tokenMatches(envelope.data.token)) return respond(invalid('badEndpointToken', 'bad endpoint token'));
    const parsed = parseRequest(envelope.data.request);
    if (!parsed.ok) return respond(invalid('badRequest', parsed.message));
    try {
      return respond(await this.execute(parsed.request));
    } catch (error) {
      this.log(
        `endpoint: ${parsed.request.command} failed unexpectedly: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      return respond({
        ok: false,
        kind: 'unexpected',
        code: 'internalError',
        message: `${parsed.request.command} failed unexpectedly in the owner: ${String(error)}`,
      });
    }
  }

  private tokenMatches(token: string | undefined): boolean {
    if (token === undefined) return false;
    const given = Buffer.from(token);
    return given.length === this.token.length && timingSafeEqual(given, this.token);
  }

  /**
   * Stops listening, lets the requests already taken finish and answer, ends open connections,
   * and withdraws the announcement and the socket file.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    withdrawAnnouncement(this.foremanDir, process.pid);
    const stopped = new Promise<void>((resolve) => this.server.close(() => resolve()));
    await this.queue;
    for (const socket of this.sockets) socket.destroy();
    await stopped;
    fs.rmSync(this.socketPath, { force: true });
  }

  dispose(): void {
    void this.close();
  }
}

function respond(result: EndpointResult): EndpointResponse {
  const exitCode = !result.ok && result.kind === 'unexpected' ? ExitCode.unexpected : exitCodeOf(result);
  return { ok: result.ok, exitCode, result };
}
