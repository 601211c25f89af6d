/**
 * Reading `.foreman/owner.lock` (ARCHITECTURE §2): who owns the workspace, and whether that process
 * still runs. Node built-ins only, so the thin CLI (src/cli/thin.ts) finds the owner without loading
 * the store; taking and releasing the lock stays in src/infra/db/ownerLock.ts.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type FolderIdentity, folderIdentityOf, readFolderIdentity, sameFolder } from './folderIdentity';

export const lockName = 'owner.lock';

/** Who owns the workspace: what is written in `owner.lock`. */
export interface OwnerInfo {
  readonly pid: number;
  readonly host: string;
  /** Epoch ms when the lock was taken. */
  readonly startedAt: number;
  /** What kind of process owns it, e.g. `window`, `serve`, `cli`. */
  readonly role: string;
  /** Where clients send commands, once the owner listens. */
  readonly endpoint?: string;
  /** The `.foreman/` folder the lock was taken on (folderIdentity.ts): a copied lock names another. */
  readonly folder?: FolderIdentity;
}

export type LockFile =
  | { readonly kind: 'missing' }
  | { readonly kind: 'parsed'; readonly info: OwnerInfo; readonly stat: fs.Stats }
  | { readonly kind: 'unparsable'; readonly stat: fs.Stats };

export function readLockFile(lockPath: string): LockFile {
  let fd: number;
  try {
    fd = fs.openSync(lockPath, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    throw error;
  }
  try {
    // Content and identity (inode, mtime) come from one open file, so they describe the same lock.
    const stat = fs.fstatSync(fd);
    const text = fs.readFileSync(fd, 'utf8');
    try {
      const parsed = JSON.parse(text) as Partial<OwnerInfo> | null;
      if (
        parsed &&
        Number.isSafeInteger(parsed.pid) &&
        typeof parsed.host === 'string' &&
        typeof parsed.startedAt === 'number' &&
        typeof parsed.role === 'string'
      ) {
        // A malformed folder is dropped: the lock then reads as one written before folders were recorded.
        const { folder, ...rest } = parsed as OwnerInfo;
        const identity = readFolderIdentity(folder);
        return { kind: 'parsed', info: identity ? { ...rest, folder: identity } : rest, stat };
      }
    } catch {
      // Falls through: a half-written or foreign file.
    }
    return { kind: 'unparsable', stat };
  } finally {
    fs.closeSync(fd);
  }
}

/** Epoch ms when a local process started, where the OS tells (Linux); undefined elsewhere. */
function processStartedAt(pid: number): number | undefined {
  if (pid === process.pid) return performance.timeOrigin;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const bootSeconds = Number(/^btime (\d+)$/m.exec(fs.readFileSync('/proc/stat', 'utf8'))?.[1]);
    // Linux reports start times in clock ticks of 1/100 s (USER_HZ) on every common platform.
    return Number.isFinite(ticks) && Number.isFinite(bootSeconds) ? bootSeconds * 1000 + ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the lock's process still runs. Another host's process cannot be checked: assume it does. */
export function isAlive(info: OwnerInfo): boolean {
  if (info.host !== os.hostname()) return true;
  try {
    process.kill(info.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // A process that started after the lock was taken only reuses the pid (common after a reboot).
  const startedAt = processStartedAt(info.pid);
  return startedAt === undefined || startedAt <= info.startedAt + 2000;
}

/**
 * Whether the lock was taken on this very folder. False for a lock that came along when the folder
 * was copied (`cp -a` while its owner ran): it names a live process, but one that owns the original.
 * A lock from another host, or from before folders were recorded, cannot be checked: assume it was.
 */
export function isLockOf(info: OwnerInfo, foremanDir: string): boolean {
  if (info.folder === undefined || info.host !== os.hostname()) return true;
  const here = folderIdentityOf(foremanDir);
  return here === undefined || sameFolder(here, info.folder);
}

/** Whether the lock's process owns the workspace in `foremanDir`: it still runs, and took the lock here. */
export function holdsWorkspace(info: OwnerInfo, foremanDir: string): boolean {
  return isLockOf(info, foremanDir) && isAlive(info);
}

/** The live owner of the workspace, or undefined when there is none (its process is gone, or owns another folder). */
export function readOwner(foremanDir: string): OwnerInfo | undefined {
  const existing = readLockFile(path.join(foremanDir, lockName));
  return existing.kind === 'parsed' && holdsWorkspace(existing.info, foremanDir) ? existing.info : undefined;
}
