/**
 * What Foreman writes to Claude Code's stdin when it runs with `--input-format stream-json`: one
 * JSON object a line. A user message is taken into the turn that runs (Claude tells the model "the
 * user sent a new message while you were working") or, between turns, starts the next one; an
 * interrupt control request ends the running turn and keeps the session (measured against
 * claude-code 2.1.197: the turn ends with a `result` of subtype `error_during_execution`).
 */
import type { AgentInput } from './adapter';
import { claudePermissionPrompts } from './claudePermissionPrompts';

export const claudeInput: AgentInput = {
  message: (text) => `${JSON.stringify({ type: 'user', message: { role: 'user', content: text } })}\n`,
  interrupt: (requestId) => `${JSON.stringify({ type: 'control_request', request_id: requestId, request: { subtype: 'interrupt' } })}\n`,
  permissions: claudePermissionPrompts,
};
