/**
 * `status` without a limit (`status --all`, issue 34): at 100k tasks one read and its JSON took
 * ~1 s of the owner's thread (26.7 MB), during which no claim or heartbeat was answered. Through
 * the endpoint it is read in pages of `statusPageTasks` in queue order, each page turned into its
 * JSON at once, and the requests that arrived meanwhile run between pages (`between`). The text is
 * what `JSON.stringify(readStatus(…))` gives for the same rows (the CLI prints the same output),
 * kept in parts that the endpoint writes one by one as the socket drains.
 *
 * Pages are keyed on (sort_order, created_at, id), which never change once a task is added, so a
 * task is shown once; each page shows its tasks as they were when it was read, and a task added
 * meanwhile shows when it sorts after the pages read so far.
 */
import type { CommandName, RequestOf } from '../core/requests';
import { readOverlaps } from './overlaps/overlapStore';
import type { Clock } from './ports';
import { type QueueKey, listTaskViewPage } from './queries';
import type { Transactor } from './transactor';
import { SerializedValue } from './serializedValue';
import { type StatusQuery, readStatusHead, taskFilterOf, taskStatusView } from './statusView';

/** Tasks per page: a few ms of the owner's thread (~0.16 MB of JSON). */
export const statusPageTasks = 500;

export { SerializedValue } from './serializedValue';

/**
 * For a `status` request that asks for every task it matches (no limit, no ids): the snapshot
 * `readStatus` would give, as JSON text, read in pages with `between` awaited between them.
 * Undefined for any other request.
 */
export function readStatusInPages(
  tx: Transactor,
  clock: Clock,
  request: { readonly command: CommandName },
  between: () => Promise<void>,
  pageTasks = statusPageTasks,
): Promise<SerializedValue> | undefined {
  if (!isStatus(request)) return undefined;
  const query = request.args;
  return query.limit === undefined && query.ids === undefined ? readInPages(tx, clock, query, between, pageTasks) : undefined;
}

function isStatus(request: { readonly command: CommandName }): request is RequestOf<'status'> {
  return request.command === 'status';
}

async function readInPages(
  tx: Transactor,
  clock: Clock,
  query: StatusQuery,
  between: () => Promise<void>,
  pageTasks: number,
): Promise<SerializedValue> {
  const { head, usage } = tx.read((reader, s) => readStatusHead(reader, s.monitor, clock.now(), query, s.team, readOverlaps(reader)));
  const filter = taskFilterOf(query);
  const pages: string[] = [];
  let after: QueueKey | undefined;
  for (;;) {
    const rows = tx.read((reader) => {
      const page = listTaskViewPage(reader, filter, after, pageTasks);
      const overlapsOf = readOverlaps(reader);
      return page.map((row) => ({ row, json: JSON.stringify(taskStatusView(row, usage, overlapsOf)) }));
    });
    if (rows.length > 0) pages.push(rows.map((task) => task.json).join(','));
    const last = rows.at(-1)?.row;
    if (!last || rows.length < pageTasks) break;
    after = { sortOrder: last.sort_order, createdAt: last.created_at, id: last.id };
    await between();
  }
  const { baseBranch, workers, usage: total, owners } = head;
  const opening = `{"baseBranch":${JSON.stringify(baseBranch)},"workers":${JSON.stringify(workers)},"tasks":[`;
  const closing = `],"usage":${JSON.stringify(total)},"owners":${JSON.stringify(owners)}}`;
  return new SerializedValue([opening, ...pages.map((page, index) => (index === 0 ? page : `,${page}`)), closing]);
}
