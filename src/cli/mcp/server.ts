/**
 * `foreman mcp`: the board as a Model Context Protocol server on stdin/stdout, for Claude Code,
 * Codex, VS Code's chat or any MCP client. Its tools are engine commands (tools.ts) and its
 * resources the board and the transcripts (resources.ts); every call goes where a CLI call goes
 * (caller.ts). A refusal is a tool result with `isError` and the engine's own words, which is what
 * MCP asks of a tool that ran and failed; a protocol error is kept for a tool or resource that does
 * not exist.
 *
 * The SDK's low-level `Server` rather than `McpServer`: McpServer validates arguments itself and
 * answers a bad one in its own words, before the engine could say what was wrong.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { foremanVersion } from '../version';
import { type Caller } from './caller';
import { listResources, readResource, transcriptTemplate } from './resources';
import { type BoardTool, boardTools, changesState, findTool, inputSchemaOf } from './tools';

const instructions = [
  "Foreman's board: a crew of coding agents, each in its own git worktree, taking tasks from a queue.",
  'Read the board with `status` (or the foreman://board resource); queue work with `task_add`, or a whole ordered plan with',
  '`chain_add_markdown` / `chain_add` (each step waits for the one before). A person reviews and merges each finished task.',
  'State-changing tools take an optional `requestId`: repeat a call with the same id and it applies once.',
].join(' ');

export function createBoardServer(caller: Caller): Server {
  const server = new Server({ name: 'foreman', version: foremanVersion }, { capabilities: { tools: {}, resources: {} }, instructions });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: boardTools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: inputSchemaOf(tool),
      annotations: { readOnlyHint: !changesState(tool), openWorldHint: false },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = findTool(request.params.name);
    if (!tool)
      throw new McpError(
        ErrorCode.InvalidParams,
        `unknown tool '${request.params.name}'; known: ${boardTools.map((known) => known.name).join(', ')}`,
      );
    return callTool(caller, tool, request.params.arguments ?? {});
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: await listResources(caller) }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      {
        uriTemplate: transcriptTemplate,
        name: 'transcript',
        mimeType: 'text/markdown',
        description: "A task's latest agent run: its tool calls, messages and how it ended.",
      },
    ],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const read = await readResource(caller, request.params.uri);
    if (!read.ok) throw new McpError(ErrorCode.InvalidParams, read.message);
    return { contents: [read.value] };
  });
  return server;
}

/** One tool call: the arguments made into the command's (parsed by the engine's schema), sent, answered. */
async function callTool(caller: Caller, tool: BoardTool, input: Record<string, unknown>): Promise<CallToolResult> {
  const { requestId, ...rest } = input;
  if (requestId !== undefined && (typeof requestId !== 'string' || !changesState(tool))) {
    return refusal({
      message: `requestId: ${changesState(tool) ? 'a request id is a string' : `${tool.name} changes nothing and takes none`}`,
    });
  }
  const args = tool.toArgs ? tool.toArgs(rest) : { ok: true as const, value: rest };
  if (!args.ok) return refusal(args);
  const answer = await caller.sendUnchecked(tool.command, args.value, requestId);
  if (!answer.ok) return refusal(answer);
  return { content: [{ type: 'text', text: JSON.stringify(answer.value, null, 2) }] };
}

/** The engine's words, as a tool result that failed. */
function refusal(failure: { readonly message: string }): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: failure.message }] };
}

/** Serves until the client closes stdin; resolves then. */
export async function serveOnStdio(caller: Caller): Promise<void> {
  const server = createBoardServer(caller);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  await server.connect(new StdioServerTransport());
  // The SDK's transport does not watch for the end of stdin; a client that goes away ends the server.
  process.stdin.once('end', () => void server.close());
  await closed;
}
