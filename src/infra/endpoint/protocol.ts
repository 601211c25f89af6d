/**
 * The local endpoint's wire format: newline-delimited JSON over a Unix domain socket. One request
 * line `{ token, request }` gets one response line `{ ok, exitCode, result }`. Both ends parse
 * everything they receive with these schemas.
 */
import { z } from 'zod';
import type { CommandName } from '../../core/requests';
import type { Result } from '../../core/result';
import type { ResultOf } from '../../engine/results';

/** The largest request line the owner reads; a longer one is refused and the connection closed. */
export const maxLineBytes = 1024 * 1024;

export const endpointFileName = 'endpoint.json';
export const tokenFileName = 'endpoint.token';
export const socketFileName = 'foreman.sock';

/** One request line. The token is optional here so that a missing one reads as a bad token, not as bad JSON. */
export const endpointRequestSchema = z.object({ token: z.string().max(1024).optional(), request: z.unknown() });

/** An unexpected error in the owner (exit 1): not one of the engine's expected failures. */
export interface UnexpectedFailure {
  readonly ok: false;
  readonly kind: 'unexpected';
  readonly code: string;
  readonly message: string;
}

export type EndpointResult = Result<unknown> | UnexpectedFailure;
/** A command's answer as a caller reads it: its typed result, or a failure. */
export type EndpointAnswer<C extends CommandName> = Result<ResultOf<C>> | UnexpectedFailure;

const failureSchema = z.object({
  ok: z.literal(false),
  kind: z.enum(['invalid', 'refused', 'notFound', 'unexpected']),
  code: z.string(),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});
const successSchema = z.object({ ok: z.literal(true), value: z.unknown() });

/** One response line: the engine's result and the exit code a CLI should end with. */
export const endpointResponseSchema = z.object({
  ok: z.boolean(),
  exitCode: z.number().int().min(0).max(255),
  result: z.union([successSchema, failureSchema]),
});
export interface EndpointResponse {
  readonly ok: boolean;
  readonly exitCode: number;
  readonly result: EndpointResult;
}

/** `.foreman/endpoint.json`: where the owner listens. The token is kept apart, in a 0600 file. */
export const endpointInfoSchema = z.object({
  socketPath: z.string().min(1),
  /** The private folder made for the socket when `.foreman/` gives too long a path; removed on close. */
  socketDir: z.string().min(1).optional(),
  pid: z.number().int().positive(),
  startedAt: z.number(),
});
export type EndpointInfo = z.infer<typeof endpointInfoSchema>;
