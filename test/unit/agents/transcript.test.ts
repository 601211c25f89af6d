import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AgentEvent } from '../../../src/core/agentEvents';
import { eventsFileOf, renderTranscript } from '../../../src/infra/agents/transcript';

const at = 1_700_000_000_000;
const time = (epochMs: number) => `t+${(epochMs - at) / 1000}s`;
const line = (event: AgentEvent) => JSON.stringify(event);
const render = (events: ReadonlyArray<AgentEvent | string>, outputLines?: number) =>
  renderTranscript(
    events.map((event) => (typeof event === 'string' ? event : line(event))),
    { time, ...(outputLines ? { outputLines } : {}) },
  );

test('a run reads as the session, tool calls with their output, messages, usage and the result', () => {
  const text = render([
    { type: 'session', at, sessionId: 'sess-1', resumed: false },
    { type: 'message', at: at + 1000, text: 'I will run the tests.' },
    { type: 'tool', at: at + 2000, name: 'Bash', detail: 'npm test' },
    { type: 'toolResult', at: at + 3000, ok: true, output: '> test\n3 passing\n' },
    { type: 'usage', at: at + 3500, usage: { inputTokens: 1000, outputTokens: 200, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.01 } },
    { type: 'usage', at: at + 3600, usage: { inputTokens: 500, outputTokens: 100, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.02 } },
    { type: 'result', at: at + 4000, summary: 'All tests pass.', isError: false },
  ]);
  assert.match(text, /^## Run 1 — session `sess-1` \(t\+0s\)$/m);
  assert.match(text, /^> I will run the tests\.$/m);
  assert.match(text, /\*\*t\+2s\*\* ▶ `Bash: npm test`/);
  assert.match(text, /```text\n> test\n3 passing\n```/);
  assert.match(text, /^\*Usage of run 1: 1\.8k tokens · \$0\.03 \(1,500 in · 300 out tokens · \$0\.0300\)\*$/m);
  assert.match(text, /^### ✓ Result \(t\+4s\)$/m);
  assert.match(text, /^> All tests pass\.$/m);
  assert.doesNotMatch(text, /"type"/, 'no raw JSON');
});

test('a resumed run is its own section with its own usage, and the total sums both', () => {
  const text = render([
    { type: 'session', at, sessionId: 'sess-1', resumed: false },
    { type: 'usage', at, usage: { inputTokens: 100, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.1 } },
    { type: 'result', at, summary: 'first', isError: false },
    { type: 'session', at: at + 60_000, sessionId: 'sess-1', resumed: true },
    { type: 'usage', at: at + 61_000, usage: { inputTokens: 50, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.2 } },
    { type: 'result', at: at + 62_000, summary: 'broke it', isError: true },
  ]);
  assert.match(text, /^## Run 2 — resumed session `sess-1` \(t\+60s\)$/m);
  assert.match(text, /Usage of run 1: 100 tokens · \$0\.10/);
  assert.match(text, /Usage of run 2: 50 tokens · \$0\.20/);
  assert.match(text, /^### ✗ Result: failed \(t\+62s\)$/m);
  assert.match(text, /\*\*Total usage: 150 tokens · \$0\.30\*\*/);
  assert.ok(text.indexOf('Usage of run 1') < text.indexOf('## Run 2'), 'a run closes with its usage');
});

test('waits, errors and failed tool calls are said plainly', () => {
  const text = render([
    { type: 'tool', at, name: 'Bash', detail: 'git push' },
    { type: 'needsInput', at: at + 1000, message: 'Allow Bash: git push?' },
    { type: 'toolResult', at: at + 2000, ok: false, output: 'denied' },
    { type: 'error', at: at + 3000, message: 'rate limited' },
  ]);
  assert.match(text, /^## Run 1 \(started t\+0s\)$/m, 'events before any session start a run');
  assert.match(text, /⏸ \*\*Waiting for you:\*\* Allow Bash: git push\?/);
  assert.match(text, /✗ \*the tool call failed or was denied\*/);
  assert.match(text, /⚠ \*\*Error:\*\* rate limited/);
});

test('long output is shortened and counted; backticks in it cannot break the fence', () => {
  const output = Array.from({ length: 40 }, (_, index) => `line ${index + 1}`).join('\n') + '\n```\nnot the end';
  const text = render(
    [
      { type: 'tool', at, name: 'Read', detail: 'a `weird` file' },
      { type: 'toolResult', at, ok: true, output },
    ],
    5,
  );
  assert.match(text, /line 5\n… 37 more lines/);
  assert.doesNotMatch(text, /line 6\b/);
  assert.match(text, /`` Read: a `weird` file ``/);
  const bigger = render([{ type: 'toolResult', at, ok: true, output: 'a\n```\nb' }]);
  assert.match(bigger, /````text\na\n```\nb\n````/);
});

test('lines that are not events are skipped with a note; blank lines are ignored', () => {
  const text = render([
    '{"type":"message","at":1,"text":"hello"}',
    'not json',
    '',
    '{"type":"tool","at":2}',
    '{"type":"launch","at":3}',
    '{"type":"message","at":4,"text":"still here"}',
  ]);
  assert.match(text, /Skipped line 2: not an agent event/);
  assert.match(text, /Skipped line 4: not an agent event/);
  assert.match(text, /Skipped line 5: not an agent event/);
  assert.doesNotMatch(text, /Skipped line 3/);
  assert.match(text, /> hello/);
  assert.match(text, /> still here/);
});

test('an empty file says there is nothing yet', () => {
  assert.match(renderTranscript(['']), /No events yet/);
});

test('the events file sits next to the raw log', () => {
  assert.equal(eventsFileOf('/r/.foreman/logs/t1/attempt-2.log'), '/r/.foreman/logs/t1/attempt-2.events.jsonl');
});
