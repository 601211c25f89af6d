/**
 * The zod-free readers the clients use (wire.ts) read responses and announcements exactly as the
 * zod schemas that declare them (protocol.ts): the same values accepted, the same fields kept.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { endpointInfoSchema, endpointResponseSchema } from '../../../src/infra/endpoint/protocol';
import { readEndpointInfoValue, readEndpointResponse } from '../../../src/infra/endpoint/wire';

const failure = { ok: false, kind: 'refused', code: 'illegalTransition', message: 'no' };
const responses: unknown[] = [
  { ok: true, exitCode: 0, result: { ok: true, value: { id: 'w1', state: 'IDLE' } } },
  { ok: true, exitCode: 0, result: { ok: true, value: null } },
  { ok: true, exitCode: 0, result: { ok: true } },
  { ok: true, exitCode: 0, result: { ok: true, value: [1, 2], extra: 'dropped' }, extra: 'dropped' },
  { ok: false, exitCode: 3, result: failure },
  { ok: false, exitCode: 3, result: { ...failure, details: { from: 'IDLE' }, extra: 1 } },
  { ok: false, exitCode: 1, result: { ok: false, kind: 'unexpected', code: 'internalError', message: 'boom', details: { a: 1 } } },
  { ok: false, exitCode: 4, result: { ok: false, kind: 'notFound', code: 'workerNotFound', message: 'x', details: undefined } },
  { ok: false, exitCode: 2, result: { ok: false, kind: 'invalid', code: 'badRequest', message: 'x' } },
  // Refused by both:
  { ok: false, exitCode: 3, result: { ...failure, details: [1] } },
  { ok: false, exitCode: 3, result: { ...failure, details: null } },
  { ok: false, exitCode: 3, result: { ...failure, kind: 'other' } },
  { ok: false, exitCode: 3, result: { ...failure, code: 3 } },
  { ok: false, exitCode: 3, result: { ...failure, message: undefined } },
  { ok: false, exitCode: 3, result: { ...failure, ok: true } },
  { ok: false, exitCode: 3, result: { ok: 'true', value: 1 } },
  { ok: false, exitCode: 3, result: null },
  { ok: false, exitCode: 3 },
  { ok: 'false', exitCode: 3, result: failure },
  { ok: false, exitCode: 3.5, result: failure },
  { ok: false, exitCode: -1, result: failure },
  { ok: false, exitCode: 256, result: failure },
  { ok: false, exitCode: '3', result: failure },
  [],
  null,
  'text',
  7,
];

const infos: unknown[] = [
  { socketPath: '/r/.foreman/foreman.sock', pid: 12, startedAt: 1700000000000 },
  { socketPath: '/tmp/foreman-x/foreman.sock', socketDir: '/tmp/foreman-x', pid: 1, startedAt: 0.5, extra: true },
  { socketPath: '/s', socketDir: undefined, pid: 1, startedAt: 1 },
  { socketPath: '/s', pid: 1, startedAt: 1, folder: { dev: '2049', ino: '18446744073709551615' } },
  { socketPath: '/s', pid: 1, startedAt: 1, folder: { dev: '2049', ino: '7', extra: true } },
  { socketPath: '/s', pid: 1, startedAt: 1, folder: undefined },
  { socketPath: '/s', pid: 1, startedAt: 1, folder: { dev: 2049, ino: '7' } },
  { socketPath: '/s', pid: 1, startedAt: 1, folder: { dev: '2049' } },
  { socketPath: '/s', pid: 1, startedAt: 1, folder: { dev: '-1', ino: '7' } },
  { socketPath: '/s', pid: 1, startedAt: 1, folder: null },
  { socketPath: '/s', pid: 1, startedAt: 1, folder: 'dev:ino' },
  { socketPath: '', pid: 12, startedAt: 1 },
  { socketPath: '/s', socketDir: '', pid: 12, startedAt: 1 },
  { socketPath: '/s', socketDir: 3, pid: 12, startedAt: 1 },
  { socketPath: '/s', pid: 0, startedAt: 1 },
  { socketPath: '/s', pid: 1.5, startedAt: 1 },
  { socketPath: '/s', pid: '12', startedAt: 1 },
  { socketPath: '/s', pid: 12 },
  { socketPath: '/s', pid: 12, startedAt: '1' },
  { pid: 12, startedAt: 1 },
  [],
  null,
];

/** What zod makes of a value: the parsed data, or undefined when it refuses it. */
function viaZod(schema: { safeParse(value: unknown): { success: boolean; data?: unknown } }, value: unknown): unknown {
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

describe('endpoint wire readers', () => {
  it('read response lines as endpointResponseSchema does', () => {
    for (const value of responses)
      assert.deepEqual(readEndpointResponse(value), viaZod(endpointResponseSchema, value), JSON.stringify(value));
  });

  it('read endpoint.json as endpointInfoSchema does', () => {
    for (const value of infos) assert.deepEqual(readEndpointInfoValue(value), viaZod(endpointInfoSchema, value), JSON.stringify(value));
  });
});
