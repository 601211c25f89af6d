/**
 * Foreman's Claude Code hook in plan mode (a plan-first task before its plan is approved). Claude's
 * plan mode refuses every change by itself; a PreToolUse hook's explicit `allow` overrides it
 * (measured against claude-code 2.1.197: a hook's allow let `Write` run in plan mode). So while the
 * agent plans, the hook allows nothing and asks no one — the plan's approval is the question put
 * to a person — and only a deny (the user's or Foreman's rule) still stands.
 */

/** Whether a hook payload comes from a Claude Code in plan mode (its `permission_mode`). */
export function inPlanMode(payload: unknown): boolean {
  return typeof payload === 'object' && payload !== null && (payload as Record<string, unknown>)['permission_mode'] === 'plan';
}

/** What the hook does with the gate's decision in plan mode: a deny stands; anything else is left to Claude. */
export function planModeDecision(decision: 'allow' | 'deny' | 'ask'): 'deny' | 'leaveToClaude' {
  return decision === 'deny' ? 'deny' : 'leaveToClaude';
}

/** Claude Code's plan tool: its input's `plan` is the plan's text; calling it asks to carry the plan out. */
export const planTool = 'ExitPlanMode';

/** The plan's opening in the wait's one line; the whole plan is in the transcript. */
const excerptLength = 240;

/** What the worker shows while its plan waits, whoever reports the wait (the stream or the hook). */
export function planWaitMessage(plan: unknown): string {
  const line = (typeof plan === 'string' ? plan : '').replace(/\s+/g, ' ').trim();
  const excerpt = line.length > excerptLength ? `${line.slice(0, excerptLength - 1)}…` : line;
  return `approve the plan: ${excerpt || '(no text)'} — answer allow to carry it out, or deny --note <what to change>`;
}
