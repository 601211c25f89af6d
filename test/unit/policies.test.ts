import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultLiveness, formatDuration, judgeLiveness, retryDelay } from '../../src/core/policies';
import { idPattern, slugify } from '../../src/core/ids';
import { parseRequest } from '../../src/core/requests';

describe('liveness policy', () => {
  const at = 1_000_000;
  const cases: Array<[number, string]> = [
    [0, 'OK'],
    [29_999, 'OK'],
    [30_000, 'WARN'],
    [99_999, 'WARN'],
    [100_000, 'STALE'],
    [299_999, 'STALE'],
    [300_000, 'DEAD'],
  ];
  for (const [silent, level] of cases) {
    it(`${silent} ms of silence is ${level}`, () => {
      const verdict = judgeLiveness(defaultLiveness, at + silent, at, 'heartbeat');
      assert.equal(verdict.level, level);
    });
  }
  it('says why in words', () => {
    assert.equal(judgeLiveness(defaultLiveness, at + 130_000, at, 'heartbeat').reason, 'no heartbeat for 2m10s');
    assert.match(judgeLiveness(defaultLiveness, at + 40_000, at, 'assignment').reason, /since it was assigned 40s ago/);
    // OK too: an assignment is not a heartbeat, so the reason must not say "heartbeat 5s ago".
    assert.deepEqual(judgeLiveness(defaultLiveness, at + 5_000, at, 'assignment'), {
      level: 'OK',
      reason: 'no heartbeat since it was assigned 5s ago',
    });
  });
  it('formats durations', () => {
    assert.equal(formatDuration(5_400), '5s');
    assert.equal(formatDuration(3_725_000), '1h02m');
  });
});

describe('backoff policy', () => {
  it('doubles and caps', () => {
    const settings = { baseMs: 1000, maxMs: 5000 };
    assert.deepEqual(
      [1, 2, 3, 4, 5].map((n) => retryDelay(settings, n)),
      [1000, 2000, 4000, 5000, 5000],
    );
  });
});

describe('ids', () => {
  for (const bad of ['../x', '$(rm)', 'a'.repeat(200), '', 'A', '-x', 'a b', 'x/y', 'a..b']) {
    it(`refuses ${JSON.stringify(bad.slice(0, 20))}`, () => assert.equal(idPattern.test(bad), false));
  }
  it('slugifies names', () => assert.equal(slugify('Login page: v2!'), 'login-page-v2'));
});

describe('request parsing', () => {
  it('names the field and the rule', () => {
    const parsed = parseRequest({ command: 'worker.add', args: { id: '../x' } });
    assert.ok(!parsed.ok);
    assert.match(parsed.message, /^worker\.add: id: a worker id is lowercase letters/);
  });
  it('says a bound the schema gave no words of its own in words, not as zod writes it', () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ command: 'transitions', args: { limit: 0 } }, /^transitions: limit: must be at least 1$/],
      [{ command: 'status', args: { limit: 2_000_000 } }, /^status: limit: must be at most 1000000$/],
      [{ command: 'poll', args: { agent: 'w1', limit: 5000 } }, /^poll: limit: must be at most 1000$/],
    ];
    for (const [input, expected] of cases) {
      const parsed = parseRequest(input);
      assert.ok(!parsed.ok);
      assert.match(parsed.message, expected);
    }
  });
  it('refuses unknown commands', () => {
    const parsed = parseRequest({ command: 'explode', args: {} });
    assert.ok(!parsed.ok && /unknown command/.test(parsed.message));
  });
  it('applies defaults', () => {
    const parsed = parseRequest({ command: 'task.add', args: { title: ' Fix login ' } });
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.request, { command: 'task.add', args: { title: 'Fix login', prompt: '', manual: false, planFirst: false }, actor: 'cli' });
  });
  it("reads a heartbeat's forwarded Claude Code hook payload into the activity it means", () => {
    const payload = { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'npm test' }, session_id: 'abc' };
    const parsed = parseRequest({ command: 'heartbeat', args: { worker: 'w1', claudeHook: payload } });
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.request.args, { worker: 'w1', status: 'working', activity: 'Bash: npm test' });
  });
  it('refuses a forwarded hook payload that is not one, saying so', () => {
    const parsed = parseRequest({ command: 'heartbeat', args: { worker: 'w1', claudeHook: { tool_name: 'Bash' } } });
    assert.ok(!parsed.ok);
    assert.match(parsed.message, /^heartbeat: claudeHook\.hook_event_name: not a Claude Code hook payload/);
  });
});
