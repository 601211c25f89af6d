/**
 * `foreman hook claude` in the thin CLI. Claude Code waits for its PreToolUse hook on every tool
 * call, so the common case — a tool call, a turn's end, a notification, with an owner running — is
 * answered here, without zod or the full CLI: the payload goes to the owner unread, as a heartbeat's
 * `claudeHook`, and the owner's request contract reads it with zod (core/claudeHook.ts); a payload
 * it cannot read comes back as a refusal, said on stderr like every hook error (the exit stays 0:
 * Claude Code reads exit 2 of PreToolUse as "block the tool").
 *
 * Left to the full CLI (claudeHook.ts), with the payload handed over: no owner, a malformed call
 * (no worker, a bad attempt, stdin that is not JSON), and a tool call the worker's allow-list does
 * not cover, which waits for a person's answer anyway. Both CLIs route a call with the same
 * function (hookGate.ts); whichever side answers, zod reads the payload before anything is applied.
 */
import { idPattern } from '../core/idPattern';
import { parseGate } from '../core/claudePermissions';
import { ExitCode } from '../core/result';
import type { CliEnvironment, RequestDraft } from './commands/spec';
import { hookRoute, sandboxedAllow } from './hookGate';
import { readHookInput } from './hookInput';

/** A hook call the thin CLI sends, and the decision line it prints once the owner took it (if any). */
export interface ThinHookCall {
  readonly request: RequestDraft & { readonly actor: string };
  readonly decisionLine?: string;
}

/** What the thin CLI sends for a hook call; undefined when the full CLI should run it. */
export function hookRequest(argv: readonly string[], env: CliEnvironment, gateText: string | undefined): ThinHookCall | undefined {
  if (argv.length !== 2 || argv[0] !== 'hook' || argv[1] !== 'claude') return undefined;
  const worker = env.workerId;
  if (worker === undefined || !idPattern.test(worker)) return undefined;
  if (env.attempt !== undefined && !/^[1-9]\d{0,8}$/.test(env.attempt)) return undefined;
  let payload: unknown;
  try {
    payload = JSON.parse(readHookInput());
  } catch {
    return undefined;
  }
  // A call to deny or to ask a person about is the full CLI's (hookGate.ts).
  const { route } = hookRoute(payload, parseGate(gateText));
  if (route === 'deny' || route === 'ask') return undefined;
  const attempt = env.attempt === undefined ? {} : { attempt: Number(env.attempt) };
  const request: ThinHookCall['request'] = { command: 'heartbeat', args: { worker, status: 'working', ...attempt, claudeHook: payload }, actor: worker };
  return route === 'sandboxed' ? { request, decisionLine: sandboxedAllow } : { request };
}

/** A refusal from the owner, said the way the full CLI's hook says its errors; the exit is 0. */
export function sayHookRefusal(message: string): number {
  process.stderr.write(`foreman hook: ${message}\n`);
  return ExitCode.ok;
}
