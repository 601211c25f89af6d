import { z } from 'zod';
import { attentionItemSchema, chainViewSchema, dashboardSnapshotSchema, folderViewSchema, workerCardSchema } from './dashboardSnapshot';
import { actionNameSchema, fields } from './protocolFields';
import { viewStateSchema } from './viewState';

/**
 * The dashboard's only contract between the extension host and the webview (STYLE rule 7). Both
 * sides parse what they receive with these schemas; anything that does not parse is dropped and
 * logged, never acted upon. The host answers the webview's `ready` with a full snapshot, then sends
 * deltas against the revision before (what changed: sections, and the worker cards that differ);
 * a webview that does not hold that revision (it was hidden, or reloaded) sends `ready` again and
 * gets a full snapshot. The webview sends its view state, actions and errors.
 *
 * Both sides import the contract from here; its parts are declared beside it: the common fields
 * and action names (protocolFields.ts), the view state (viewState.ts) and the snapshot
 * (dashboardSnapshot.ts). Deltas and the messages themselves are below.
 */

/** Bump when a message changes shape; a webview of another version is answered with nothing. */
export const protocolVersion = 8;

const { id, folderRoot, text, epochMs, count } = fields;

export { ActionName, actionNameSchema, livenessSchema, taskStatusSchema, workerStateSchema } from './protocolFields';
export { type ViewState, defaultViewState, pageSizes, taskTabOrder, viewStateSchema } from './viewState';
export {
  type AttentionItem,
  type ChainView,
  type DashboardSnapshot,
  type FolderView,
  type OwnerCard,
  type Stats,
  type TaskItem,
  type TransitionItem,
  type WorkerCard,
  attentionItemSchema,
  chainViewSchema,
  dashboardSnapshotSchema,
  folderViewSchema,
  hostOwnerSchema,
  ownerCardSchema,
  statsSchema,
  taskItemSchema,
  transitionItemSchema,
  workerCardSchema,
} from './dashboardSnapshot';

// ---------------------------------------------------------------- deltas (host → webview)

/**
 * A list in a delta: the items that are new or differ from those held (by key: a worker's id, a
 * chain's parent id, an attention item's kind and ids), and the keys in order when they changed.
 */
const listDeltaSchema = <T extends z.ZodType>(item: T) =>
  z.object({
    /** The list's keys in order, when they are not the ones held. */
    keys: z.array(z.string().max(300)).max(1000).optional(),
    /** Each with its key (repeated keys are told apart by occurrence: "a", "a#2"). */
    changed: z.array(z.object({ key: z.string().max(300), item })).max(1000),
  });
const pageDeltaSchema = <T extends z.ZodType>(item: T) => listDeltaSchema(item).extend({ total: count, page: count, pageSize: count });

/**
 * What changed in the folder shown since the revision before: each field given replaces the one
 * held; the long lists (worker cards, chains, what needs you) carry only the items that changed.
 */
export const folderDeltaSchema = folderViewSchema
  .omit({ workers: true, chains: true, attention: true })
  .partial()
  .extend({
    workers: pageDeltaSchema(workerCardSchema).optional(),
    chains: pageDeltaSchema(chainViewSchema).optional(),
    attention: listDeltaSchema(attentionItemSchema).optional(),
  });
export type FolderDelta = z.infer<typeof folderDeltaSchema>;

export const dashboardDeltaSchema = z.object({
  generatedAt: epochMs,
  folders: dashboardSnapshotSchema.shape.folders.optional(),
  view: viewStateSchema.optional(),
  folder: folderDeltaSchema,
});
export type DashboardDelta = z.infer<typeof dashboardDeltaSchema>;

// ---------------------------------------------------------------- messages

export const actionTargetSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('worker'), id }),
  z.object({ kind: z.literal('task'), id }),
  z.object({ kind: z.literal('folder') }),
  /** A pair of overlapping tasks: `id` is the task acted on, `other` the one it overlaps. */
  z.object({ kind: z.literal('overlap'), id, other: id }),
]);
export type ActionTarget = z.infer<typeof actionTargetSchema>;

/** Messages from the webview. */
export const webviewMessageSchema = z.discriminatedUnion('type', [
  /** The webview has loaded (again) and wants a snapshot; carries its saved view state. */
  z.object({ type: z.literal('ready'), protocol: z.literal(protocolVersion), view: viewStateSchema.optional() }),
  /** The person changed what they look at (folder, page, filter). */
  z.object({ type: z.literal('view'), view: viewStateSchema }),
  /** Do something; answered by one `actionResult` with the same `requestId`. */
  z.object({
    type: z.literal('action'),
    requestId: z.string().regex(/^[A-Za-z0-9-]{1,64}$/),
    folder: folderRoot,
    action: actionNameSchema,
    target: actionTargetSchema,
    /** Request changes: the reviewer's note for the agent; Send message: the message for it. */
    note: z.string().trim().min(1).max(10_000).optional(),
  }),
  /** Something failed inside the webview; the host writes it to its log. */
  z.object({ type: z.literal('error'), message: z.string().max(2000) }),
]);
export type WebviewMessage = z.infer<typeof webviewMessageSchema>;

/** Messages from the host. */
export const hostMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('snapshot'), revision: count, snapshot: dashboardSnapshotSchema }),
  /** Changes against `baseRevision`; a webview holding another revision asks again with `ready`. */
  z.object({ type: z.literal('delta'), revision: count, baseRevision: count, delta: dashboardDeltaSchema }),
  z.object({ type: z.literal('actionResult'), requestId: z.string().max(64), ok: z.boolean(), message: text.optional() }),
]);
export type HostMessage = z.infer<typeof hostMessageSchema>;

/** A handler for every message type: adding a type without handling it is a compile error. */
export type HandlerMap<M extends { type: string }> = { readonly [K in M['type']]: (message: Extract<M, { type: K }>) => void };

/** Parses and dispatches one message; returns the problem when it does not parse. */
export function dispatchMessage<M extends { type: string }>(
  schema: z.ZodType<M>,
  handlers: HandlerMap<M>,
  raw: unknown,
): { ok: true } | { ok: false; problem: string } {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    return {
      ok: false,
      problem: parsed.error.issues
        .slice(0, 3)
        .map((issue) => `${issue.path.join('.') || 'message'}: ${issue.message}`)
        .join('; '),
    };
  }
  const message = parsed.data;
  (handlers[message.type as M['type']] as (message: M) => void)(message);
  return { ok: true };
}
