import { workerPhases } from '../../core/actions';

/**
 * `state IN (?, …)` with one parameter per state. The lists come from the transition tables
 * (core/actions.ts) and are bound, so no statement spells out which states mean what.
 */
export function stateIn(states: readonly string[]): string {
  return `state IN (${states.map(() => '?').join(', ')})`;
}

/** Workers whose attempt is under way (`workerPhases.attemptUnderWay`): built once, the same string each time. */
export const underWay = { sql: stateIn(workerPhases.attemptUnderWay), params: workerPhases.attemptUnderWay };
