/**
 * The engine's only SQL: one module per table (or aggregate: the bus is `messages` plus `cursors`),
 * one exported function per statement, typed in and out, after graphile-worker's `src/sql/`.
 * Reads take a `Reader`, writes a `Tx`; services call these functions and hold no SQL (a lint
 * rule in eslint.config.mjs keeps it so).
 *
 * A statement both stores run as written is one string; where SQLite and PostgreSQL differ
 * (`json_each`, `MAX(a, b)`, `IS`, planner hints, row locks, PostgreSQL-only claims) the module
 * writes each its own text, a `NativeSql` (../ports/store.ts), and the store runs its own; nothing
 * translates one into the other. SQLite's file space is `Tx.fileSpace`, not a PRAGMA statement.
 * A store over something else would supply these same functions with the same
 * signatures and semantics (guarded updates return the rows they changed, claims are atomic,
 * reads see the transaction's own writes), and the services above would not change.
 *
 * Statements are constant strings wherever the shape allows, so the store's prepared-statement
 * cache keeps one statement each; those built from arguments (a guarded move's extra columns, a
 * view's filters, the claim compiled per branch template) say so.
 */
export * from './agentSessions';
export * from './archive';
export * from './exportState';
export * from './heartbeats';
export * from './idempotencyKeys';
export * from './messages';
export * from './meta';
export * from './owners';
export * from './rejections';
export type { ColumnValues } from './setClause';
export * from './taskClaims';
export * from './taskQueue';
export * from './tasks';
export * from './taskViews';
export * from './transitions';
export * from './workers';
export * from './workerClaim';
export * from './pullRequests';
export * from './overlaps';
