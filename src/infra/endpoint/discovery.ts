/**
 * How clients find the owner: `endpoint.json` plus the secret in `endpoint.token` (the owner
 * writes both, announcement.ts). Node built-ins only, so the thin CLI can read them.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type EndpointInfo, endpointFileName, readEndpointInfoValue, tokenFileName } from './wire';

export interface Announcement {
  readonly info: EndpointInfo;
  readonly token: string;
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
    return readEndpointInfoValue(JSON.parse(fs.readFileSync(path.join(foremanDir, endpointFileName), 'utf8')));
  } catch (error) {
    if (isPermissionError(error)) throw error;
    return undefined;
  }
}
