import type { Request } from '../core/requests';
import type { EngineEvent } from '../engine/unit';
import { StoreError } from '../infra/db';
import { EndpointServer } from '../infra/endpoint';
import { type WorkspaceOwner, openOwner } from '../infra/workspace';
import { type Printer, printFailure } from './format';

/**
 * `foreman serve`: becomes the workspace's long-running owner (lock, store, engine, endpoint,
 * dispatcher and monitor) until SIGINT or SIGTERM, then closes cleanly: no new requests, the ones
 * taken answered, a checkpoint, the announcement removed, the lock released.
 * Resolves to the exit code: 0 after a signal, 1 when the store broke, 3 when another process owns the workspace.
 */
export async function serve(repoRoot: string, json: boolean, printer: Printer, options: { launchAgents: boolean }): Promise<number> {
  const log = (line: string): void => printer.err(`foreman serve: ${line}`);
  let socketPath: string | undefined;
  const opened = await openOwner(repoRoot, {
    role: 'serve',
    log,
    launchAgents: options.launchAgents,
    agentEnvironment: (): Record<string, string> => (socketPath ? { FOREMAN_ENDPOINT: socketPath } : {}),
  });
  if (!opened.ok) return printFailure(printer, opened, json);
  const owner = opened.value;

  let finish: (code: number) => void = () => undefined;
  const finished = new Promise<number>((resolve) => (finish = resolve));
  let endpoint: EndpointServer | undefined;
  let stopping = false;
  const stop = (reason: string, code: number): void => {
    if (stopping) return;
    stopping = true;
    log(`${reason}: closing`);
    void shutDown(owner, endpoint, log).then((clean) => finish(clean ? code : 1));
  };

  const execute = (request: Request) => {
    try {
      return owner.execute(request);
    } catch (error) {
      // A store that could not journal a commit must be reopened; a new owner (or CLI call) will do that.
      if (error instanceof StoreError && error.code === 'broken') setImmediate(() => stop(`the store broke (${error.message})`, 1));
      throw error;
    }
  };
  try {
    endpoint = await EndpointServer.start(owner.foremanDir, execute, { log });
    socketPath = endpoint.socketPath;
    // Announced in the lock last: a client that sees the endpoint there can connect to it.
    owner.lock.update({ endpoint: endpoint.socketPath });
  } catch (error) {
    await shutDown(owner, endpoint, log);
    throw error;
  }
  owner.engine.onDidCommit((events) => {
    for (const event of events) {
      if (event.kind === 'heartbeat') continue;
      printer.out(json ? JSON.stringify(event) : describeEvent(event));
    }
  });
  // Recovery and the first dispatch run after the event log is attached, so their lines show.
  await owner.start();
  process.once('SIGINT', () => stop('SIGINT', 0));
  process.once('SIGTERM', () => stop('SIGTERM', 0));
  printer.out(
    json
      ? JSON.stringify({ owner: owner.foremanDir, endpoint: endpoint.socketPath, pid: process.pid })
      : `foreman serve: owner of ${owner.foremanDir}, endpoint ${endpoint.socketPath}`,
  );
  return finished;
}

/** Endpoint first (no new requests, the taken ones answered), then the owner (checkpoint, lock). */
async function shutDown(owner: WorkspaceOwner, endpoint: EndpointServer | undefined, log: (line: string) => void): Promise<boolean> {
  let clean = true;
  try {
    await endpoint?.close();
  } catch (error) {
    clean = false;
    log(`closing the endpoint failed: ${String(error)}`);
  }
  try {
    owner.close();
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
  }
}
