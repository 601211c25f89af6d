import type { Result } from '../../core/result';
import { type Clock, systemClock } from '../../engine/ports';
import { type OwnerLock, acquireOwnerLock } from './ownerLock';

/** How long a wait goes unmentioned. */
const quietWaitMs = 1_000;

/** Roles that hold the lock only for one call: worth waiting for rather than refusing. */
const shortLivedRoles: ReadonlySet<string> = new Set(['cli']);

export interface WaitForOwnerLockOptions {
  /** How long to wait for a short-lived holder before giving up with its refusal. */
  readonly patienceMs: number;
  /** Takeovers, and the progress line while waiting. */
  readonly log?: (line: string) => void;
  /** Stops the wait early (a signal to the process that waits): the holder's refusal is returned. */
  readonly signal?: AbortSignal;
  /** The wait's clock; default the system's. */
  readonly clock?: Clock;
}

/**
 * Takes the owner lock like `acquireOwnerLock`, but when a short-lived holder has it (a one-shot
 * CLI call, a lock still being written, racers changing it) tries again until `patienceMs` has
 * passed, instead of refusing at once: `foreman serve & foreman status` must leave `serve` the
 * owner. A long-running owner (a window, another `serve`) is refused at once; it will not let go.
 */
export async function waitForOwnerLock(
  foremanDir: string,
  info: { readonly role: string; readonly endpoint?: string },
  options: WaitForOwnerLockOptions,
): Promise<Result<OwnerLock>> {
  const clock = options.clock ?? systemClock;
  const elapsed = (since: number): string => `${((clock.now() - since) / 1000).toFixed(1)} s`;
  const { signal } = options;
  const aborted =
    signal &&
    new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
  const started = clock.now();
  const lockOptions = options.log ? { log: options.log } : {};
  let waitingFor: string | undefined;
  // Waits of a few milliseconds are the normal case (one-shot calls queue): say nothing about them.
  let nextProgressAt = started + quietWaitMs;
  for (let round = 0; ; round++) {
    const taken = acquireOwnerLock(foremanDir, info, lockOptions);
    if (taken.ok) {
      if (waitingFor !== undefined) options.log?.(`took the owner lock after waiting ${elapsed(started)} for ${waitingFor}`);
      return taken;
    }
    if (taken.code !== 'ownedByOther') return taken;
    const role = taken.details?.['role'];
    if (typeof role === 'string' && !shortLivedRoles.has(role)) return taken;
    const elapsedMs = clock.now() - started;
    if (elapsedMs >= options.patienceMs || options.signal?.aborted) {
      return { ...taken, message: `Waited ${elapsed(started)} for the lock to be let go. ${taken.message}` };
    }
    const holder = typeof role === 'string' ? `pid ${String(taken.details?.['pid'])} (${role})` : 'another process taking the lock';
    if (clock.now() >= nextProgressAt) {
      const first = waitingFor === undefined;
      waitingFor = holder;
      nextProgressAt = clock.now() + 10_000;
      options.log?.(
        first
          ? `waiting for ${holder} to finish with the owner lock (up to ${Math.round(options.patienceMs / 1000)} s)`
          : `still waiting for ${holder} to finish with the owner lock (${elapsed(started)} so far)`,
      );
    }
    // A one-shot call holds the lock for one transaction: look again soon, at most 50 ms apart.
    // Aborted: the sleep ends at once, and the next round returns the refusal.
    await clock.sleep(Math.min(50, 5 + round * 5) * (0.5 + Math.random()), aborted);
  }
}
