import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../fs';
import { type EndpointInfo, endpointFileName, readEndpointInfoValue, tokenFileName } from './wire';

/** How clients find the owner: the readers live apart (discovery.ts) so the thin CLI loads only them. */
export { type Announcement, isPermissionError, readAnnouncement, readEndpointInfo } from './discovery';

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

/** Removes the announcement if it is still this process's (a newer owner's must survive). */
export function withdrawAnnouncement(foremanDir: string, pid: number): void {
  const file = path.join(foremanDir, endpointFileName);
  try {
    const info = readEndpointInfoValue(JSON.parse(fs.readFileSync(file, 'utf8')));
    if (info && info.pid !== pid) return;
  } catch {
    // Missing or unreadable: nothing of ours to keep.
  }
  fs.rmSync(file, { force: true });
  fs.rmSync(path.join(foremanDir, tokenFileName), { force: true });
}
