import { stringFlag } from '../argv';
import { resolveTarget } from '../route';
import { ExitCode } from '../../core/result';
import type { CommandInput, CommandSpec } from './spec';

/**
 * `foreman mcp`: the board as an MCP server on stdin/stdout until the client closes it. stdout is
 * the protocol's, so everything else (a one-shot owner's notes) goes to stderr. The SDK loads only here.
 */
async function mcp(input: CommandInput): Promise<number> {
  const target = resolveTarget(stringFlag(input.argv, 'dir'), input.env, input.cwd);
  const { makeCaller } = await import('../mcp/caller.js');
  const { serveOnStdio } = await import('../mcp/server.js');
  const log = (line: string): void => void process.stderr.write(`foreman mcp: ${line}\n`);
  await serveOnStdio(makeCaller(target, input.env.workerId ?? 'mcp', log));
  return ExitCode.ok;
}

/** The board for agents and editors that speak the Model Context Protocol (docs/mcp.md). */
export const mcpCommands: readonly CommandSpec[] = [
  {
    kind: 'local',
    name: 'mcp',
    usage: '',
    summary:
      'serve the board over the Model Context Protocol on stdio (tools: status, task_add, chain_add_markdown, plan_*, assign, history, answer…; `claude mcp add foreman -- foreman mcp`)',
    run: mcp,
  },
];
