/**
 * How a Claude Code hook call is routed (src/cli/hookGate.ts), the one reading both CLIs share:
 * only a PreToolUse call with a tool name and an input object is gated, and only with a gate; an
 * allowed Bash call under the sandbox gets an explicit allow; a deny rule is final; anything else
 * waits for a person; in plan mode only a deny stands.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClaudeGate } from '../../../src/core/claudePermissions';
import { hookRoute } from '../../../src/cli/hookGate';

const gate: ClaudeGate = { confinement: 'open', allow: ['Read', 'Bash(npm test:*)'], deny: ['Bash(rm:*)'] };
const call = (tool: string, input: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  hook_event_name: 'PreToolUse',
  tool_name: tool,
  tool_input: input,
  ...extra,
});

describe('hook routing', () => {
  it('passes every call through when there is no gate, and every payload that is not a tool call', () => {
    assert.deepEqual(hookRoute(call('Bash', { command: 'rm -rf x' }), undefined), { route: 'pass' });
    for (const payload of [
      { hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'rm x' } },
      { hook_event_name: 'PreToolUse', tool_input: {} },
      { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: 'rm x' },
      { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: {}, cwd: 7 },
      'PreToolUse',
      null,
    ])
      assert.deepEqual(hookRoute(payload, gate), { route: 'pass' }, JSON.stringify(payload));
  });

  it('passes an allowed call, and allows a sandboxed Bash call explicitly', () => {
    assert.deepEqual(hookRoute(call('Read', { file_path: '/tmp/x' }), gate), { route: 'pass' });
    assert.deepEqual(hookRoute(call('Bash', { command: 'npm test' }), gate), { route: 'pass' });
    assert.deepEqual(hookRoute(call('Bash', { command: 'npm test' }), { ...gate, sandboxedBash: true }), { route: 'sandboxed' });
  });

  it('denies what a deny rule names, and asks a person about the rest, naming the call', () => {
    const denied = hookRoute(call('Bash', { command: 'rm -rf build' }), gate);
    assert.equal(denied.route, 'deny');
    assert.deepEqual(denied.route === 'deny' && denied.call, { tool: 'Bash', input: { command: 'rm -rf build' } });
    assert.deepEqual(hookRoute(call('Bash', { command: 'curl example.com' }, { cwd: '/tmp' }), gate), {
      route: 'ask',
      call: { tool: 'Bash', input: { command: 'curl example.com' }, cwd: '/tmp' },
    });
  });

  it('in plan mode asks no one: a deny still stands, anything else is left to Claude Code', () => {
    const plan = { permission_mode: 'plan' };
    assert.deepEqual(hookRoute(call('Bash', { command: 'curl example.com' }, plan), gate), { route: 'pass' });
    assert.equal(hookRoute(call('Bash', { command: 'rm -rf build' }, plan), gate).route, 'deny');
  });
});
