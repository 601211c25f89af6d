/**
 * What a client of the local endpoint needs, without zod: the names of the files that announce the
 * owner, the response and announcement types, and readers for both. The thin CLI (src/cli/thin.ts)
 * loads this instead of the zod schemas in protocol.ts, which stay the declared contract; a unit
 * test holds these readers to those schemas. Requests are checked where they are trusted: the
 * owner parses every request line with zod (server.ts) before anything runs.
 */
import type { CommandName, ResultOf } from '../../core/requests';
import type { FailureKind, Result } from '../../core/result';
import { type FolderIdentity, readFolderIdentity } from '../workspace/folderIdentity';

/** The largest request line the owner reads; a longer one is refused and the connection closed. */
export const maxLineBytes = 1024 * 1024;

export const endpointFileName = 'endpoint.json';
export const tokenFileName = 'endpoint.token';
export const socketFileName = 'foreman.sock';

/** An unexpected error in the owner (exit 1): not one of the engine's expected failures. */
export interface UnexpectedFailure {
  readonly ok: false;
  readonly kind: 'unexpected';
  readonly code: string;
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

export type EndpointResult = Result<unknown> | UnexpectedFailure;
/** A command's answer as a caller reads it: its typed result, or a failure. */
export type EndpointAnswer<C extends CommandName> = Result<ResultOf<C>> | UnexpectedFailure;

/** One response line: the engine's result and the exit code a CLI should end with. */
export interface EndpointResponse {
  readonly ok: boolean;
  readonly exitCode: number;
  readonly result: EndpointResult;
}

/** `.foreman/endpoint.json`: where the owner listens. The token is kept apart, in a 0600 file. */
export interface EndpointInfo {
  readonly socketPath: string;
  /** The private folder made for the socket when `.foreman/` gives too long a path; removed on close. */
  readonly socketDir?: string;
  readonly pid: number;
  readonly startedAt: number;
  /**
   * The `.foreman/` folder this owner serves (folderIdentity.ts). A client in another folder (a
   * copy, which carries this file and the token along) ignores the announcement. Absent from an
   * owner older than the check.
   */
  readonly folder?: FolderIdentity;
}

type Fields = Readonly<Record<string, unknown>>;

const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);
const isText = (value: unknown): value is string => typeof value === 'string';
const isFailureKind = (value: unknown): value is FailureKind | 'unexpected' =>
  value === 'invalid' || value === 'refused' || value === 'notFound' || value === 'unexpected';

/** A response line's value as `endpointResponseSchema` reads it (unknown fields dropped), or undefined. */
export function readEndpointResponse(value: unknown): EndpointResponse | undefined {
  if (!isObject(value) || typeof value['ok'] !== 'boolean') return undefined;
  const exitCode = value['exitCode'];
  if (typeof exitCode !== 'number' || !Number.isInteger(exitCode) || exitCode < 0 || exitCode > 255) return undefined;
  const result = readResult(value['result']);
  return result && { ok: value['ok'], exitCode, result };
}

function readResult(value: unknown): EndpointResult | undefined {
  if (!isObject(value)) return undefined;
  // Present even when undefined, as zod 4 reads `value: z.unknown()`.
  if (value['ok'] === true) return 'value' in value ? { ok: true, value: value['value'] } : undefined;
  const { ok, kind, code, message, details } = value;
  if (ok !== false || !isFailureKind(kind) || !isText(code) || !isText(message)) return undefined;
  if (details !== undefined && !isObject(details)) return undefined;
  return { ok, kind, code, message, ...('details' in value ? { details } : {}) };
}

/** `endpoint.json`'s value as `endpointInfoSchema` reads it (unknown fields dropped), or undefined. */
export function readEndpointInfoValue(value: unknown): EndpointInfo | undefined {
  if (!isObject(value)) return undefined;
  const { socketPath, socketDir, pid, startedAt, folder } = value;
  if (!isText(socketPath) || socketPath.length === 0) return undefined;
  if (socketDir !== undefined && (!isText(socketDir) || socketDir.length === 0)) return undefined;
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return undefined;
  if (typeof startedAt !== 'number' || !Number.isFinite(startedAt)) return undefined;
  const identity = readFolderIdentity(folder);
  if (folder !== undefined && !identity) return undefined;
  return {
    socketPath,
    ...('socketDir' in value ? { socketDir } : {}),
    pid,
    startedAt,
    ...('folder' in value ? { folder: identity } : {}),
  };
}
