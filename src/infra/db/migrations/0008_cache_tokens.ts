/**
 * Version 8: prompt-cache tokens apart (issue 27). `input_tokens` of an agent session now counts
 * fresh input only; tokens read from and written to the prompt cache have columns of their own, so
 * a cache-heavy run (every resumed Codex turn, every Claude turn) does not read as fresh input, and
 * its money can be checked against the prices of each kind. Rows written before keep their cache
 * tokens inside `input_tokens` (0 here): the split was not recorded then.
 */
export const migration0008 = `
ALTER TABLE agent_sessions ADD COLUMN cache_read_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE agent_sessions ADD COLUMN cache_write_tokens INTEGER NOT NULL DEFAULT 0;
`;
