/**
 * The lock a workspace's owner takes and the store it opens under it, through the store's backend
 * (src/infra/workspace/storeBackends.ts: sql.js in `.foreman/`, or PostgreSQL shared with other
 * machines' owners, as `.foreman/store.json` names).
 */
import { randomUUID } from 'node:crypto';
import * as os from 'node:os';
import { hostSchema, thisHost } from '../core/ids';
import { type Result, invalid, ok } from '../core/result';
import type { OwnerIdentity } from '../engine/ports';
import { type OwnerLock, acquireOwnerLock, readOwner, waitForOwnerLock } from '../infra/db';
import type { OpenedStore, StoreBackend } from '../infra/workspace/storeBackends';
import type { OpenOwnerOptions } from './owner';

/** What taking the lock and opening the store read of the owner's options. */
type StoreOptions = Pick<
  OpenOwnerOptions,
  'role' | 'log' | 'closeCheckpointBytes' | 'lockPatienceMs' | 'lockWaitSignal' | 'onSavingChange' | 'onStoreBroken'
>;

/**
 * Takes the owner lock of `dir`, then opens the store of `backend`. Refusals are results: the
 * lock's (`ownedByOther`), and `storeUnreachable` (the PostgreSQL server is down or refuses the
 * login; the message names it, without its password). `owner` is this process on a shared store.
 */
export async function lockAndOpenStore(
  dir: string,
  backend: StoreBackend,
  owner: OwnerIdentity | undefined,
  options: StoreOptions,
  log: (line: string) => void,
): Promise<Result<{ lock: OwnerLock } & OpenedStore>> {
  // Everything slow happens before the lock (issue 10): a one-shot call holds it for its own
  // transaction only, and the other callers queue for milliseconds, not for a replay each.
  // Not while a long-running owner holds the lock: it will not let go, and a load would be wasted.
  const holder = readOwner(dir);
  const prepared = await backend.prepare(dir, { loadAhead: !holder || holder.role === 'cli' });
  // One owner per clone on any store: the lock guards this clone's worktrees and agents too.
  const lock = await takeLock(dir, options);
  if (!lock.ok) {
    prepared.discard();
    return lock;
  }
  let opened: Result<OpenedStore>;
  try {
    opened = await prepared.open({
      ...(owner ? { ownerId: owner.id } : {}),
      ...(options.log ? { log: options.log } : {}),
      embedded: {
        ...(options.closeCheckpointBytes ? { closeCheckpointBytes: options.closeCheckpointBytes } : {}),
        onSavingChange: (problem) => {
          log(problem ?? 'Changes are saved again.');
          options.onSavingChange?.(problem);
        },
        onBroken: (reason) => {
          log(`The store stopped taking writes: ${reason}. It must be reopened from disk.`);
          options.onStoreBroken?.(reason);
        },
      },
    });
  } catch (error) {
    prepared.discard();
    lock.value.release();
    throw error;
  }
  if (!opened.ok) {
    prepared.discard();
    lock.value.release();
    return opened;
  }
  return ok({ lock: lock.value, ...opened.value });
}

/** This process as one of a shared store's owners; FOREMAN_HOST must be a valid host name. */
export function ownerIdentity(): Result<OwnerIdentity> {
  const host = thisHost(process.env, os.hostname());
  if (!hostSchema.safeParse(host).success) {
    return invalid('badHost', `FOREMAN_HOST '${host}' is not a host name: use lowercase letters, digits, dots and dashes.`, { host });
  }
  return ok({ id: `${host}-${process.pid}-${randomUUID().slice(0, 8)}`, host, pid: process.pid });
}

/** The owner lock, waited for when the caller has patience for a one-shot holder. */
function takeLock(dir: string, options: StoreOptions): Promise<Result<OwnerLock>> | Result<OwnerLock> {
  const lockOptions = options.log ? { log: options.log } : {};
  if (!options.lockPatienceMs) return acquireOwnerLock(dir, { role: options.role }, lockOptions);
  return waitForOwnerLock(
    dir,
    { role: options.role },
    {
      ...lockOptions,
      patienceMs: options.lockPatienceMs,
      ...(options.lockWaitSignal ? { signal: options.lockWaitSignal } : {}),
    },
  );
}
