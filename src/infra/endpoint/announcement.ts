import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../fs';
import { type EndpointInfo, endpointFileName, endpointInfoSchema, tokenFileName } from './protocol';

/** How clients find the owner: `endpoint.json` plus the secret in `endpoint.token`. */
export interface Announcement {
  readonly info: EndpointInfo;
  readonly token: string;
}

/** A fresh secret per owner start: 32 random bytes, hex. */
export function newToken(): string {
  return randomBytes(32).toString('hex');
}

/** The token first (0600), then endpoint.json: a client that sees the announcement can always read a token. */
export function writeToken(foremanDir: string, token: string): void {
  writeFileAtomic(path.join(foremanDir, tokenFileName), `${token}\n`, { mode: 0o600 });
}

export function writeAnnouncement(foremanDir: string, info: EndpointInfo): void {
  writeFileAtomic(path.join(foremanDir, endpointFileName), `${JSON.stringify(info)}\n`, { mode: 0o600 });
}

/** Errors that mean "this user may not read it", not "there is none". */
const deniedCodes: ReadonlySet<string> = new Set(['EACCES', 'EPERM']);

/** Whether an error from reading the announcement means it belongs to another user. */
export function isPermissionError(error: unknown): error is NodeJS.ErrnoException {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code !== undefined && deniedCodes.has(code);
}

/**
 * Undefined when there is no (well-formed) announcement. Throws when this user may not read it
 * (EACCES, EPERM): that is another user's owner, and "nobody answers" would send the caller to wait.
 */
export function readAnnouncement(foremanDir: string): Announcement | undefined {
  const info = readEndpointInfo(foremanDir);
  if (!info) return undefined;
  try {
    const token = fs.readFileSync(path.join(foremanDir, tokenFileName), 'utf8').trim();
    return token ? { info, token } : undefined;
  } catch (error) {
    if (isPermissionError(error)) throw error;
    return undefined;
  }
}

/** `endpoint.json` alone; undefined when missing or malformed, throws when this user may not read it. */
export function readEndpointInfo(foremanDir: string): EndpointInfo | undefined {
  try {
    const info = endpointInfoSchema.safeParse(JSON.parse(fs.readFileSync(path.join(foremanDir, endpointFileName), 'utf8')));
    return info.success ? info.data : undefined;
  } catch (error) {
    if (isPermissionError(error)) throw error;
    return undefined;
  }
}

/** Removes the announcement if it is still this process's (a newer owner's must survive). */
export function withdrawAnnouncement(foremanDir: string, pid: number): void {
  const file = path.join(foremanDir, endpointFileName);
  try {
    const info = endpointInfoSchema.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
    if (info.success && info.data.pid !== pid) return;
  } catch {
    // Missing or unreadable: nothing of ours to keep.
  }
  fs.rmSync(file, { force: true });
  fs.rmSync(path.join(foremanDir, tokenFileName), { force: true });
}
