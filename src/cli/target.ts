/**
 * Where a CLI request goes and how an owner's answer reads: shared by the full CLI (route.ts) and
 * the thin one (thin.ts). Node built-ins only: no zod, no store.
 */
import * as path from 'node:path';
import type { CommandName } from '../core/requests';
import { refused } from '../core/result';
import type { CliEnvironment } from './commands/spec';
import { yieldToOwner } from './priority';
import {
  answerFor,
  type EndpointAddress,
  type EndpointAnswer,
  findWorkspaceRoot,
  type SendOutcome,
  sendRequest,
  sendToEndpoint,
} from '../host/endpointAccess';

/** Where a request goes: a workspace folder (owner or local), or an endpoint given by the environment. */
export type Target =
  { readonly kind: 'workspace'; readonly repoRoot: string } | { readonly kind: 'endpoint'; readonly address: EndpointAddress };

/** How long an owner may take to answer one request. */
export const responseTimeoutMs = 60_000;

/**
 * `--dir`, else `FOREMAN_DIR`, else an endpoint from `FOREMAN_ENDPOINT` + `FOREMAN_TOKEN` (agents
 * in worktrees outside the repository), else the current folder searched upwards for an
 * initialised `.foreman/`, as git does for `.git`. A folder given by name is used exactly: climbing
 * from it would act on an enclosing workspace the caller did not name (say, when the named one is
 * mid-recovery or not initialised yet).
 */
export function resolveTarget(dirFlag: string | undefined, env: CliEnvironment, cwd: string): Target {
  const given = dirFlag ?? env.dir;
  if (given === undefined && env.endpoint && env.token)
    return { kind: 'endpoint', address: { socketPath: env.endpoint, token: env.token } };
  if (given !== undefined) return { kind: 'workspace', repoRoot: path.resolve(cwd, given) };
  return { kind: 'workspace', repoRoot: findWorkspaceRoot(cwd) ?? path.resolve(cwd) };
}

/**
 * Sends a request to an owner, as every CLI call does: at its endpoint, or at the one announced in
 * a workspace's `.foreman/`, after stepping back for it (priority.ts), within `responseTimeoutMs`.
 */
export function sendToOwnerAt(owner: EndpointAddress | { readonly foremanDir: string }, request: unknown): Promise<SendOutcome> {
  yieldToOwner();
  const options = { timeoutMs: responseTimeoutMs };
  return 'foremanDir' in owner ? sendRequest(owner.foremanDir, request, options) : sendToEndpoint(owner, request, options);
}

/** What a send came to, as the command's answer. */
export function answerOf<C extends CommandName>(command: C, sent: SendOutcome): EndpointAnswer<C> {
  switch (sent.kind) {
    case 'response':
      return answerFor(command, sent.response);
    case 'unreachable':
      return refused('ownerUnreachable', `The owner's endpoint cannot be reached (${sent.reason}).`);
    case 'denied':
      return refused('permissionDenied', `${sent.reason}.`, { path: sent.path });
    case 'failed':
      return { ok: false, kind: 'unexpected', code: 'endpointFailed', message: `The request to the owner failed: ${sent.reason}.` };
  }
}
