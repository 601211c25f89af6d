/**
 * The owner's endpoint, wired once for `foreman serve` and the VS Code window: requests go through
 * the engine's front door and each answer leaves once what it wrote is saved (group commit: the
 * requests taken meanwhile share one fsync); `status --all` gives way between its pages, so the
 * owner answers the others meanwhile. Announced in the owner lock last: a client that sees the
 * endpoint there can connect to it.
 */
import type { Request } from '../core/requests';
import type { Result } from '../core/result';
import { EndpointServer, type Executor } from '../infra/endpoint';
import { withdrawAnnouncement } from '../infra/endpoint/announcement';
import type { WorkspaceOwner } from './owner';

export interface OwnerEndpointOptions {
  /** Problems worth a line in the owner's log. */
  readonly log?: (line: string) => void;
  /** An answer given instead of the engine's (Restricted Mode refuses merges); undefined lets the engine answer. */
  readonly screen?: (request: Request) => Result<never> | undefined;
}

/** Starts `owner`'s endpoint and announces it; a failed start leaves no announcement behind. */
export async function startOwnerEndpoint(owner: WorkspaceOwner, options: OwnerEndpointOptions = {}): Promise<EndpointServer> {
  const execute: Executor = (request, turns) => {
    const screened = options.screen?.(request);
    return screened ? Promise.resolve(screened) : owner.engine.execute(request, { saving: 'later', between: () => turns.next() });
  };
  let endpoint: EndpointServer;
  try {
    endpoint = await EndpointServer.start(owner.foremanDir, execute, {
      ...(options.log ? { log: options.log } : {}),
      whenSaved: () => owner.engine.whenSaved(),
    });
  } catch (error) {
    // The token is written before the socket listens; a failed start leaves it to this process.
    withdrawAnnouncement(owner.foremanDir, process.pid);
    throw error;
  }
  try {
    owner.announce(endpoint.socketPath);
  } catch (error) {
    await endpoint.close();
    throw error;
  }
  return endpoint;
}
