/**
 * The agent adapters' pure parts, table-driven: each CLI's output lines as events, their verdicts
 * (configuration problem, failed attempt, success with the agent's own summary), Claude Code's
 * generated settings and hook payloads. The real CLIs run in test/integration/realAgents.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { judgeRun } from '../../../src/infra/agents/kinds';
import { claudeSettings, shellQuote } from '../../../src/infra/agents/kinds/claude';
import { claudeParser } from '../../../src/infra/agents/kinds/claudeStream';
import { readClaudeHook } from '../../../src/core/claudeHook';
import { codexParser } from '../../../src/infra/agents/kinds/codex';
import { reportsOf } from '../../../src/infra/agents/eventReports';

const line = (value: unknown) => JSON.stringify(value);

describe('Claude Code stream-json', () => {
  it('reads the session, tool calls, results, messages and the final result with usage and cost', () => {
    const parser = claudeParser(false);
    const events = [
      line({ type: 'system', subtype: 'init', session_id: 's-1', tools: ['Bash'] }),
      line({ type: 'assistant', message: { content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'npm test' } }] } }),
      line({ type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok 3 tests', is_error: false }] } }),
      line({ type: 'assistant', message: { content: [{ type: 'text', text: 'All tests pass.' }] } }),
      line({
        type: 'result',
        subtype: 'success',
        is_error: false,
        result: 'All tests pass.',
        total_cost_usd: 0.0123,
        usage: { input_tokens: 100, cache_read_input_tokens: 50, output_tokens: 20 },
      }),
      'not json at all',
      line({ type: 'stream_event', whatever: 1 }),
    ].flatMap((text) => parser.line(text));
    assert.deepEqual(events, [
      { type: 'session', sessionId: 's-1', resumed: false },
      { type: 'tool', name: 'Bash', detail: 'npm test' },
      { type: 'toolResult', ok: true, output: 'ok 3 tests' },
      { type: 'message', text: 'All tests pass.' },
      { type: 'usage', usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 50, cacheWriteTokens: 0, costUsd: 0.0123 } },
      { type: 'result', summary: 'All tests pass.', isError: false },
    ]);
  });

  it('reports permission denials of a run as errors', () => {
    const events = claudeParser(true).line(
      line({
        type: 'result',
        is_error: false,
        result: 'done',
        permission_denials: [{ tool_name: 'Bash', tool_input: { command: 'rm -rf x' } }],
      }),
    );
    assert.deepEqual(
      events.filter((event) => event.type === 'error'),
      [{ type: 'error', message: 'permission denied: Bash: rm -rf x' }],
    );
  });

  it('generates settings with the allow-list (foreman always allowed) and hooks that run the CLI by a quoted path', () => {
    const settings = claudeSettings("/opt/it's here/foreman", ['Read', 'Edit']) as {
      permissions: { allow: string[] };
      hooks: Record<string, { matcher?: string; hooks: { command: string }[] }[]>;
    };
    assert.deepEqual(settings.permissions.allow, ['Read', 'Edit', 'Bash(foreman:*)']);
    assert.deepEqual(Object.keys(settings.hooks).sort(), ['Notification', 'PermissionRequest', 'PostToolUse', 'PreToolUse', 'Stop']);
    const command = settings.hooks['PreToolUse']![0]!.hooks[0]!.command;
    assert.equal(command, `'/opt/it'\\''s here/foreman' hook claude`);
    assert.equal(shellQuote('$(rm -rf /)'), `'$(rm -rf /)'`, 'nothing inside single quotes is expanded');
  });
});

describe('Codex exec --json', () => {
  it('reads the thread, commands, messages, usage and errors', () => {
    const parser = codexParser(true);
    const events = [
      line({ type: 'thread.started', thread_id: 'th-9' }),
      line({ type: 'turn.started' }),
      line({ type: 'item.started', item: { id: 'i0', type: 'command_execution', command: 'echo hi > a.txt', status: 'in_progress' } }),
      line({
        type: 'item.completed',
        item: { id: 'i0', type: 'command_execution', command: 'echo hi', aggregated_output: 'hi\n', exit_code: 0 },
      }),
      line({ type: 'item.completed', item: { id: 'i1', type: 'agent_message', text: 'Wrote a.txt' } }),
      line({ type: 'turn.completed', usage: { input_tokens: 900, cached_input_tokens: 100, output_tokens: 40 } }),
      line({ type: 'error', message: 'stream disconnected; retrying 1/5' }),
    ].flatMap((text) => parser.line(text));
    assert.deepEqual(events, [
      { type: 'session', sessionId: 'th-9', resumed: true },
      { type: 'tool', name: 'Bash', detail: 'echo hi > a.txt' },
      { type: 'toolResult', ok: true, output: 'hi\n' },
      { type: 'message', text: 'Wrote a.txt' },
      { type: 'usage', usage: { inputTokens: 800, outputTokens: 40, cacheReadTokens: 100, cacheWriteTokens: 0, costUsd: 0 } },
      { type: 'error', message: 'stream disconnected; retrying 1/5' },
    ]);
  });
});

describe('verdicts', () => {
  const base = { code: 0, signal: null, reason: 'pid 7 exited 0 at 12:00:00', errors: [], outputTail: '' };
  const cases: [string, Parameters<typeof judgeRun>[0], ReturnType<typeof judgeRun>][] = [
    [
      'a flag the CLI does not know (exit 2) is a configuration problem',
      { ...base, code: 2, outputTail: "error: unexpected argument '--full-auto' found\n\nUsage: codex exec [OPTIONS]" },
      { outcome: 'configuration', reason: "the agent CLI refused its arguments: error: unexpected argument '--full-auto' found" },
    ],
    [
      "no login is the worker's setup whatever the code",
      { ...base, code: 1, errors: ['unexpected status 401 Unauthorized: invalid api key'] },
      { outcome: 'setup', reason: 'authentication failed: unexpected status 401 Unauthorized: invalid api key' },
    ],
    [
      'a non-zero exit is a failed attempt, with the last error',
      { ...base, code: 1, reason: 'pid 7 exited 1 at 12:00:00', errors: ['the turn failed'] },
      { outcome: 'failed', reason: 'pid 7 exited 1 at 12:00:00: the turn failed' },
    ],
    [
      'exit 0 with an error result is a failed attempt',
      { ...base, result: { summary: 'error_max_budget_usd', isError: true } },
      { outcome: 'failed', reason: 'the agent ended with an error: error_max_budget_usd' },
    ],
    [
      'success carries the agent’s own last words',
      { ...base, result: { summary: 'Added the greeting.', isError: false }, lastMessage: 'earlier text' },
      { outcome: 'success', summary: 'Added the greeting.' },
    ],
    [
      '"unexpected argument" from a tool the agent ran (exit 0) is not a configuration problem',
      { ...base, outputTail: 'grep: unexpected argument' },
      { outcome: 'success' },
    ],
  ];
  for (const [name, evidence, expected] of cases) it(name, () => assert.deepEqual(judgeRun(evidence), expected));
});

describe('Claude Code hooks', () => {
  const cases: [string, unknown, unknown][] = [
    [
      'PreToolUse is activity',
      { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'npm test' } },
      { activity: 'Bash: npm test' },
    ],
    [
      'PostToolUse is activity',
      { hook_event_name: 'PostToolUse', tool_name: 'Edit', tool_input: { file_path: 'src/a.ts' } },
      { activity: 'Edit: src/a.ts' },
    ],
    [
      'a permission request waits for a person',
      { hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: { command: 'rm -rf build' } },
      { needsInput: 'permission to use Bash: rm -rf build' },
    ],
    [
      'a notification waits for a person',
      { hook_event_name: 'Notification', message: 'Claude needs your permission to use Bash' },
      { needsInput: 'Claude needs your permission to use Bash' },
    ],
    [
      'Stop says how the turn ended',
      { hook_event_name: 'Stop', last_assistant_message: 'Done:\nall green' },
      { activity: 'finished: Done: all green' },
    ],
    ['another event is a plain sign of life', { hook_event_name: 'SessionStart' }, {}],
  ];
  for (const [name, payload, signal] of cases) {
    it(name, () => assert.deepEqual(readClaudeHook(payload), { ok: true, signal }));
  }
  it('refuses what is not a hook payload', () => assert.equal(readClaudeHook({ tool_name: 'Bash' }).ok, false));
});

describe('event reports', () => {
  it('turn a batch of events into the session, usage and one activity heartbeat', () => {
    const requests = reportsOf({ workerId: 'ada', attempt: 2, kind: 'codex' }, [
      { type: 'session', at: 1, sessionId: 'th-1', resumed: false },
      { type: 'tool', at: 2, name: 'Bash', detail: 'ls' },
      { type: 'tool', at: 3, name: 'Bash', detail: 'npm test' },
      { type: 'usage', at: 4, usage: { inputTokens: 5, outputTokens: 6, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 } },
    ]);
    assert.deepEqual(
      requests.map((request) => [request.command, request.args]),
      [
        ['usage', { worker: 'ada', attempt: 2, kind: 'codex', inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0, run: true, sessionId: 'th-1' }],
        ['usage', { worker: 'ada', attempt: 2, kind: 'codex', inputTokens: 5, outputTokens: 6, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0, run: false }],
        ['heartbeat', { worker: 'ada', attempt: 2, status: 'working', activity: 'Bash: npm test' }],
      ],
    );
  });
});
