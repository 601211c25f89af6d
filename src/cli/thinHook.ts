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
import { readInitTools } from './initTools';
import { idPattern } from '../core/idPattern';
import { type ClaudeGate, gateDecision, parseGate, permissionDecision } from '../core/claudePermissions';
import { ExitCode } from '../core/result';
import type { CliEnvironment, RequestDraft } from './commands/spec';
import { readHookInput } from './hookInput';
import { inPlanMode, planModeDecision } from '../core/planModeGate';

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
  const gated = gatedCall(payload, parseGate(gateText));
  if (gated === 'full') return undefined;
  const attempt = env.attempt === undefined ? {} : { attempt: Number(env.attempt) };
  const request: ThinHookCall['request'] = { command: 'heartbeat', args: { worker, status: 'working', ...attempt, claudeHook: payload }, actor: worker };
  return gated === 'sandboxed' ? { request, decisionLine: sandboxedAllow } : { request };
}

/** A refusal from the owner, said the way the full CLI's hook says its errors; the exit is 0. */
export function sayHookRefusal(message: string): number {
  process.stderr.write(`foreman hook: ${message}\n`);
  return ExitCode.ok;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Claude Code would refuse some commands its sandbox confines anyway ("Contains
 * simple_expansion"), silently in print mode; said allowed, they run in the sandbox all the same.
 */
export const sandboxedAllow = permissionDecision('allow', 'runs in the Claude Code sandbox Foreman set up');

/**
 * How a call goes: `pass` (heartbeat only; Claude Code decides with the same rules), `sandboxed`
 * (heartbeat, then an explicit allow), or `full`: a PreToolUse call the gate denies or would ask a
 * person about, left to the full CLI. Mirrors its test (claudeHook.ts): no gate, or a call without
 * a tool name and input object, is not gated there either.
 */
function gatedCall(payload: unknown, gate: ClaudeGate | undefined): 'pass' | 'sandboxed' | 'full' {
  if (!gate || !isRecord(payload) || payload['hook_event_name'] !== 'PreToolUse') return 'pass';
  const tool = payload['tool_name'];
  const input = payload['tool_input'] === undefined ? {} : payload['tool_input'];
  if (typeof tool !== 'string' || !isRecord(input)) return 'pass';
  const cwd = typeof payload['cwd'] === 'string' ? { cwd: payload['cwd'] } : {};
  const initTools = readInitTools(gate.streamFile);
  const decision = gateDecision(gate, tool, input, { ...cwd, ...(initTools ? { initTools } : {}) });
  if (inPlanMode(payload)) return planModeDecision(decision.decision) === 'deny' ? 'full' : 'pass';
  if (decision.decision !== 'allow') return 'full';
  return tool === 'Bash' && gate.sandboxedBash ? 'sandboxed' : 'pass';
}
