import type { AttentionItem, ChainView, DashboardDelta, DashboardSnapshot, FolderDelta, FolderView, WorkerCard } from './protocol';

/**
 * Deltas between two dashboard snapshots, shared by the host (which makes them) and the webview
 * (which applies them), so that `applyDashboardDelta(a, dashboardDelta(a, b))` is `b` by
 * construction (test/unit/dashboard/dashboardDelta.test.ts holds it to that).
 */

/** The lists sent item by item, each with the key that names an item. */
const keyOf = {
  workers: (card: WorkerCard) => card.id,
  chains: (chain: ChainView) => chain.parent.id,
  attention: (item: AttentionItem) => `${item.kind}:${item.workerId ?? ''}:${item.taskId ?? ''}`,
} as const;
type ListName = keyof typeof keyOf;
const listNames = Object.keys(keyOf) as ListName[];

interface ListDelta<T> {
  keys?: string[];
  changed: Array<{ key: string; item: T }>;
}

/**
 * What changed from `before` to `after`, or undefined when only a full snapshot says it (no folder
 * on either side, or another folder shown). Fields compare by their JSON: a field that did not
 * change is not sent, and in the long lists only the items that changed are.
 */
export function dashboardDelta(before: DashboardSnapshot, after: DashboardSnapshot): DashboardDelta | undefined {
  if (!before.folder || !after.folder || before.folder.root !== after.folder.root) return undefined;
  const folder: FolderDelta = {};
  const fields: Record<string, unknown> = folder;
  for (const key of Object.keys(after.folder) as Array<keyof FolderView>) {
    if ((listNames as string[]).includes(key)) continue;
    if (!same(before.folder[key], after.folder[key])) fields[key] = after.folder[key];
  }
  const workers = pageDelta(before.folder.workers, after.folder.workers, keyOf.workers);
  if (workers) folder.workers = workers;
  const chains = pageDelta(before.folder.chains, after.folder.chains, keyOf.chains);
  if (chains) folder.chains = chains;
  const attention = listDelta(before.folder.attention, after.folder.attention, keyOf.attention);
  if (attention) folder.attention = attention;
  const delta: DashboardDelta = { generatedAt: after.generatedAt, folder };
  if (!same(before.folders, after.folders)) delta.folders = after.folders;
  if (!same(before.view, after.view)) delta.view = after.view;
  return delta;
}

/** Whether a delta carries nothing but the time it was made. */
export function isEmptyDelta(delta: DashboardDelta): boolean {
  return !delta.folders && !delta.view && Object.keys(delta.folder).length === 0;
}

/** `held` with the delta applied; `held` must be the snapshot the delta was made against. */
export function applyDashboardDelta(held: DashboardSnapshot, delta: DashboardDelta): DashboardSnapshot {
  if (!held.folder) throw new Error('a delta needs a folder to apply to');
  const { workers, chains, attention, ...fields } = delta.folder;
  const folder: FolderView = { ...held.folder, ...fields };
  if (workers) folder.workers = applyPage(held.folder.workers, workers, keyOf.workers);
  if (chains) folder.chains = applyPage(held.folder.chains, chains, keyOf.chains);
  if (attention) folder.attention = applyList(held.folder.attention, attention, keyOf.attention);
  return { generatedAt: delta.generatedAt, folders: delta.folders ?? held.folders, view: delta.view ?? held.view, folder };
}

interface Page<T> {
  readonly total: number;
  readonly page: number;
  readonly pageSize: number;
  readonly items: T[];
}

function pageDelta<T>(before: Page<T>, after: Page<T>, key: (item: T) => string): (ListDelta<T> & Omit<Page<T>, 'items'>) | undefined {
  const items = listDelta(before.items, after.items, key);
  const samePage = before.total === after.total && before.page === after.page && before.pageSize === after.pageSize;
  if (!items && samePage) return undefined;
  return { total: after.total, page: after.page, pageSize: after.pageSize, ...(items ?? { changed: [] }) };
}

function applyPage<T>(held: Page<T>, delta: ListDelta<T> & Omit<Page<T>, 'items'>, key: (item: T) => string): Page<T> {
  return { total: delta.total, page: delta.page, pageSize: delta.pageSize, items: applyList(held.items, delta, key) };
}

function listDelta<T>(before: readonly T[], after: readonly T[], key: (item: T) => string): ListDelta<T> | undefined {
  const held = new Map(keyed(before, key).map(([k, item]) => [k, JSON.stringify(item)]));
  const now = keyed(after, key);
  const changed = now.flatMap(([k, item]) => (held.get(k) === JSON.stringify(item) ? [] : [{ key: k, item }]));
  const heldKeys = [...held.keys()];
  const sameKeys = heldKeys.length === now.length && now.every(([k], index) => k === heldKeys[index]);
  if (!changed.length && sameKeys) return undefined;
  return { ...(sameKeys ? {} : { keys: now.map(([k]) => k) }), changed };
}

function applyList<T>(held: readonly T[], delta: ListDelta<T>, key: (item: T) => string): T[] {
  const items = new Map(keyed(held, key));
  for (const entry of delta.changed) items.set(entry.key, entry.item);
  return (delta.keys ?? keyed(held, key).map(([k]) => k)).map((k) => {
    const item = items.get(k);
    if (item === undefined) throw new Error(`a delta names ${k} without its item`);
    return item;
  });
}

/** Each item with its key, made unique by occurrence ("a", "a#2") so that repeated keys stay apart. */
function keyed<T>(items: readonly T[], key: (item: T) => string): Array<[string, T]> {
  const seen = new Map<string, number>();
  return items.map((item) => {
    const base = key(item);
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return [n === 1 ? base : `${base}#${n}`, item];
  });
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
