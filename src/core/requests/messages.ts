import { z } from 'zod';
import { agentIdSchema } from '../ids';
import { maxPayloadDepth, nestingDepth } from '../payloadDepth';
import { contract } from './fields';

const messageTypeSchema = z.string().regex(/^[a-z][a-z0-9_.-]{0,63}$/, 'a message type is lowercase letters, digits, _ . -');

/** One message of the bus as `poll` hands it out. */
export const busMessageSchema = z.strictObject({
  seq: z.number(),
  id: z.string(),
  ts: z.number(),
  from: z.string(),
  to: z.string().nullable(),
  type: z.string(),
  correlationId: z.string().nullable(),
  inReplyTo: z.string().nullable(),
  payload: z.unknown(),
});

/** The message bus between agents, people and tools: each command's request schema beside its answer's. */
export const messageContracts = {
  send: contract(
    z.object({
      from: agentIdSchema,
      to: agentIdSchema.optional(),
      type: messageTypeSchema,
      payload: z
        .unknown()
        .optional()
        .refine((payload) => nestingDepth(payload, maxPayloadDepth) <= maxPayloadDepth, {
          message: `a payload nests at most ${maxPayloadDepth} arrays or objects deep; flatten it`,
        }),
      id: z.uuid('a message id is a UUID').optional(),
      correlationId: z.string().max(200).optional(),
      inReplyTo: z.string().max(200).optional(),
    }),
    z.strictObject({ seq: z.number(), id: z.string(), duplicate: z.boolean() }),
  ),
  poll: contract(
    z.object({ agent: agentIdSchema, limit: z.number().int().min(1).max(1000).default(100) }),
    z.strictObject({ cursor: z.number(), messages: z.array(busMessageSchema) }),
  ),
  ack: contract(
    z.object({ agent: agentIdSchema, seq: z.number().int().min(0) }),
    z.strictObject({ cursor: z.number(), moved: z.boolean() }),
  ),
  compact: contract(z.object({}), z.strictObject({ removed: z.number(), below: z.number() })),
};
