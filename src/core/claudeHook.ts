/**
 * Claude Code's hook payload, as Foreman reads it (ARCHITECTURE §6). Each hook runs `foreman hook
 * claude` with a JSON payload on stdin; the payload becomes the heartbeat it means: the activity of
 * a tool call, a wait for a person (a permission request, a notification), or the end of a turn.
 * Payload fields measured with 2.1.197 (REAL-AGENTS-TESTING.md).
 *
 * In core because the owner reads it at its boundary: the thin CLI forwards the payload unread as a
 * heartbeat's `claudeHook`, and the request contract (requests.ts) turns it into those fields.
 */
import { z } from 'zod';
import { describeTool, toolDetail } from './agentEvents';
import { planTool, planWaitMessage } from './planModeGate';

/** The heartbeat fields a hook call becomes. */
export interface HookSignal {
  readonly activity?: string;
  readonly needsInput?: string;
}

const notAPayload = 'not a Claude Code hook payload (it needs hook_event_name, and tool_name and tool_input as Claude Code sends them)';

export const claudeHookPayloadSchema = z.object(
  {
    hook_event_name: z.string({ message: notAPayload }),
    tool_name: z.string({ message: notAPayload }).optional(),
    tool_input: z.record(z.string(), z.unknown(), { message: notAPayload }).optional(),
    message: z.string({ message: notAPayload }).optional(),
    last_assistant_message: z.string({ message: notAPayload }).optional(),
  },
  { message: notAPayload },
);
export type ClaudeHookPayload = z.infer<typeof claudeHookPayloadSchema>;

function oneLine(text: string, max = 300): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** What a (parsed) payload means for the worker; an event Foreman does not read changes nothing. */
export function signalOf(hook: ClaudeHookPayload): HookSignal {
  const tool = () => describeTool(hook.tool_name ?? 'tool', toolDetail(hook.tool_input ?? {}));
  switch (hook.hook_event_name) {
    case 'PreToolUse':
    case 'PostToolUse':
      return { activity: tool() };
    case 'PermissionRequest':
      // A plan to approve is said the same way the stream says it (planApproval.ts).
      if (hook.tool_name === planTool) return { needsInput: planWaitMessage(hook.tool_input?.['plan']) };
      return { needsInput: `permission to use ${tool()}` };
    case 'Notification':
      // Claude Code notifies when it needs a permission or has waited for input: both wait for a person.
      return { needsInput: oneLine(hook.message ?? 'Claude Code needs your attention') };
    case 'Stop':
      return { activity: hook.last_assistant_message ? `finished: ${oneLine(hook.last_assistant_message, 200)}` : 'finished its turn' };
    default:
      return {};
  }
}

/** A payload that is not what Claude Code sends is an error the caller reports (the hook then changes nothing). */
export function readClaudeHook(payload: unknown): { ok: true; signal: HookSignal } | { ok: false; message: string } {
  const parsed = claudeHookPayloadSchema.safeParse(payload);
  if (!parsed.success) return { ok: false, message: 'the hook input is not a Claude Code hook payload (no hook_event_name)' };
  return { ok: true, signal: signalOf(parsed.data) };
}
