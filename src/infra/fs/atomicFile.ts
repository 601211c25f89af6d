/**
 * Crash-safe file replacement (ARCHITECTURE §2): a reader sees the old file or the new one, never
 * a torn mix, and once this returns the new content survives a power cut.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface AtomicWriteOptions {
  /**
   * File mode of the new file. Default: the mode of the file it replaces, else 0o600 — Foreman's
   * state is private to its user (a file outside `.foreman/`, such as git's exclude list, keeps its own).
   */
  readonly mode?: number;
}

/** Writes `data` to a temp file beside `file`, fsyncs it, renames it over `file`, then fsyncs the folder. */
export function writeFileAtomic(file: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  const directory = path.dirname(file);
  // A unique temp name: two writers of the same file must not write into each other's temp.
  const temp = path.join(directory, `.${path.basename(file)}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
  const mode = options.mode ?? existingMode(file) ?? 0o600;
  const fd = fs.openSync(temp, 'wx', mode);
  try {
    fs.writeSync(fd, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    // The umask may have narrowed the mode; a secret must end up exactly as asked, never wider.
    fs.fchmodSync(fd, mode);
    fs.fsyncSync(fd);
  } catch (error) {
    fs.closeSync(fd);
    fs.rmSync(temp, { force: true });
    throw error;
  }
  fs.closeSync(fd);
  try {
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
  fsyncDirectory(directory);
}

function existingMode(file: string): number | undefined {
  try {
    return fs.statSync(file).mode & 0o7777;
  } catch {
    return undefined;
  }
}

/** Makes a rename or a new file in `directory` durable. Some platforms cannot open folders; they need no sync. */
export function fsyncDirectory(directory: string): void {
  let fd: number;
  try {
    fd = fs.openSync(directory, 'r');
  } catch {
    return;
  }
  try {
    fs.fsyncSync(fd);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EINVAL' && code !== 'EPERM' && code !== 'EISDIR') throw error;
  } finally {
    fs.closeSync(fd);
  }
}
