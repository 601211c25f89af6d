import type { CommandName, RequestOf } from '../core/requests';
import { invalid, refused } from '../core/result';
import { type Target, answerOf, sendToOwnerAt } from './target';
import { type EndpointAnswer, foremanDir, isInitialised, readOwner } from '../host/endpointAccess';
import { systemClock } from '../engine/ports';

export { type Target, resolveTarget } from './target';

/** A one-shot call exports the whole image only once the journal has grown this long. */
const oneShotCheckpointBytes = 1024 * 1024;

/** How long to wait for an owner that holds the lock but does not answer yet (starting or stopping). */
const endpointPatienceMs = 5_000;
/** How long to wait for another one-shot CLI call to finish with the lock. */
const lockPatienceMs = 30_000;

export interface RouteOptions {
  readonly log?: (line: string) => void;
}

/**
 * Executes a request with the same result wherever it runs (ARCHITECTURE §2): through the live
 * owner's endpoint when there is one; otherwise here, as a short-lived owner (lock, open, execute,
 * checkpoint, release). Losing the race for the lock means an owner appeared: go through it.
 */
export async function route<C extends CommandName>(
  target: Target,
  request: RequestOf<C>,
  options: RouteOptions = {},
): Promise<EndpointAnswer<C>> {
  if (target.kind === 'endpoint') return answerOf(request.command, await sendToOwnerAt(target.address, request));
  const dir = foremanDir(target.repoRoot);
  if (!isInitialised(dir)) {
    return invalid(
      'notInitialised',
      `No Foreman here (${target.repoRoot}); run \`foreman init\` in the repository, or pass --dir <repo>.`,
      { dir: target.repoRoot },
    );
  }
  const started = Date.now();
  for (let round = 0; ; round++) {
    const owner = readOwner(dir);
    let patience = lockPatienceMs;
    if (owner && owner.endpoint) {
      const sent = await sendToOwnerAt({ foremanDir: dir }, request);
      if (sent.kind !== 'unreachable') return answerOf(request.command, sent);
      patience = endpointPatienceMs;
    } else if (!owner) {
      const { openOwner } = await import('../host/owner.js');
      const opened = await openOwner(target.repoRoot, {
        role: 'cli',
        // Another one-shot call holds the lock for one transaction: wait in line for it.
        lockPatienceMs: Math.max(1, lockPatienceMs - (Date.now() - started)),
        closeCheckpointBytes: oneShotCheckpointBytes,
        ...(options.log ? { log: options.log } : {}),
      });
      if (opened.ok) {
        try {
          return await opened.value.execute(request);
        } finally {
          closeQuietly(opened.value, options.log);
        }
      }
      if (opened.code !== 'ownedByOther') return opened;
    } else if (owner.role !== 'cli') {
      // A long-running owner between taking the lock and announcing its endpoint.
      patience = endpointPatienceMs;
    }
    if (Date.now() - started > patience) {
      const who = readOwner(dir);
      return refused(
        'ownerUnreachable',
        `The workspace is owned by ${who ? `pid ${who.pid} (${who.role})` : 'another process'}, which did not take the request within ${Math.round(patience / 1000)} s; try again, or stop that process.`,
      );
    }
    await sleep(Math.min(200, 10 + round * 10) * (0.5 + Math.random()));
  }
}

/**
 * The request is journalled (durable) before execute returns, so a failed checkpoint while
 * closing must not turn its answer into an error: the next owner replays the journal.
 */
function closeQuietly(owner: { close(): void }, log: ((line: string) => void) | undefined): void {
  try {
    owner.close();
  } catch (error) {
    log?.(`closing the store failed (${String(error)}); the journal keeps every acknowledged write.`);
  }
}

function sleep(ms: number): Promise<void> {
  return systemClock.sleep(ms);
}
