/**
 * How one run of an agent is confined, as its worker's card shows it (issue 27). `sandbox`: the
 * agent's own sandbox (Claude Code's, Codex's `--sandbox workspace-write`): commands write only in
 * the worktree, with no network unless the profile names hosts. `allowList`: Claude Code without a
 * sandbox on this machine, an allow-list without bare Bash (anything else waits for a person).
 * `open`: the profile opted out (`"permissions": "open"`, Codex's bypass flags). `none`: Foreman
 * confines nothing (a `command` or Aider profile runs as its profile says).
 */
export const agentConfinements = ['sandbox', 'allowList', 'open', 'none'] as const;
export type AgentConfinement = (typeof agentConfinements)[number];
