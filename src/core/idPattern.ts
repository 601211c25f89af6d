/**
 * Worker and task ids: kebab-case, safe as a path segment, a branch component and an argv value.
 * Apart from the zod schemas in ids.ts so that the thin CLI can check FOREMAN_WORKER_ID without zod.
 */
export const idPattern = /^[a-z0-9][a-z0-9-]{0,62}$/;
