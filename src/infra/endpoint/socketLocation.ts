import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { socketFileName } from './protocol';

/** Unix socket paths are limited (108 bytes on Linux, 104 on macOS); keep a margin. */
const maxSocketPathBytes = 100;
/** The prefix of private socket folders in the temp folder. */
const privateDirPrefix = 'foreman-';

/** Where one owner's socket lives, and the private folder made for it, if any. */
export interface SocketLocation {
  readonly socketPath: string;
  /** A folder only this user can enter, made for this owner; removed with the socket. */
  readonly privateDir?: string;
}

/** `.foreman/foreman.sock` (`.foreman/` is private), or undefined when that path is too long for a socket. */
export function socketPathInside(foremanDir: string): string | undefined {
  const inside = path.join(foremanDir, socketFileName);
  return Buffer.byteLength(inside) <= maxSocketPathBytes ? inside : undefined;
}

/**
 * Where to listen: inside `.foreman/` when the path is short enough; otherwise in a new folder made
 * with mkdtemp in the temp folder (0700, this user's, an unpredictable name), so no other user can
 * take the name first or connect. Clients find the path in endpoint.json, never by computing it.
 */
export function createSocketLocation(foremanDir: string): SocketLocation {
  const inside = socketPathInside(foremanDir);
  if (inside) return { socketPath: inside };
  // A long TMPDIR makes the name too long as well; /tmp is short everywhere that has Unix sockets.
  for (const tempRoot of [os.tmpdir(), '/tmp']) {
    const candidate = path.join(tempRoot, `${privateDirPrefix}XXXXXX`, socketFileName);
    if (Buffer.byteLength(candidate) > maxSocketPathBytes) continue;
    const privateDir = fs.mkdtempSync(path.join(tempRoot, privateDirPrefix));
    // mkdtemp creates it 0700; say so explicitly rather than rely on it (and on the umask).
    fs.chmodSync(privateDir, 0o700);
    return { socketPath: path.join(privateDir, socketFileName), privateDir };
  }
  throw new Error(`no folder gives a socket path under ${maxSocketPathBytes} bytes for ${foremanDir}; set TMPDIR to a short folder.`);
}

/** Removes the socket and, if one was made, its private folder. */
export function removeSocketLocation(location: SocketLocation): void {
  fs.rmSync(location.socketPath, { force: true });
  if (location.privateDir) removePrivateDir(location.privateDir);
}

/**
 * Removes the private socket folder of an owner that died without cleaning up (named in its
 * endpoint.json), but only what this code made: a real folder of this user, with the private
 * prefix, holding at most the socket. Anything else at that path is left alone.
 */
export function removeStalePrivateDir(privateDir: string): void {
  try {
    const stat = fs.lstatSync(privateDir);
    const mine = process.getuid === undefined || stat.uid === process.getuid();
    if (!stat.isDirectory() || !mine || !path.basename(privateDir).startsWith(privateDirPrefix)) return;
  } catch {
    return;
  }
  removePrivateDir(privateDir);
}

function removePrivateDir(privateDir: string): void {
  fs.rmSync(path.join(privateDir, socketFileName), { force: true });
  try {
    fs.rmdirSync(privateDir);
  } catch {
    // Not empty (something else was put there) or already gone: leave it.
  }
}
