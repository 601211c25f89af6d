/**
 * Claude Code's hooks, as Foreman reads them (ARCHITECTURE §6). Each hook runs `foreman hook
 * claude` with a JSON payload on stdin; this turns the payload into the heartbeat it means: the
 * activity of a tool call, a wait for a person (a permission request, a notification), or the end
 * of a turn. Payload fields measured with 2.1.197 (REAL-AGENTS-TESTING.md).
 */
import { z } from 'zod';
import { describeTool } from '../../../core/agentEvents';
import { toolDetail } from './claude';

const payloadSchema = z.object({
  hook_event_name: z.string(),
  tool_name: z.string().optional(),
  tool_input: z.record(z.string(), z.unknown()).optional(),
  message: z.string().optional(),
  last_assistant_message: z.string().optional(),
});

/** The heartbeat fields a hook call becomes. */
export interface HookSignal {
  readonly activity?: string;
  readonly needsInput?: string;
}

function oneLine(text: string, max = 300): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** A payload that is not what Claude Code sends is an error the caller reports (the hook then changes nothing). */
export function claudeHookSignal(payload: unknown): { ok: true; signal: HookSignal } | { ok: false; message: string } {
  const parsed = payloadSchema.safeParse(payload);
  if (!parsed.success) return { ok: false, message: 'the hook input is not a Claude Code hook payload (no hook_event_name)' };
  const hook = parsed.data;
  const tool = () => describeTool(hook.tool_name ?? 'tool', toolDetail(hook.tool_input ?? {}));
  switch (hook.hook_event_name) {
    case 'PreToolUse':
    case 'PostToolUse':
      return { ok: true, signal: { activity: tool() } };
    case 'PermissionRequest':
      return { ok: true, signal: { needsInput: `permission to use ${tool()}` } };
    case 'Notification':
      // Claude Code notifies when it needs a permission or has waited for input: both wait for a person.
      return { ok: true, signal: { needsInput: oneLine(hook.message ?? 'Claude Code needs your attention') } };
    case 'Stop':
      return {
        ok: true,
        signal: { activity: hook.last_assistant_message ? `finished: ${oneLine(hook.last_assistant_message, 200)}` : 'finished its turn' },
      };
    default:
      return { ok: true, signal: {} };
  }
}
