import { integerFlag, parseInteger, stringFlag } from '../argv';
import { defaultMaxPayloadBytes } from '../../core/limits';
import { type Result, invalid, ok } from '../../core/result';
import { draft, readTextFile, required, requiredFlag } from './helpers';
import type { CommandInput, CommandSpec } from './spec';

/** `--payload <json>` or `--payload-file <f>` (argv cannot carry large values), parsed as JSON. */
function payloadOf(input: CommandInput): Result<unknown> {
  const inline = stringFlag(input.argv, 'payload');
  const file = stringFlag(input.argv, 'payload-file');
  if (inline !== undefined && file !== undefined)
    return invalid('conflictingFlags', 'payload: give --payload or --payload-file, not both.');
  const text = file === undefined ? (inline === undefined ? undefined : ok(inline)) : readTextFile('payload-file', file, input.cwd);
  if (text === undefined) return ok(undefined);
  if (!text.ok) return text;
  // Checked here as well as in the engine, so the answer is the same with or without an owner
  // (an owner's endpoint would refuse the oversized line before the engine saw it).
  const limit = defaultMaxPayloadBytes;
  const bytes = Buffer.byteLength(text.value);
  if (bytes > limit)
    return invalid('payloadTooLarge', `payload: ${bytes} bytes is over the limit of ${limit}; put large data in a file and send its path.`);
  try {
    return ok(JSON.parse(text.value) as unknown);
  } catch (error) {
    return invalid('badPayload', `payload: not valid JSON (${(error as Error).message}).`);
  }
}

/** The message bus (seed 002): at-least-once delivery, poll without moving the cursor, ack to move it. */
export const busCommands: readonly CommandSpec[] = [
  {
    kind: 'engine',
    name: 'send',
    usage: '--from <agent> [--to <agent>] --type <type> [--payload <json> | --payload-file <f>] [--id <uuid>]',
    summary: 'publish a message (no --to: broadcast); the same --id twice publishes once',
    flags: {
      from: 'string',
      to: 'string',
      type: 'string',
      payload: 'string',
      'payload-file': 'string',
      id: 'string',
      'correlation-id': 'string',
      'in-reply-to': 'string',
    },
    build: (input) => {
      const from = requiredFlag(input.argv, 'from', 'agent');
      if (!from.ok) return from;
      const type = requiredFlag(input.argv, 'type', 'type');
      if (!type.ok) return type;
      const payload = payloadOf(input);
      if (!payload.ok) return payload;
      return draft('send', {
        from: from.value,
        to: stringFlag(input.argv, 'to'),
        type: type.value,
        payload: payload.value,
        id: stringFlag(input.argv, 'id'),
        correlationId: stringFlag(input.argv, 'correlation-id'),
        inReplyTo: stringFlag(input.argv, 'in-reply-to'),
      });
    },
  },
  {
    kind: 'engine',
    name: 'poll',
    usage: '<agent> [--limit N]',
    summary: 'messages for an agent after its cursor (the cursor does not move)',
    positionals: ['agent'],
    flags: { limit: 'string' },
    build: (input) => {
      const limit = integerFlag(input.argv, 'limit');
      return limit.ok ? draft('poll', { agent: required(input, 'agent'), limit: limit.value }) : limit;
    },
  },
  {
    kind: 'engine',
    name: 'ack',
    usage: '<agent> <seq>',
    summary: "move an agent's cursor forward to seq",
    positionals: ['agent', 'seq'],
    build: (input) => {
      const seq = parseInteger('seq', required(input, 'seq'));
      return seq.ok ? draft('ack', { agent: required(input, 'agent'), seq: seq.value }) : seq;
    },
  },
];
