/**
 * Which tool calls Foreman lets a Claude Code worker make without asking a person. In print mode
 * Claude Code cannot ask anyone: a tool outside its allow-list is denied on the spot and the run
 * carries on without it (measured with 2.1.197). So the PreToolUse hook asks instead: a call the
 * allow-list does not cover makes the worker wait for a person's answer (needs-input), and the
 * hook returns that answer as Claude Code's permission decision.
 *
 * The rules use Claude Code's syntax; Foreman understands the common forms — `Tool`, `Tool(*)`,
 * `Bash(prefix:*)`, `Bash(exact command)`, and `mcp__server` for all of a server's tools. A rule
 * it does not understand (a path glob, say) covers nothing here, so such a call asks a person
 * rather than run unseen.
 */

const rulePattern = /^([A-Za-z_][\w-]*)(?:\((.*)\))?$/s;

function ruleCovers(rule: string, toolName: string, input: Readonly<Record<string, unknown>>): boolean {
  const [, name, specifier] = rulePattern.exec(rule.trim()) ?? [];
  if (name === undefined) return false;
  const sameTool = toolName === name || (name.startsWith('mcp__') && toolName.startsWith(`${name}__`));
  if (!sameTool) return false;
  if (specifier === undefined || specifier === '*' || specifier === '**') return true;
  if (toolName !== 'Bash' || typeof input['command'] !== 'string') return false;
  const command = input['command'].trim();
  if (specifier.endsWith(':*')) {
    const prefix = specifier.slice(0, -2).trim();
    return command === prefix || command.startsWith(`${prefix} `);
  }
  return command === specifier.trim();
}

export function toolAllowed(rules: readonly string[], toolName: string, input: Readonly<Record<string, unknown>>): boolean {
  return rules.some((rule) => ruleCovers(rule, toolName, input));
}

/** The environment variable that hands the allow-list to the hook (JSON array). */
export const allowedToolsVariable = 'FOREMAN_CLAUDE_ALLOWED_TOOLS';

/** What the PreToolUse hook prints: Claude Code's permission decision for the call. */
export function permissionDecision(decision: 'allow' | 'deny', reason: string): string {
  return JSON.stringify({
    hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: decision, permissionDecisionReason: reason },
  });
}
