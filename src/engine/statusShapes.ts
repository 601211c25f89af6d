import type { z } from 'zod';
import type {
  lastTaskFailureSchema,
  statusPageSchema,
  statusSnapshotSchema,
  taskStatusViewSchema,
  workerStatusSchema,
} from '../core/requests/statusAnswer';

/**
 * What `foreman status --json` and the views read: the answer of the `status` request (statusView.ts
 * builds it). The shapes are the answer schemas of src/core/requests/statusAnswer.ts, one fact.
 */

/** A worker as `foreman status --json` and the UI show it. */
export type WorkerStatus = z.infer<typeof workerStatusSchema>;
/** A manual task that failed on this worker and waits: what `livenessReason` then says, as data. */
export type LastTaskFailure = z.infer<typeof lastTaskFailureSchema>;
export type TaskStatusView = z.infer<typeof taskStatusViewSchema>;
export type StatusSnapshot = z.infer<typeof statusSnapshotSchema>;
export type StatusPage = z.infer<typeof statusPageSchema>;
