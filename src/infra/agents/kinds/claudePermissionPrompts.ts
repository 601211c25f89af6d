/**
 * Claude Code's permission prompts on its own streams (`--permission-prompt-tool stdio`, the Agent
 * SDK's protocol), measured against claude-code 2.1.197: a tool call it would ask a person about
 * comes on stdout as `{"type":"control_request","request_id",…,"request":{"subtype":"can_use_tool",
 * "tool_name","input",…}}` and the run waits for a `control_response` on stdin. Print mode offers
 * the `ExitPlanMode` tool only with such a prompt tool: it is how a plan comes to a person. Allowing
 * it with the `setMode` update moves the same session, in the same turn, to `acceptEdits` (Claude
 * prints a `system/status` line with the new mode); denying it with a message hands the model that
 * message as the tool's error, and it stays in plan mode.
 */
import { z } from 'zod';
import type { PermissionPrompts, PermissionRequest } from './adapter';
import { parseEventLine } from './adapter';

const requestSchema = z.object({
  type: z.literal('control_request'),
  request_id: z.string().min(1),
  request: z.object({
    subtype: z.literal('can_use_tool'),
    tool_name: z.string(),
    input: z.record(z.string(), z.unknown()).default({}),
  }),
});

function response(requestId: string, answer: Record<string, unknown>): string {
  return `${JSON.stringify({ type: 'control_response', response: { subtype: 'success', request_id: requestId, response: answer } })}\n`;
}

export const claudePermissionPrompts: PermissionPrompts = {
  request(line: string): PermissionRequest | undefined {
    // Most lines are events; parse only what may be a request.
    if (!line.includes('"can_use_tool"')) return undefined;
    const parsed = parseEventLine(line, requestSchema);
    return parsed && { requestId: parsed.request_id, toolName: parsed.request.tool_name, input: parsed.request.input };
  },
  allow(request, planApproved) {
    const mode = planApproved ? { updatedPermissions: [{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }] } : {};
    return response(request.requestId, { behavior: 'allow', updatedInput: request.input, ...mode });
  },
  deny(request, message) {
    return response(request.requestId, { behavior: 'deny', message });
  },
};
