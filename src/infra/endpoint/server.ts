import { timingSafeEqual } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import { parseRequest, type Request } from '../../core/requests';
import { describeIssues } from '../../core/zodIssues';
import { type Failure, type Result, invalid, refused } from '../../core/result';
import { storeFailure } from '../db/storeError';
import type { Disposable } from '../../base/lifetime';
import { newToken, readEndpointInfo, withdrawAnnouncement, writeAnnouncement, writeToken } from './announcement';
import { type ConnectionLimits, EndpointConnection, respondTo } from './connection';
import { type EndpointResponse, endpointRequestSchema } from './protocol';
import { type SocketLocation, createSocketLocation, removeSocketLocation, removeStalePrivateDir } from './socketLocation';
import { type FolderIdentity, describeFolder, folderIdentityOf, sameFolder } from '../workspace/folderIdentity';

/**
 * Lets a long request give way: `next()` resolves once the requests taken since it last ran have
 * run (each whole), so a big read answered in pages (`status --all`) never holds the others back.
 */
export interface Turns {
  next(): Promise<void>;
}

/** Runs one parsed request; the engine's `execute` fits, and so does an async front door. */
export type Executor = (request: Request, turns: Turns) => Result<unknown> | Promise<Result<unknown>>;

export interface EndpointServerOptions {
  /** Problems worth a line in the owner's log (unexpected errors, refused connections). */
  readonly log?: (line: string) => void;
  /** Per-connection limits; the defaults suit every real client (one request, one answer). */
  readonly limits?: Partial<ConnectionLimits>;
  /**
   * Resolves once what the requests so far wrote is on disk (the store's group commit): an answer
   * leaves only then, while the next request already runs. Absent: every write is saved as it commits.
   */
  readonly whenSaved?: () => Promise<void>;
}

/** No real client has more than one request out; a few more let a pipelining one go at speed. */
const defaultLimits: ConnectionLimits = { maxInFlight: 16, idleTimeoutMs: 30_000 };

/**
 * The owner's local endpoint (ARCHITECTURE §2): a Unix socket only this user can open, and a
 * token only this user can read. Requests run one at a time in arrival order, across all
 * connections, so the engine sees exactly the sequence a single caller would; a request that gives
 * way (`Turns`) goes to the back of the line and resumes after the ones taken meanwhile.
 * The caller must hold the owner lock: starting removes any socket file left at the path.
 */
export class EndpointServer implements Disposable {
  /** A request runs (holds the turn); the others wait in `waiting`, in arrival order. */
  private busy = false;
  private readonly waiting: Array<() => void> = [];
  private idle: Promise<void> = Promise.resolve();
  private becameIdle: (() => void) | undefined;
  /** Answers taken and run, waiting for their writes to be saved (`whenSaved`). */
  private readonly saving = new Set<Promise<unknown>>();
  private readonly sockets = new Set<net.Socket>();
  private closed = false;

  private constructor(
    private readonly server: net.Server,
    private readonly foremanDir: string,
    private readonly location: SocketLocation,
    private readonly token: Buffer,
    private readonly execute: Executor,
    private readonly log: (line: string) => void,
    private readonly limits: ConnectionLimits,
    private readonly whenSaved: (() => Promise<void>) | undefined,
    /** The `.foreman/` folder served, announced and checked against each request's. */
    private readonly folder: FolderIdentity | undefined,
  ) {}

  get socketPath(): string {
    return this.location.socketPath;
  }

