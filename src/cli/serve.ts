import { RunOnceScheduler } from '../base/async';
import type { EngineEvent } from '../engine/unit';
import { type WorkspaceOwner, oneShotPatienceMs, openOwner, startOwnerEndpoint } from '../host';
import { type Printer, printFailure } from './format';
import type { EndpointServer } from '../host/infraParts';

/** Why serve stops, and the exit code that goes with it. */
interface StopRequest {
  readonly reason: string;
  readonly code: number;
}

/**
 * `foreman serve`: becomes the workspace's long-running owner (lock, store, engine, endpoint,
 * dispatcher and monitor) until SIGINT or SIGTERM, then closes cleanly: no new requests, the ones
 * taken answered, a checkpoint, the announcement removed, the lock released.
 * Resolves to the exit code: 0 after a signal, 1 when the store broke, 3 when another process owns the workspace.
 *
 * Signals are handled from the first line: one that arrives while starting is remembered, the step
 * under way (opening the store, starting the endpoint, recovery) is let finish, and start-up is then
 * unwound the same way as a stop, so no lock, socket or announcement is left to make the next owner
 * think the workspace is owned. Before this function runs nothing has been created, so a signal
 * that ends the process earlier leaves nothing behind either.
 */
export async function serve(repoRoot: string, json: boolean, printer: Printer, options: { launchAgents: boolean }): Promise<number> {
  const log = (line: string): void => printer.err(`foreman serve: ${line}`);
  const stops = new StopRequests(log);
  const onInterrupt = (): void => stops.request({ reason: 'SIGINT', code: 0 });
  const onTerminate = (): void => stops.request({ reason: 'SIGTERM', code: 0 });
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onTerminate);
  try {
    return await startAndRun(repoRoot, json, printer, options, log, stops);
  } finally {
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onTerminate);
  }
}

/** Requests to stop (signals, a broken store): remembered while starting, acted on once running, ignored once stopping. */
class StopRequests {
  private phase: 'starting' | 'running' | 'stopping' = 'starting';
  private first: StopRequest | undefined;
  private stop: (request: StopRequest) => void = () => undefined;
  private readonly aborter = new AbortController();
  /** Aborted by the first request to stop: ends waits that start-up would otherwise sit out. */
  readonly signal = this.aborter.signal;

  constructor(private readonly log: (line: string) => void) {}

  request(request: StopRequest): void {
    if (this.phase === 'running') {
      this.phase = 'stopping';
      this.stop(request);
    } else if (this.phase === 'stopping') {
      this.log(`${request.reason}: already closing`);
    } else if (!this.first) {
      this.first = request;
      this.log(`${request.reason} while starting: closing once the current step ends`);
      this.aborter.abort();
    }
  }

  /** The request that arrived while starting, if any. */
  get pending(): StopRequest | undefined {
    return this.first;
  }

  /** Start-up is being unwound: later requests change nothing. */
  stopping(): void {
    this.phase = 'stopping';
  }

  /** Start-up is done; the next request calls `stop`. */
  running(stop: (request: StopRequest) => void): void {
    this.stop = stop;
    this.phase = 'running';
  }
}

