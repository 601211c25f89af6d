/**
 * How the MCP server reaches the engine: exactly as a CLI call does (route.ts) — through the running
 * owner's endpoint, or, with no owner, by opening the workspace for the one request — with every
 * request parsed by the request contract first. The actor is the agent's worker when an agent runs
 * the server (FOREMAN_WORKER_ID), else `mcp`, so the audit log says who asked.
 */
import type { CommandInput, CommandName } from '../../core/requests';
import { parseCommand, parseRequest } from '../../core/requests';
import { invalid } from '../../core/result';
import { type Target, route } from '../route';
import type { EndpointAnswer } from '../../host/endpointAccess';

export interface Caller {
  readonly target: Target;
  /** A request the server makes itself (the board, a task's attempt): typed, parsed, routed. */
  send<C extends CommandName>(command: C, args: CommandInput<C>): Promise<EndpointAnswer<C>>;
  /** A request from a tool's arguments, parsed as the engine parses every request; its answer is untyped. */
  sendUnchecked(command: CommandName, args: unknown, requestId: string | undefined): Promise<EndpointAnswer<CommandName>>;
}

export function makeCaller(target: Target, actor: string, log: (line: string) => void): Caller {
  return {
    target,
    async send(command, args) {
      const request = parseCommand(command, args, { actor });
      if (!request.ok) return invalid('invalidRequest', request.message);
      return route(target, request.request, { log });
    },
    async sendUnchecked(command, args, requestId) {
      const request = parseRequest({ command, args, actor, ...(requestId !== undefined ? { requestId } : {}) });
      if (!request.ok) return invalid('invalidRequest', request.message);
      return route(target, request.request, { log });
    },
  };
}
