/**
 * Which `.foreman/` folder a lock, an announcement or a request belongs to: its device and inode,
 * as the file system gives them (docs/storage.md, "A workspace's folder identity"). A path can name
 * another folder later, and files copied with the folder (`cp -a`) still name the original's owner;
 * the folder itself cannot be copied, so its device and inode tell a copy from the original, while a
 * move (`mv`), another path to it (a symbolic link) or a bind mount keeps them. Compared only
 * between processes of one host: another machine sees a shared file system under its own device
 * numbers. Node built-ins only, so the thin CLI can check it.
 */
import * as fs from 'node:fs';

/** Device and inode of a folder, in decimal (they may exceed 2^53). */
export interface FolderIdentity {
  readonly dev: string;
  readonly ino: string;
}

/** The identity of `dir` now; undefined when it cannot be read (gone, no permission). */
export function folderIdentityOf(dir: string): FolderIdentity | undefined {
  try {
    const stat = fs.statSync(dir, { bigint: true });
    return { dev: stat.dev.toString(), ino: stat.ino.toString() };
  } catch {
    return undefined;
  }
}

export function sameFolder(a: FolderIdentity, b: FolderIdentity): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

const decimal = /^\d{1,20}$/;

/** A folder identity read back from a file or a request, without zod; undefined when malformed. */
export function readFolderIdentity(value: unknown): FolderIdentity | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { dev, ino } = value as Readonly<Record<string, unknown>>;
  return typeof dev === 'string' && typeof ino === 'string' && decimal.test(dev) && decimal.test(ino) ? { dev, ino } : undefined;
}

/** "device 2049, inode 1234", for messages. */
export function describeFolder(identity: FolderIdentity): string {
  return `device ${identity.dev}, inode ${identity.ino}`;
}
