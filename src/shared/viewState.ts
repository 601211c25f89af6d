import { z } from 'zod';
import { fields, taskStatusSchema } from './protocolFields';

/** What the person is looking at on the dashboard (webview → host), part of protocol.ts. */

const { id, folderRoot, count } = fields;

/** The free-task tabs, in the order they show. */
export const taskTabOrder = ['queued', 'running', 'idle', 'failed', 'cancelled', 'done'] as const;

export const pageSizes = { workers: 60, chains: 8, tasks: 50, activityStep: 200, activityMax: 2000 } as const;

/** What the person is looking at: kept by the webview (survives reloads) and applied by the host. */
export const viewStateSchema = z.object({
  /** The folder shown; null: the first one. */
  folder: folderRoot.nullable().default(null),
  workersPage: count.max(100_000).default(0),
  chainsPage: count.max(100_000).default(0),
  /** The free-task tab the person picked, and its page; null until they pick one (the first tab with tasks shows). */
  taskStatus: taskStatusSchema.nullable().default(null),
  taskPage: count.max(100_000).default(0),
  /** Activity timeline filter; null fields match everything. */
  activity: z
    .object({
      worker: id.nullable().default(null),
      task: id.nullable().default(null),
      state: z
        .string()
        .regex(/^[A-Za-z_]{1,32}$/)
        .nullable()
        .default(null),
      limit: z.number().int().min(pageSizes.activityStep).max(pageSizes.activityMax).default(pageSizes.activityStep),
    })
    .default({ worker: null, task: null, state: null, limit: pageSizes.activityStep }),
});
export type ViewState = z.output<typeof viewStateSchema>;
export const defaultViewState: ViewState = viewStateSchema.parse({});
