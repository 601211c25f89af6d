import type { DashboardDelta, DashboardSnapshot, FolderDelta, FolderView, WorkerCard } from './protocol';

/**
 * Deltas between two dashboard snapshots, shared by the host (which makes them) and the webview
 * (which applies them), so that `applyDashboardDelta(a, dashboardDelta(a, b))` is `b` by
 * construction (test/unit/dashboard/dashboardDelta.test.ts holds it to that).
 */

type FolderKey = Exclude<keyof FolderView, 'workers'>;

/**
 * What changed from `before` to `after`, or undefined when only a full snapshot says it (no folder
 * on either side, or another folder shown). Fields compare by their JSON: sections are small (a
 * page of each list), and a field that did not change is not sent.
 */
export function dashboardDelta(before: DashboardSnapshot, after: DashboardSnapshot): DashboardDelta | undefined {
  if (!before.folder || !after.folder || before.folder.root !== after.folder.root) return undefined;
  const folder: Record<string, unknown> = {};
  for (const key of Object.keys(after.folder) as Array<keyof FolderView>) {
    if (key === 'workers') continue;
    if (!same(before.folder[key], after.folder[key])) folder[key] = after.folder[key];
  }
  const workers = workersDelta(before.folder.workers, after.folder.workers);
  const delta: DashboardDelta = { generatedAt: after.generatedAt, folder };
  if (workers) delta.folder.workers = workers;
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
  const { workers, ...fields } = delta.folder;
  const folder: FolderView = { ...held.folder, ...(fields as Partial<Pick<FolderView, FolderKey>>) };
  if (workers) {
    const cards = new Map(held.folder.workers.items.map((card) => [card.id, card]));
    for (const card of workers.cards) cards.set(card.id, card);
    const ids = workers.ids ?? held.folder.workers.items.map((card) => card.id);
    folder.workers = {
      total: workers.total,
      page: workers.page,
      pageSize: workers.pageSize,
      items: ids.map((id) => {
        const card = cards.get(id);
        if (!card) throw new Error(`a delta names worker ${id} without its card`);
        return card;
      }),
    };
  }
  return {
    generatedAt: delta.generatedAt,
    folders: delta.folders ?? held.folders,
    view: delta.view ?? held.view,
    folder,
  };
}

function workersDelta(before: FolderView['workers'], after: FolderView['workers']): FolderDelta['workers'] {
  const held = new Map(before.items.map((card) => [card.id, JSON.stringify(card)]));
  const cards: WorkerCard[] = after.items.filter((card) => held.get(card.id) !== JSON.stringify(card));
  const sameIds = before.items.length === after.items.length && before.items.every((card, index) => card.id === after.items[index]?.id);
  const samePage = before.total === after.total && before.page === after.page && before.pageSize === after.pageSize;
  if (!cards.length && sameIds && samePage) return undefined;
  return {
    total: after.total,
    page: after.page,
    pageSize: after.pageSize,
    ...(sameIds ? {} : { ids: after.items.map((card) => card.id) }),
    cards,
  };
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
