import * as net from 'node:net';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type Announcement, isPermissionError, readAnnouncement } from './discovery';
import { LineBuffer } from './lineBuffer';
import type { CommandName, RequestOf } from '../../core/requests';
import { type EndpointAnswer, type EndpointResponse, endpointFileName, readEndpointResponse, tokenFileName } from './wire';
import { type FolderIdentity, describeFolder, folderIdentityOf, sameFolder } from '../workspace/folderIdentity';

/** Where to send and the secret to send with it. */
export interface EndpointAddress {
  readonly socketPath: string;
  readonly token: string;
  /** The `.foreman/` folder the owner was found in, sent along so the owner refuses to serve another's. */
  readonly folder?: FolderIdentity;
}

export type SendOutcome =
  /** The owner answered (which may itself be a failure result). */
  | { readonly kind: 'response'; readonly response: EndpointResponse }
  /** Nothing was sent: no announcement, or no process listening. Safe to execute elsewhere. */
  | { readonly kind: 'unreachable'; readonly reason: string }
  /** Nothing was sent: this user may not read the token or open the socket (another user's owner). */
  | { readonly kind: 'denied'; readonly reason: string; readonly path: string }
  /** The request went out but no valid answer came back; it may or may not have been applied. */
  | { readonly kind: 'failed'; readonly reason: string };

export interface SendOptions {
  readonly timeoutMs: number;
}

/** Responses can be large (a long transitions listing) but not unbounded. */
const maxResponseBytes = 256 * 1024 * 1024;

/** Sends one request to the owner announced in `foremanDir/endpoint.json`. */
export async function sendRequest(foremanDir: string, request: unknown, options: SendOptions): Promise<SendOutcome> {
  let announcement: Announcement | undefined;
  try {
    announcement = readAnnouncement(foremanDir);
  } catch (error) {
    if (!isPermissionError(error)) throw error;
    const file = error.path ?? foremanDir;
    return {
      kind: 'denied',
      reason: permissionReason(path.basename(file) === tokenFileName ? 'the token' : 'the announcement', file),
      path: file,
    };
  }
  if (!announcement) return { kind: 'unreachable', reason: 'no endpoint is announced in endpoint.json' };
  const here = folderIdentityOf(foremanDir);
  const served = announcement.info.folder;
  // A copy of the folder carries the original owner's announcement and token: never follow them there.
  if (here && served && !sameFolder(here, served)) {
    return {
      kind: 'unreachable',
      reason:
        `${path.join(foremanDir, endpointFileName)} announces the owner of another folder (${describeFolder(served)}; this one is ` +
        `${describeFolder(here)}): it was copied along with the folder, so it is ignored`,
    };
  }
  const address = { socketPath: announcement.info.socketPath, token: announcement.token, ...(here ? { folder: here } : {}) };
  return sendToEndpoint(address, request, options);
}

/** Sends one request line to a socket and reads one response line. */
export function sendToEndpoint(address: EndpointAddress, request: unknown, options: SendOptions): Promise<SendOutcome> {
  return new Promise((resolve) => {
    const socket = net.createConnection(address.socketPath);
    const lines = new LineBuffer(maxResponseBytes);
    let connected = false;
    let settled = false;
    const finish = (outcome: SendOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    // A raw timer (eslint.config.mjs rawTimerFiles): the thin CLI bundles this file and nothing of the engine, its clock included.
    const timer = setTimeout(() => {
      finish(
        connected
          ? {
              kind: 'failed',
              reason: `the owner did not answer within ${options.timeoutMs} ms; the request may or may not have been applied`,
            }
          : { kind: 'unreachable', reason: `could not connect to ${address.socketPath} within ${options.timeoutMs} ms` },
      );
    }, options.timeoutMs);
    socket.on('connect', () => {
      connected = true;
      const folder = address.folder ? { folder: address.folder } : {};
      socket.write(`${JSON.stringify({ token: address.token, request, ...folder })}\n`);
    });
    socket.on('data', (chunk: Buffer) => {
      const { lines: complete, overflow } = lines.push(chunk);
      if (overflow) return finish({ kind: 'failed', reason: 'the owner sent an oversized response' });
      const [first] = complete;
      if (first === undefined) return;
      finish(parseResponse(first));
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // Before the connection exists nothing was sent, so the caller may safely go elsewhere.
      if (!connected && isPermissionError(error))
        finish({ kind: 'denied', reason: permissionReason('the socket', address.socketPath), path: address.socketPath });
      else if (!connected) finish({ kind: 'unreachable', reason: `${address.socketPath}: ${error.code ?? error.message}` });
      else finish({ kind: 'failed', reason: `the connection to the owner failed: ${error.message}` });
    });
    socket.on('close', () => finish({ kind: 'failed', reason: 'the owner closed the connection without answering' }));
  });
}

function parseResponse(line: string): SendOutcome {
  try {
    const response = readEndpointResponse(JSON.parse(line));
    if (response) return { kind: 'response', response };
  } catch {
    // Falls through to the failure below.
  }
  return { kind: 'failed', reason: 'the owner sent a response that is not valid' };
}

/** "permission denied on the token (…): …", saying whose it is when that is known. */
function permissionReason(what: string, file: string): string {
  let owner: number | undefined;
  try {
    owner = fs.statSync(file).uid;
  } catch {
    owner = undefined;
  }
  const me = process.getuid?.();
  const whose =
    owner !== undefined && me !== undefined && owner !== me
      ? `the owner of this workspace runs as uid ${owner} and you are uid ${me}`
      : 'the owner of this workspace runs as another user';
  return `permission denied on ${what} (${file}): ${whose}; run foreman as that user`;
}

/**
 * The owner's answer to `request`, typed by its command. The wire's one point of trust: the
 * envelope was read with `readEndpointResponse`, and the owner's engine answered this very
 * request with its result for this command (`ResultOf`, its answer schema).
 */
export function answerTo<C extends CommandName>(request: RequestOf<C>, response: EndpointResponse): EndpointAnswer<C> {
  return answerFor(request.command, response);
}

/** `answerTo` for a request sent before parsing (the thin CLI's): the owner parsed it as `command`. */
export function answerFor<C extends CommandName>(_command: C, response: EndpointResponse): EndpointAnswer<C> {
  return response.result as EndpointAnswer<C>;
}
