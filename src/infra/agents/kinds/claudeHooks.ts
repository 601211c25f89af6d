/**
 * Claude Code's hooks, as `foreman hook claude` reads them when it runs the hook itself (no owner,
 * or a tool call that waits for a person): the same contract the owner applies to a forwarded
 * payload (core/claudeHook.ts).
 */
import { type HookSignal, claudeHookPayloadSchema, signalOf } from '../../../core/claudeHook';

export type { HookSignal };

/** A payload that is not what Claude Code sends is an error the caller reports (the hook then changes nothing). */
export function claudeHookSignal(payload: unknown): { ok: true; signal: HookSignal } | { ok: false; message: string } {
  const parsed = claudeHookPayloadSchema.safeParse(payload);
  if (!parsed.success) return { ok: false, message: 'the hook input is not a Claude Code hook payload (no hook_event_name)' };
  return { ok: true, signal: signalOf(parsed.data) };
}
