import { z } from 'zod';
import { usageSchema } from '../agentEvents';
import { taskIdSchema, workerIdSchema } from '../ids';
import { TaskStatus } from '../taskMachine';
import { transitionEventSchema } from '../transitionLog';
import { contract } from './fields';
import { statusSnapshotSchema } from './statusAnswer';

const taskStatuses = Object.values(TaskStatus);
const countsSchema = z.record(z.string(), z.number());

/** Applied transitions, time in state, refusals, queue and usage (seed 004 §7). */
export const metricsSchema = z.strictObject({
  transitions: z.array(z.strictObject({ entity: z.string(), from: z.string(), to: z.string(), count: z.number() })),
  timeInState: z.array(z.strictObject({ entity: z.string(), state: z.string(), count: z.number(), meanMs: z.number(), maxMs: z.number() })),
  rejected: z.strictObject({ total: z.number(), byCode: countsSchema }),
  idempotency: z.strictObject({ hits: z.number(), keys: z.number() }),
  queue: countsSchema,
  /** Tasks finished in the last hour. */
  throughputPerHour: z.number(),
  usage: usageSchema,
  /** Tasks moved to the archive by retention, by the status they finished in. */
  archived: countsSchema,
});

/** Reads, exports and retention: each command's request schema beside its answer's. */
export const readContracts = {
  status: contract(
    z.object({
      /** At most this many tasks; without it, every task matching the filters (what the views read). */
      limit: z.number().int().min(1).max(1_000_000).optional(),
      statuses: z
        .array(z.enum(TaskStatus, { message: `a task status is one of ${taskStatuses.join(', ')}` }))
        .min(1)
        .optional(),
      /** Tasks this worker holds or last held. */
      worker: workerIdSchema.optional(),
      /** Tasks created, started or finished at or after this epoch ms. */
      since: z.number().int().nonnegative().optional(),
      /**
       * Only these rows, found or not (a view's model re-reads what a commit touched; an id that is
       * missing from the answer is gone). The other filters do not apply with it.
       */
      ids: z.object({ workers: z.array(workerIdSchema).max(10_000), tasks: z.array(taskIdSchema).max(10_000) }).optional(),
    }),
    statusSnapshotSchema,
  ),
  transitions: contract(
    z.object({
      entity: z.string().max(63).optional(),
      limit: z.number().int().min(1).max(100_000).default(200),
      /** Only transitions after this seq (a reader that has seen up to it asks for what is new). */
      afterSeq: z.number().int().min(0).optional(),
      /** The latest `limit` transitions instead of the first (a view that shows the recent ones). */
      latest: z.boolean().default(false),
    }),
    z.array(transitionEventSchema),
  ),
  metrics: contract(z.object({}), metricsSchema),
  /** Lines written per stream. */
  export: contract(z.object({}), z.strictObject({ messages: z.number(), transitions: z.number() })),
  /** Retention: one batch of finished work older than the window (the settings' unless given) to the archive. */
  archive: contract(
    z.object({
      olderThanMs: z.number().int().min(0).optional(),
      limit: z.number().int().min(1).max(10_000).default(1000),
    }),
    z.strictObject({
      /** The segment this call wrote; null when nothing was due. */
      batch: z.number().nullable(),
      tasks: z.number(),
      transitions: z.number(),
      messages: z.number(),
      /** Segments a crash left written but not yet applied, applied now. */
      recovered: z.number(),
      /** More is due than one batch took: ask again. */
      more: z.boolean(),
      /** Rows left in the live tables, once nothing more is due. */
      live: z.strictObject({ tasks: z.number(), transitions: z.number(), messages: z.number() }).optional(),
    }),
  ),
  /** What the store records of its archive: its identity, the last segment applied and that segment's hash. */
  'archive.state': contract(z.object({}), z.strictObject({ store: z.string().nullable(), batch: z.number(), hash: z.string().nullable() })),
};