  static async start(foremanDir: string, execute: Executor, options: EndpointServerOptions = {}): Promise<EndpointServer> {
    // We hold the lock, so a private socket folder named by an earlier owner's announcement is stale,
    // unless the announcement came with a copy of the folder: that one is the original owner's, live.
    const folder = folderIdentityOf(foremanDir);
    const previous = readEndpointInfo(foremanDir);
    const copied = folder && previous?.folder && !sameFolder(folder, previous.folder);
    if (previous?.socketDir && !copied) removeStalePrivateDir(previous.socketDir);
    const token = newToken();
    writeToken(foremanDir, token);
    const location = createSocketLocation(foremanDir);
    const { socketPath } = location;
    // A socket file left by a dead owner makes listen() fail with EADDRINUSE; we hold the lock, so it is stale.
    fs.rmSync(socketPath, { force: true });
    const server = net.createServer();
    const log = options.log ?? (() => undefined);
    const limits = { ...defaultLimits, ...options.limits };
    const endpoint = new EndpointServer(server, foremanDir, location, Buffer.from(token), execute, log, limits, options.whenSaved, folder);
    server.on('connection', (socket) => endpoint.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error) => {
        removeSocketLocation(location);
        reject(error);
      });
      server.listen(socketPath, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (error) => endpoint.log(`endpoint: ${String(error)}`));
    fs.chmodSync(socketPath, 0o600);
    writeAnnouncement(foremanDir, {
      socketPath,
      ...(location.privateDir ? { socketDir: location.privateDir } : {}),
      pid: process.pid,
      startedAt: Date.now(),
      ...(folder ? { folder } : {}),
    });
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
    new EndpointConnection(
      socket,
      this.limits,
      (line) => this.handle(line),
      (work) => this.submit(work),
      this.log,
    );
  }

  /**
   * Runs `work` after every request taken before it, from any connection, and answers once its
   * writes are saved. The next request does not wait for that save: requests taken while one fsync
   * runs share the next (group commit).
   */
  private submit(work: () => Promise<EndpointResponse>): Promise<EndpointResponse> {
    const answered = (async () => {
      await this.takeTurn();
      try {
        return await work();
      } finally {
        this.giveTurn();
      }
    })();
    const whenSaved = this.whenSaved;
    if (!whenSaved) return answered;
    const saved = answered.then(async (response) => {
      try {
        await whenSaved();
        return response;
      } catch (error) {
        // Done in memory, its fsync failed: on disk or not, nobody can say. The caller must look.
        return respondTo(
          storeFailure(error) ??
            refused('outcomeUnknown', `The owner cannot tell whether this change was saved (${String(error)}); look before repeating it.`),
        );
      }
    });
    this.saving.add(saved);
    void saved.finally(() => this.saving.delete(saved));
    return saved;
  }

  /** Requests taken and not yet started (a request that gave way counts while it waits). */
  get queued(): number {
    return this.waiting.length;
  }

  /** Resolves when this caller holds the turn: at once when no request runs, else after those ahead. */
  private takeTurn(): Promise<void> {
    if (!this.busy) {
      this.busy = true;
      this.idle = new Promise((resolve) => (this.becameIdle = resolve));
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Hands the turn to the next request waiting, or marks the line idle. */
  private giveTurn(): void {
    const next = this.waiting.shift();
    if (next) {
      next();
      return;
    }
    this.busy = false;
    this.becameIdle?.();
  }

  /** For a running request: lets the event loop read what arrived, then the requests waiting run first. */
  private readonly turns: Turns = {
    next: async () => {
      await new Promise((resolve) => setImmediate(resolve));
      if (this.waiting.length === 0) return;
      this.giveTurn();
      await this.takeTurn();
    },
  };

  private async handle(line: string): Promise<EndpointResponse> {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (error) {
      return respondTo(invalid('badLine', `endpoint: a request line must be JSON (${(error as Error).message}).`));
    }
    const envelope = endpointRequestSchema.safeParse(json);
    if (!envelope.success) return respondTo(invalid('badLine', `endpoint: ${describeIssues(envelope.error)}`));
    // Checked before anything else is looked at: nothing runs for a caller without the secret.
    if (!this.tokenMatches(envelope.data.token)) return respondTo(invalid('badEndpointToken', 'bad endpoint token'));
    const wrongFolder = this.refuseOtherFolder(envelope.data.folder);
    if (wrongFolder) return respondTo(wrongFolder);
    const parsed = parseRequest(envelope.data.request);
    if (!parsed.ok) return respondTo(invalid('badRequest', parsed.message));
    try {
      return respondTo(await this.execute(parsed.request, this.turns));
    } catch (error) {
      const expected = storeFailure(error);
      if (expected) return respondTo(expected);
      this.log(
        `endpoint: ${parsed.request.command} failed unexpectedly: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      return respondTo({
        ok: false,
        kind: 'unexpected',
        code: 'internalError',
        message: `${parsed.request.command} failed unexpectedly in the owner: ${String(error)}`,
      });
    }
  }

  /**
   * A client that found this owner in a `.foreman/` folder other than the one it serves: a copy of
   * the folder, which carries the announcement and token along. Clients check this themselves
   * (client.ts); this is the second check, for a client that did not or could not.
   */
  private refuseOtherFolder(clientFolder: FolderIdentity | undefined): Failure | undefined {
    if (!clientFolder || !this.folder || sameFolder(clientFolder, this.folder)) return undefined;
    return refused(
      'otherWorkspace',
      `This owner (pid ${process.pid}) serves ${this.foremanDir} (${describeFolder(this.folder)}), not the folder you called ` +
        `from (${describeFolder(clientFolder)}): that folder is a copy, and its endpoint.json and token are the original's. ` +
        'Nothing was run. Delete endpoint.json and endpoint.token in the copy; it then works as a workspace of its own.',
      { served: this.folder, client: clientFolder },
    );
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
    await this.idle;
    // The answers still waiting for their save go out before the connections close.
    await Promise.allSettled([...this.saving]);
    for (const socket of this.sockets) socket.destroy();
    await stopped;
    removeSocketLocation(this.location);
  }

  dispose(): void {
    void this.close();
  }
}
