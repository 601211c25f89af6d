/**
 * Ownership of a workspace's state (ARCHITECTURE §2): `.foreman/owner.lock`, created with O_EXCL
 * by the one process allowed to write the store. A lock whose process is gone is taken over.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ok, refused } from '../../core/result';
import type { Result } from '../../core/result';
import { ensureForemanDir } from './storeFiles';
import { folderIdentityOf } from '../workspace/folderIdentity';
import { type OwnerInfo, isAlive, isLockOf, lockName, readLockFile } from '../workspace/ownerFile';

export { readOwner, type OwnerInfo } from '../workspace/ownerFile';

/** A lock file that cannot be parsed is being written right now, unless it is older than this. */
const unparsableGraceMs = 10_000;
/** Takeover markers are kept this long so that no slow racer can reuse a stale judgement. */
const markerLifetimeMs = 24 * 60 * 60 * 1000;

export interface OwnerLock {
  readonly info: OwnerInfo;
  /** Rewrites the lock atomically, e.g. to publish the endpoint once it is known. */
  update(change: { readonly role?: string; readonly endpoint?: string }): void;
  /** Deletes the lock if it is still ours. Safe to call twice. */
  release(): void;
}

function describe(info: OwnerInfo): string {
  const where = info.host === os.hostname() ? '' : ` on host ${info.host}`;
  return `pid ${info.pid} (${info.role})${where}, since ${new Date(info.startedAt).toISOString()}`;
}

function writeLock(lockPath: string, info: OwnerInfo, flag: 'wx' | 'w'): void {
  const fd = fs.openSync(lockPath, flag, 0o600);
  try {
    fs.writeSync(fd, JSON.stringify(info));
    fs.fsyncSync(fd);
  } catch (error) {
    // A lock we created but could not fill (a full disk) would read as "being written" to everyone.
    fs.closeSync(fd);
    fs.rmSync(lockPath, { force: true });
    throw error;
  }
  fs.closeSync(fd);
}

/**
 * Removes a stale lock (its owner is dead, or it was copied here from another folder) so that
 * exactly one racer does. The stale file is first hard-linked to a name derived from its identity:
 * link() fails if that name exists, so of all processes that judged this same file stale only the
 * first proceeds, and it removes the file it judged (nobody else can have replaced it: its owner is
 * dead or owns another folder, and every other racer lost the link). Renaming the
 * lock instead would let a slow racer rename away the fresh lock of the racer that won.
 * Returns false when another process got there first.
 */
function removeStale(dir: string, lockPath: string, stat: fs.Stats): boolean {
  const marker = path.join(dir, `${lockName}.stale-${stat.ino}-${Math.trunc(stat.mtimeMs)}`);
  try {
    fs.linkSync(lockPath, marker);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOENT') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw error;
    // No hard links on this file system: a unique rename is the best left (see above for its race).
    try {
      fs.renameSync(lockPath, `${marker}-${crypto.randomUUID()}`);
      return true;
    } catch (renameError) {
      if ((renameError as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw renameError;
    }
  }
  fs.rmSync(lockPath, { force: true });
  return true;
}

function removeOldMarkers(dir: string): void {
  for (const name of fs.readdirSync(dir)) {
    if (!name.startsWith(`${lockName}.stale-`)) continue;
    const marker = path.join(dir, name);
    try {
      if (Date.now() - fs.statSync(marker).mtimeMs > markerLifetimeMs) fs.rmSync(marker, { force: true });
    } catch {
      // Another process removed it.
    }
  }
}

class HeldOwnerLock implements OwnerLock {
  private released = false;

  constructor(
    private readonly dir: string,
    public info: OwnerInfo,
  ) {}

  private get lockPath(): string {
    return path.join(this.dir, lockName);
  }

  private isStillOurs(): boolean {
    const current = readLockFile(this.lockPath);
    return current.kind === 'parsed' && current.info.pid === this.info.pid && current.info.startedAt === this.info.startedAt;
  }

  update(change: { readonly role?: string; readonly endpoint?: string }): void {
    if (this.released || !this.isStillOurs()) throw new Error(`${this.lockPath} is no longer held by this process.`);
    const info: OwnerInfo = { ...this.info, ...change };
    const temp = `${this.lockPath}.${process.pid}-${crypto.randomUUID()}.tmp`;
    writeLock(temp, info, 'w');
    fs.renameSync(temp, this.lockPath);
    this.info = info;
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    if (this.isStillOurs()) fs.rmSync(this.lockPath, { force: true });
  }
}

/** Takes ownership of the workspace whose state lives in `foremanDir`, or says who has it. */
export function acquireOwnerLock(
  foremanDir: string,
  info: { readonly role: string; readonly endpoint?: string },
  options: { readonly log?: (line: string) => void } = {},
): Result<OwnerLock> {
  ensureForemanDir(foremanDir);
  const lockPath = path.join(foremanDir, lockName);
  // Each pass either wins, refuses, or saw the lock change under it; a few passes settle any race.
  // Recorded so that a copy of this folder (which copies the lock) can tell the lock is not its own.
  const folder = folderIdentityOf(foremanDir);
  for (let attempt = 0; attempt < 10; attempt++) {
    const ours: OwnerInfo = { pid: process.pid, host: os.hostname(), startedAt: Date.now(), ...info, ...(folder ? { folder } : {}) };
    try {
      writeLock(lockPath, ours, 'wx');
      removeOldMarkers(foremanDir);
      return ok(new HeldOwnerLock(foremanDir, ours));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const existing = readLockFile(lockPath);
    if (existing.kind === 'missing') continue;
    const copied = existing.kind === 'parsed' && !isLockOf(existing.info, foremanDir);
    if (existing.kind === 'parsed' && !copied && isAlive(existing.info)) {
      const owner = existing.info;
      return refused(
        'ownedByOther',
        `This workspace is owned by ${describe(owner)}; send commands to it${owner.endpoint ? ` at ${owner.endpoint}` : ''}, or stop it first. If that process no longer runs, delete ${lockPath}.`,
        {
          pid: owner.pid,
          host: owner.host,
          role: owner.role,
          startedAt: owner.startedAt,
          ...(owner.endpoint ? { endpoint: owner.endpoint } : {}),
        },
      );
    }
    if (existing.kind === 'unparsable' && Date.now() - existing.stat.mtimeMs < unparsableGraceMs) {
      return refused(
        'ownedByOther',
        `Another process is taking ownership of this workspace right now (${lockPath} is being written); try again shortly.`,
      );
    }
    if (removeStale(foremanDir, lockPath, existing.stat)) {
      const previous =
        existing.kind !== 'parsed'
          ? 'that could not be read'
          : copied
            ? `of ${describe(existing.info)}, which was taken on another folder (this one is a copy of it)`
            : `of ${describe(existing.info)}, which no longer runs`;
      options.log?.(`Taking over ${lockPath}: removed the stale lock ${previous}.`);
    }
  }
  return refused('ownedByOther', `Could not take ${lockPath}: other processes keep changing it; try again.`);
}
