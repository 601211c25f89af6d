/**
 * Version 11: a task may ask its agent to plan first (issue 27): the agent runs in Claude Code's plan
 * mode until a person approves its plan. A rejection carries the person's note, kept beside the
 * answer until the agent takes it, so the agent reads why its plan was turned down.
 */
export const migration0011 = `
ALTER TABLE tasks ADD COLUMN plan_first INTEGER NOT NULL DEFAULT 0;
ALTER TABLE heartbeats ADD COLUMN input_note TEXT;
`;
