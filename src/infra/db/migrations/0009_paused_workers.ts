/**
 * Version 9: a worker PAUSED by its agent's usage or rate limit (issue 27) waits until a known
 * time and then resumes the same session; that time is a column of its own, so the monitor's
 * deadline for a paused worker is one indexed read, like the other liveness deadlines.
 */
export const migration0009 = `
ALTER TABLE workers ADD COLUMN paused_until INTEGER;
`;
