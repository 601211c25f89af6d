/**
 * The local endpoint's wire format: newline-delimited JSON over a Unix domain socket. One request
 * line `{ token, request }` gets one response line `{ ok, exitCode, result }`. These zod schemas
 * are the contract: the owner parses every request line with them; clients read responses and the
 * announcement with the zod-free readers in wire.ts, which a unit test holds to these schemas.
 */
import { z } from 'zod';
import type { EndpointInfo, EndpointResponse } from './wire';

export {
  endpointFileName,
  maxLineBytes,
  socketFileName,
  tokenFileName,
  type EndpointAnswer,
  type EndpointInfo,
  type EndpointResponse,
  type EndpointResult,
  type UnexpectedFailure,
} from './wire';

/** A folder's device and inode in decimal (folderIdentity.ts). */
const folderIdentitySchema = z.object({ dev: z.string().regex(/^\d{1,20}$/), ino: z.string().regex(/^\d{1,20}$/) });

/** One request line. The token is optional here so that a missing one reads as a bad token, not as bad JSON. */
export const endpointRequestSchema = z.object({
  token: z.string().max(1024).optional(),
  request: z.unknown(),
  /** The `.foreman/` folder the client found this owner in; absent when it was given an endpoint (FOREMAN_ENDPOINT). */
  folder: folderIdentitySchema.optional(),
});

const failureSchema = z.object({
  ok: z.literal(false),
  kind: z.enum(['invalid', 'refused', 'notFound', 'unexpected']),
  code: z.string(),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});
const successSchema = z.object({ ok: z.literal(true), value: z.unknown() });

/** One response line: the engine's result and the exit code a CLI should end with. */
export const endpointResponseSchema: z.ZodType<EndpointResponse> = z.object({
  ok: z.boolean(),
  exitCode: z.number().int().min(0).max(255),
  result: z.union([successSchema, failureSchema]),
});

/** `.foreman/endpoint.json`: where the owner listens. The token is kept apart, in a 0600 file. */
export const endpointInfoSchema: z.ZodType<EndpointInfo> = z.object({
  socketPath: z.string().min(1),
  /** The private folder made for the socket when `.foreman/` gives too long a path; removed on close. */
  socketDir: z.string().min(1).optional(),
  pid: z.number().int().positive(),
  startedAt: z.number(),
  /** The `.foreman/` folder this owner serves; a client in another folder (a copy) ignores the announcement. */
  folder: folderIdentitySchema.optional(),
});
