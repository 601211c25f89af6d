/**
 * The notification a PgStore write sends to the other owners (pgStore.ts) and their listeners read
 * (listener.ts), issue 14 and 29. It says who wrote, which workers and tasks changed, and what the
 * others must do about it, so that an owner acts only on what concerns it and reads only the rows it
 * shows: `d` whether work may have become runnable (their dispatchers run), `l` the workers whose
 * liveness deadline may have come nearer (their monitors read those), `h` the hosts of the changed
 * workers (only those machines' owners look at the workers' agents). A payload without a field is
 * read as "not known": the receiver does what it would for any change.
 */
import { z } from 'zod';
import type { ChangedRows } from '../../engine/ports';

/** The channel every owner of a database listens on. */
export const notifyChannel = 'foreman';

/**
 * PostgreSQL refuses payloads of 8000 bytes or more; a longer list of ids is left out (the others
 * read everything). The hosts the statement adds (a few names) fit in what is left.
 */
const maxPayloadChars = 6500;

/** What a notification carries: the writing owner, and the rows it changed when they are known and few. */
export interface ChangeNotice {
  readonly owner: string;
  readonly changed?: ChangedRows;
}

/**
 * The payload: `{"o":owner,"w":[workers],"t":[tasks],"d":0|1,"l":[workers]}`, or `{"o":owner}`
 * when the rows are unknown or too many. `h` is added by the statement itself (`notifySql`).
 */
export function encodeNotice(owner: string, changed: ChangedRows | undefined): string {
  const bare = JSON.stringify({ o: owner });
  if (!changed) return bare;
  const full = JSON.stringify({
    o: owner,
    w: changed.workers,
    t: changed.tasks,
    ...(changed.mayHaveWork !== undefined ? { d: changed.mayHaveWork ? 1 : 0 } : {}),
    ...(changed.liveness !== undefined ? { l: changed.liveness } : {}),
  });
  return full.length <= maxPayloadChars ? full : bare;
}

/**
 * Sends the notice (`$1` the channel, `$2` the payload) at the commit of the write it is part of,
 * with the hosts of the workers it names looked up in the same statement: no round trip of its own.
 */
export const notifySql = `SELECT pg_notify($1::text, CASE WHEN ($2::text::json -> 'w') IS NULL THEN $2::text ELSE
    left($2::text, -1) || ',"h":' || COALESCE((SELECT json_agg(DISTINCT host)::text FROM workers
      WHERE id IN (SELECT json_array_elements_text($2::text::json -> 'w'))), '[]') || '}' END)`;

/**
 * `notifySql` for a change only views want unless it moved another machine's worker
 * (`ChangedRows.onlyForViews`; `$3` the writing owner's id): sent only if one of the workers it names
 * is not on the writer's host (by its `owners` row; none yet: sent). Otherwise nothing is sent, and
 * the commit skips PostgreSQL's notification queue, whose lock serializes every notifying commit
 * of the database (issue 29: claims on one machine do not wait for each other's on another).
 */
export const notifyOffHostSql = `${notifySql}
  WHERE EXISTS (SELECT 1 FROM workers WHERE id IN (SELECT json_array_elements_text($2::text::json -> 'w'))
    AND host IS DISTINCT FROM (SELECT host FROM owners WHERE id = $3::text))`;

/** The statement that announces `changed`, written by owner `ownerId`, to the other owners. */
export function notifyStatement(ownerId: string, changed: ChangedRows | undefined): { sql: string; params: string[] } {
  const payload = encodeNotice(ownerId, changed);
  // Rows too many to name: the others read everything, so it goes whatever it moved.
  const named = changed !== undefined && payload !== encodeNotice(ownerId, undefined);
  return changed?.onlyForViews && named
    ? { sql: notifyOffHostSql, params: [notifyChannel, payload, ownerId] }
    : { sql: notifySql, params: [notifyChannel, payload] };
}

const idList = z.array(z.string().max(200)).max(10_000);
/** A payload as `encodeNotice` and `notifySql` write it; anything else is read as "something changed". */
const payloadSchema = z.object({
  o: z.string(),
  w: idList.optional(),
  t: idList.optional(),
  d: z.union([z.literal(0), z.literal(1)]).optional(),
  l: idList.optional(),
  h: z.array(z.string().max(200).nullable()).max(10_000).optional(),
});

/** A notification's payload; an unreadable one still counts as a change from nobody known. */
export function decodeNotice(payload: string | undefined): ChangeNotice {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload ?? '');
  } catch {
    return { owner: '' };
  }
  const notice = payloadSchema.safeParse(parsed);
  if (!notice.success) return { owner: '' };
  const { o, w, t, d, l, h } = notice.data;
  if (!w || !t) return { owner: o };
  const changed: ChangedRows = {
    workers: w,
    tasks: t,
    ...(d !== undefined ? { mayHaveWork: d === 1 } : {}),
    ...(l ? { liveness: l } : {}),
    ...(h ? { hosts: h } : {}),
  };
  return { owner: o, changed };
}
