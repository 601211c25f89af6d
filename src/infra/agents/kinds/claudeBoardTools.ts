/**
 * A profile's `boardTools`: the agent gets the board's MCP tools (`foreman mcp`, docs/mcp.md), so a
 * planner worker can read the board and queue tasks and chains itself. Claude Code is told of the
 * server with `--mcp-config` (a file beside the run's settings, not the user's `.mcp.json`), and its
 * tools are allowed without asking, as Foreman's own CLI is: the requests go through the same
 * engine rules, with the worker as their actor.
 */

/** Claude's permission rule for every tool of the server named `foreman`. */
export const boardToolsRule = 'mcp__foreman';

/**
 * The `--mcp-config` file: the `foreman` command the agent already reports through, run as
 * `foreman mcp`. `alwaysLoad`: Claude Code (2.1.197) otherwise starts its first turn while the
 * server is still connecting, and the planner's first call finds no such tool.
 */
export function boardToolsConfig(foremanCommand: string): string {
  const server = { type: 'stdio', command: foremanCommand, args: ['mcp'], alwaysLoad: true };
  return JSON.stringify({ mcpServers: { foreman: server } }, null, 2);
}