async function startAndRun(
  repoRoot: string,
  json: boolean,
  printer: Printer,
  options: { launchAgents: boolean },
  log: (line: string) => void,
  stops: StopRequests,
): Promise<number> {
  const opened = await openOwner(repoRoot, {
    role: 'serve',
    log,
    lockPatienceMs: oneShotPatienceMs,
    lockWaitSignal: stops.signal,
    // A store that cannot say what it saved (a failed fsync) takes no more writes: the requests in
    // flight are answered "unknown", the lock is released and serve exits non-zero, so a supervisor
    // restarts it and the next open reads from disk what is really there.
    onStoreBroken: (reason) => setImmediate(() => stops.request({ reason: `the store stopped taking writes (${reason})`, code: 1 })),
    launchAgents: options.launchAgents,
  });
  if (!opened.ok) {
    // Stopped while waiting for the lock: nothing was created, so this is a clean stop.
    if (stops.pending && opened.code === 'ownedByOther') {
      log(`${stops.pending.reason} while waiting for the owner lock: stopped`);
      return stops.pending.code;
    }
    return printFailure(printer, opened, json);
  }
  const owner = opened.value;
  let endpoint: EndpointServer | undefined;
  /** Closes what start-up has opened so far; the code is 1 if that did not go cleanly. */
  const unwind = async (request: StopRequest): Promise<number> => {
    stops.stopping();
    log(`${request.reason} during start-up: closing`);
    return (await shutDown(owner, endpoint, log)) ? request.code : 1;
  };
  const failed = async (error: unknown): Promise<never> => {
    stops.stopping();
    await shutDown(owner, endpoint, log);
    throw error;
  };

  if (stops.pending) return unwind(stops.pending);
  try {
    endpoint = await startOwnerEndpoint(owner, { log });
  } catch (error) {
    return failed(error);
  }
  if (stops.pending) return unwind(stops.pending);
  // Lives as long as the engine, which owner.close() disposes with its emitters.
  const eventLog = new EventLog(printer);
  owner.engine.onDidCommit((events) => {
    // Not a change of state: the log stays the story of transitions.
    for (const event of events) {
      if (event.kind !== 'heartbeat' && event.kind !== 'rowsChanged') eventLog.add(json ? JSON.stringify(event) : describeEvent(event));
    }
  });
  // Recovery and the first dispatch run after the event log is attached, so their lines show.
  try {
    await owner.start();
  } catch (error) {
    return failed(error);
  }
  if (stops.pending) return unwind(stops.pending);

  let finish: (code: number) => void = () => undefined;
  const finished = new Promise<number>((resolve) => (finish = resolve));
  stops.running((request) => {
    log(`${request.reason}: closing`);
    void shutDown(owner, endpoint, log).then((clean) => {
      eventLog.flush();
      finish(clean ? request.code : 1);
    });
  });
  eventLog.flush();
  printer.out(
    json
      ? JSON.stringify({ owner: owner.foremanDir, endpoint: endpoint.socketPath, pid: process.pid })
      : `foreman serve: owner of ${owner.foremanDir}, endpoint ${endpoint.socketPath}`,
  );
  return finished;
}

/**
 * The event lines `serve` prints, written together every `flushAfterMs`: a write to a pipe is a
 * system call that wakes its reader, and one per commit was ~8% of a busy owner's thread (eight
 * clients claiming: 8,500 writes in 10 s). Flushed before anything else is printed, so lines keep
 * their order; the timer is armed only while lines wait, so an idle owner has none.
 */
class EventLog {
  private static readonly flushAfterMs = 20;
  private pending: string[] = [];
  private readonly flusher = new RunOnceScheduler(() => this.flush(), EventLog.flushAfterMs);

  constructor(private readonly printer: Printer) {}

  add(line: string): void {
    this.pending.push(line);
    if (!this.flusher.isScheduled) this.flusher.schedule();
  }

  flush(): void {
    this.flusher.cancel();
    if (this.pending.length === 0) return;
    const lines = this.pending;
    this.pending = [];
    this.printer.out(lines.join('\n'));
  }
}

/** Endpoint first (no new requests, the taken ones answered), then the owner (agents, checkpoint, lock). */
async function shutDown(owner: WorkspaceOwner, endpoint: EndpointServer | undefined, log: (line: string) => void): Promise<boolean> {
  let clean = true;
  try {
    await endpoint?.close();
  } catch (error) {
    clean = false;
    log(`closing the endpoint failed: ${String(error)}`);
  }
  try {
    // Its agents are stopped and their work saved before the lock goes (ownerWatch.ts).
    await owner.stop();
  } catch (error) {
    clean = false;
    log(`closing the store failed: ${String(error)}`);
  }
  return clean;
}

function describeEvent(event: EngineEvent): string {
  switch (event.kind) {
    case 'worker':
    case 'task':
      return `${event.kind} ${event.id}: ${event.from} → ${event.to} (${event.trigger})`;
    case 'created':
      return `${event.entity} ${event.id}: created`;
    case 'unblocked':
      return `task ${event.id}: unblocked after ${event.after}`;
    case 'message':
      return `message ${event.seq} to ${event.to ?? 'everyone'}`;
    case 'rejected':
      return `${event.entity} ${event.id}: rejected (${event.code})`;
    case 'heartbeat':
      return `heartbeat from ${event.workerId}`;
    case 'rowsChanged':
      return `rows changed: ${[...event.workers, ...event.tasks].join(', ')}`;
  }
}
