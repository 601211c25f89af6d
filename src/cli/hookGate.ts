/**
 * Which way a Claude Code hook call goes, read once for both CLIs: the thin one (without zod: it
 * answers the common case while an owner runs) and the full one (commands/claudeHook.ts), which
 * answers what the thin one leaves to it. Only a PreToolUse call with a tool name and an input
 * object is gated, and only when the worker has a gate; every other call is a heartbeat. What the
 * payload means for the worker is read apart, with zod, by the request contract (core/claudeHook.ts).
 */
import { type ClaudeGate, gateDecision, permissionDecision } from '../core/claudePermissions';
import { inPlanMode, planModeDecision } from '../core/planModeGate';
import { readInitTools } from './initTools';

/** A PreToolUse call as Claude Code sends it. */
export interface ToolCall {
  readonly tool: string;
  readonly input: Readonly<Record<string, unknown>>;
  readonly cwd?: string;
}

export type HookRoute =
  /** A heartbeat only: Claude Code decides with the same rules. */
  | { readonly route: 'pass' }
  /** A heartbeat, then an explicit allow (`sandboxedAllow`). */
  | { readonly route: 'sandboxed' }
  /** A deny rule (the user's or Foreman's) matched: final, so no person is asked. */
  | { readonly route: 'deny'; readonly call: ToolCall; readonly reason: string }
  /** Nothing allows it: it waits for a person's answer. */
  | { readonly route: 'ask'; readonly call: ToolCall };

/**
 * Claude Code would refuse some commands its sandbox confines anyway ("Contains
 * simple_expansion"), silently in print mode; said allowed, they run in the sandbox all the same.
 */
export const sandboxedAllow = permissionDecision('allow', 'runs in the Claude Code sandbox Foreman set up');

const pass: HookRoute = { route: 'pass' };

export function hookRoute(payload: unknown, gate: ClaudeGate | undefined): HookRoute {
  const call = toolCallOf(payload);
  if (!gate || !call) return pass;
  const initTools = readInitTools(gate.streamFile);
  const context = { ...(call.cwd === undefined ? {} : { cwd: call.cwd }), ...(initTools ? { initTools } : {}) };
  const decision = gateDecision(gate, call.tool, call.input, context);
  if (inPlanMode(payload) && planModeDecision(decision.decision) === 'leaveToClaude') return pass;
  switch (decision.decision) {
    case 'allow':
      return call.tool === 'Bash' && gate.sandboxedBash ? { route: 'sandboxed' } : pass;
    case 'deny':
      return { route: 'deny', call, reason: decision.reason };
    case 'ask':
      return { route: 'ask', call };
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The tool call in a payload; undefined for any other event, or fields not of Claude Code's types. */
function toolCallOf(payload: unknown): ToolCall | undefined {
  if (!isRecord(payload) || payload['hook_event_name'] !== 'PreToolUse') return undefined;
  const tool = payload['tool_name'];
  const input = payload['tool_input'] === undefined ? {} : payload['tool_input'];
  const cwd = payload['cwd'];
  if (typeof tool !== 'string' || !isRecord(input) || (cwd !== undefined && typeof cwd !== 'string')) return undefined;
  return { tool, input, ...(cwd === undefined ? {} : { cwd }) };
}
