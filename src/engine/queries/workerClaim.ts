import { randomUUID } from 'node:crypto';
import { branchTemplateParts } from '../../core/branchTemplate';
import type { WorkerState } from '../../core/workerMachine';
import type { NativeSql, Tx } from '../ports';
import { nextRunnableIdSql } from './taskQueue';

/**
 * PostgreSQL only (data-modifying CTEs, which SQLite lacks): `foreman claim` whole, as one
 * statement (issue 29). It reads the worker, takes the next runnable task for it if it is IDLE
 * (`FOR UPDATE SKIP LOCKED`, taskQueue.ts), moves the worker IDLE→ASSIGNED under the same guard as
 * `updateWorkerState`, and writes the task's and the worker's transition rows (in that order, as
 * the three-statement path writes them), the lease row, and the two `state_change` messages the
 * engine broadcasts for those transitions (ARCHITECTURE §7; their events say so, `published`, and
 * the transactor does not write them again). The engine then needs one round trip for the claim and
 * one for the commit, where it needed four; and it reads nothing back: the statement answers what
 * the events and the refusals need.
 *
 * The worker row is read in the statement's snapshot and moved with the row lock (READ COMMITTED
 * re-checks a row another transaction changed meanwhile): a worker that left IDLE between the two
 * answers `moved = 0` with a task taken, and the caller refuses, which rolls the whole write back.
 *
 * Parameters, numbered: 1 worker, 2 now, 3 actor, 4 request id, 5 lease end, 6 this owner's host,
 * 7 the lease holder the worker's work hangs on when it is on that host (or none), 8 the task
 * transition's metadata, 9 and 10 the ids of the task's and the worker's `state_change` messages,
 * then the branch template's literals.
 */
function workerClaimSql(branch: string): string {
  // nextRunnableIdSql's only parameter is the time.
  const nextId = nextRunnableIdSql.postgres.replace(/\?/g, '?2::bigint');
  return `WITH w AS (SELECT state, attempt FROM workers WHERE id = ?1::text),
  claimed AS (UPDATE tasks SET status = 'running', attempt = attempt + 1, started_at = ?2::bigint, finished_at = NULL,
      worker_id = ?1::text, last_worker_id = ?1::text, previous_branch = branch, branch = ${branch}, version = version + 1
    WHERE id = (${nextId}) AND status = 'queued' AND EXISTS (SELECT 1 FROM w WHERE state = 'IDLE')
    RETURNING id, attempt, branch),
  moved AS (UPDATE workers SET state = 'ASSIGNED', state_changed_at = ?2::bigint, version = version + 1, task_id = claimed.id,
      branch = claimed.branch, attempt = claimed.attempt, last_error = NULL, note = NULL, summary = NULL,
      owner_id = CASE WHEN workers.host IS NULL OR workers.host = ?6::text THEN ?7::text END
    FROM claimed WHERE workers.id = ?1::text AND workers.state = 'IDLE'
    RETURNING workers.id),
  audit AS (INSERT INTO transitions (ts_ms, entity_type, entity_id, from_state, to_state, trigger, reason, actor, attempt, request_id, metadata)
    SELECT ?2::bigint, 'task', claimed.id, 'queued', 'running', 'claim', NULL, ?3::text, claimed.attempt, ?4::text, ?8::text FROM claimed
    UNION ALL
    SELECT ?2::bigint, 'worker', ?1::text, 'IDLE', 'ASSIGNED', 'assign', NULL, ?3::text, NULLIF(w.attempt, 0), ?4::text,
      '{"taskId":' || to_json(claimed.id)::text || ',"attempt":' || claimed.attempt || '}' FROM claimed, w, moved),
  lease AS (INSERT INTO task_claims (task_id, claimed_by, attempt, claimed_at_ms, lease_until_ms)
    SELECT id, ?1::text, attempt, ?2::bigint, ?5::bigint FROM claimed
    ON CONFLICT (task_id) DO UPDATE SET claimed_by = excluded.claimed_by, attempt = excluded.attempt,
      claimed_at_ms = excluded.claimed_at_ms, lease_until_ms = excluded.lease_until_ms),
  notes AS (INSERT INTO messages (id, ts_ms, from_agent, to_agent, type, payload)
    SELECT ?9::text, ?2::bigint, 'foreman', NULL, 'state_change',
      '{"entity":"task","id":' || to_json(claimed.id)::text || ',"from":"queued","to":"running","trigger":"claim"}' FROM claimed, moved
    UNION ALL
    SELECT ?10::text, ?2::bigint, 'foreman', NULL, 'state_change',
      '{"entity":"worker","id":' || to_json(?1::text)::text || ',"from":"IDLE","to":"ASSIGNED","trigger":"assign"}' FROM claimed, moved)
  SELECT w.state, claimed.id, claimed.attempt, claimed.branch, (SELECT COUNT(*) FROM moved) AS moved FROM w LEFT JOIN claimed ON TRUE`;
}

/** The one-statement claim for a worker, compiled once per branch template (the branch is built from the task id inside it). */
export interface WorkerClaimStatement {
  /** PostgreSQL's only. */
  readonly sql: NativeSql;
  /** The template's literal parts, in the order of their parameters (11 on). */
  readonly literals: readonly string[];
}

export function compileWorkerClaim(branchTemplate: string): WorkerClaimStatement {
  const literals: string[] = [];
  const branch =
    branchTemplateParts(branchTemplate)
      .map((part) => {
        if (!('text' in part)) return part.kind === 'task' ? 'id' : '?1::text';
        literals.push(part.text);
        return `?${10 + literals.length}::text`;
      })
      .join(' || ') || "''";
  return { sql: { postgres: workerClaimSql(branch) }, literals };
}

/** Who claims, and what the claim's rows record. */
export interface WorkerClaimInput {
  readonly workerId: string;
  readonly now: number;
  readonly actor: string;
  readonly requestId: string | null;
  readonly leaseUntil: number;
  /** This owner's host (undefined: not one of several owners). */
  readonly ownerHost: string | undefined;
  /** Whose lease a claim by a worker on `ownerHost` (or on no host) hangs on; undefined: nobody's. */
  readonly leaseHolder: string | undefined;
}

/** What the statement answered: nothing when the worker does not exist. */
export interface WorkerClaimOutcome {
  /** The worker's state when the statement began. */
  readonly state: WorkerState;
  /** The task taken, if the worker was IDLE and one was runnable. */
  readonly claimed: { readonly id: string; readonly attempt: number; readonly branch: string } | undefined;
  /** Whether the worker moved to ASSIGNED (false with a task taken: it changed meanwhile). */
  readonly moved: boolean;
}

export function claimForWorker(tx: Tx, statement: WorkerClaimStatement, input: WorkerClaimInput): WorkerClaimOutcome | undefined {
  const row = tx.returning<{ state: WorkerState; id: string | null; attempt: number | null; branch: string | null; moved: number }>(
    statement.sql,
    [
      input.workerId,
      input.now,
      input.actor,
      input.requestId,
      input.leaseUntil,
      input.ownerHost ?? null,
      input.leaseHolder ?? null,
      JSON.stringify({ workerId: input.workerId }),
      randomUUID(),
      randomUUID(),
      ...statement.literals,
    ],
  )[0];
  if (!row) return undefined;
  const claimed =
    row.id !== null && row.attempt !== null && row.branch !== null ? { id: row.id, attempt: row.attempt, branch: row.branch } : undefined;
  return { state: row.state, claimed, moved: Number(row.moved) === 1 };
}
