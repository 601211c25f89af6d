/**
 * Version 10: which confinement each agent run had (issue 27), with its session: `sandbox`,
 * `allowList`, `open` or `none` (core/agentConfinement.ts), so the worker's card can say it and
 * warn when a run is unconfined. Rows written before have none (NULL): it was not recorded then.
 */
export const migration0010 = `
ALTER TABLE agent_sessions ADD COLUMN confinement TEXT;
`;
