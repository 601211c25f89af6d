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
 * not cover, which waits for a person's answer anyway. The check for the last reads the payload
 * only to route it: whichever side answers, zod reads the payload before anything is applied.
 */
import { idPattern } from '../core/idPattern';
import { toolAllowed } from '../core/claudePermissions';
import { ExitCode } from '../core/result';
import type { CliEnvironment, RequestDraft } from './commands/spec';
import { readHookInput } from './hookInput';

/** What the thin CLI sends for a hook call; undefined when the full CLI should run it. */
export function hookRequest(
  argv: readonly string[],
  env: CliEnvironment,
  allowList: string | undefined,
): (RequestDraft & { readonly actor: string }) | undefined {
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
  if (waitsForPerson(payload, allowList)) return undefined;
  const attempt = env.attempt === undefined ? {} : { attempt: Number(env.attempt) };
  return { command: 'heartbeat', args: { worker, status: 'working', ...attempt, claudeHook: payload }, actor: worker };
}

/** A refusal from the owner, said the way the full CLI's hook says its errors; the exit is 0. */
export function sayHookRefusal(message: string): number {
  process.stderr.write(`foreman hook: ${message}\n`);
  return ExitCode.ok;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * True for a PreToolUse call outside the worker's allow-list: the full CLI asks a person. Mirrors
 * its test (claudeHook.ts): no list, a list that is not a JSON array of strings, or a call without a
 * tool name and input object is not gated there either.
 */
function waitsForPerson(payload: unknown, allowList: string | undefined): boolean {
  if (!allowList || !isRecord(payload) || payload['hook_event_name'] !== 'PreToolUse') return false;
  let rules: unknown;
  try {
    rules = JSON.parse(allowList);
  } catch {
    return false;
  }
  if (!Array.isArray(rules) || !rules.every((rule) => typeof rule === 'string')) return false;
  const tool = payload['tool_name'];
  const input = payload['tool_input'] === undefined ? {} : payload['tool_input'];
  if (typeof tool !== 'string' || !isRecord(input)) return false;
  return !toolAllowed(rules, tool, input);
}
