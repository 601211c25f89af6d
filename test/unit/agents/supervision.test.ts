/**
 * Supervision's pure parts, on lines Claude Code 2.1.197 really prints (REAL-AGENTS-TESTING.md):
 * its API retries, plan limits and stops as events, the verdicts they lead to, and the vitals that
 * tell a stalled agent from a busy one on a clock the test owns. The real CLI runs in
 * test/integration/realAgents/claudeSupervision.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AgentEvent, AgentEventInput } from '../../../src/core/agentEvents';
import { AgentVitals } from '../../../src/infra/agents/agentVitals';
import { judgeRun } from '../../../src/infra/agents/kinds';
import { claudeParser } from '../../../src/infra/agents/kinds/claudeStream';

const line = (value: unknown) => JSON.stringify(value);
const retryLine = (attempt: number, status: number, error: string) =>
  line({
    type: 'system',
    subtype: 'api_retry',
    attempt,
    max_retries: 10,
    retry_delay_ms: 1000,
    error_status: status,
    error,
    session_id: 's',
    uuid: 'u',
  });

describe("Claude Code's supervision lines", () => {
  it('reads api_retry as a retry with its count, status and words', () => {
    assert.deepEqual(claudeParser(false).line(retryLine(3, 429, 'rate_limit')), [
      { type: 'retry', message: 'rate limited', attempt: 3, maxAttempts: 10, status: 429, delayMs: 1000 },
    ]);
  });

  it('ends the run on an authentication retry: a retry cannot fix a key', () => {
    const events = claudeParser(false).line(retryLine(1, 401, 'authentication_failed'));
    assert.deepEqual(events.at(-1), { type: 'result', summary: 'authentication failed (HTTP 401)', isError: true, failure: 'authentication' });
  });

  it('reads a rejected plan limit with its reset time, and ignores warnings', () => {
    const parser = claudeParser(false);
    const rejected = { type: 'rate_limit_event', rate_limit_info: { status: 'rejected', resetsAt: 1_790_000_000, rateLimitType: 'five_hour' } };
    assert.deepEqual(parser.line(line(rejected)), [{ type: 'limit', message: 'usage limit reached (five hour)', resetsAt: 1_790_000_000_000 }]);
    const warning = { type: 'rate_limit_event', rate_limit_info: { status: 'allowed_warning', resetsAt: 1_790_000_000 } };
    assert.deepEqual(parser.line(line(warning)), []);
  });

  it('reads a budget stop and a turn cap as ends only a setting fixes', () => {
    const budget = claudeParser(false).line(
      line({ type: 'result', subtype: 'error_max_budget_usd', is_error: true, total_cost_usd: 0.0231, usage: { input_tokens: 1, output_tokens: 1 } }),
    );
    assert.deepEqual(budget.at(-1), { type: 'result', summary: 'stopped at its budget after spending $0.0231', isError: true, failure: 'budget' });
    const turns = claudeParser(false).line(line({ type: 'result', subtype: 'error_max_turns', is_error: true, total_cost_usd: 0 }));
    assert.deepEqual(turns.at(-1), { type: 'result', summary: 'stopped at its maximum number of turns', isError: true, failure: 'maxTurns' });
  });
});

describe('verdicts from structured ends', () => {
  const evidence = { code: 1, signal: null, reason: 'pid 1 exited 1', errors: [], outputTail: '' };
  const cases: Array<[string, AgentEventInput & { type: 'result' }, string, RegExp]> = [
    ['authentication', { type: 'result', summary: 'authentication failed', isError: true, failure: 'authentication' }, 'setup', /^authentication failed: /],
    ['budget', { type: 'result', summary: 'stopped at its budget after spending $1', isError: true, failure: 'budget' }, 'configuration', /maxBudgetUsd/],
    ['max turns', { type: 'result', summary: 'stopped at its maximum number of turns', isError: true, failure: 'maxTurns' }, 'configuration', /raise the limit/],
    ['plain error', { type: 'result', summary: 'it broke', isError: true }, 'failed', /it broke/],
  ];
  for (const [name, result, outcome, reason] of cases) {
    it(`${name} → ${outcome}`, () => {
      const verdict = judgeRun({ ...evidence, result });
      assert.equal(verdict.outcome, outcome);
      assert.match('reason' in verdict ? verdict.reason : '', reason);
    });
  }

  it('a "not logged in" line is the worker\'s setup, a refused flag the profile\'s configuration', () => {
    assert.equal(judgeRun({ ...evidence, outputTail: 'Not logged in · Please run /login' }).outcome, 'setup');
    assert.equal(judgeRun({ ...evidence, code: 2, outputTail: "error: unexpected argument '--nope' found" }).outcome, 'configuration');
  });
});

describe('AgentVitals', () => {
  const settings = { silenceMs: 300_000, retryMs: 120_000 };
  const at = (ms: number, event: AgentEventInput): AgentEvent => ({ ...event, at: ms });

  it('says nothing at first, how long it has been quiet after 30 s, and stalls after the silence bound', () => {
    const vitals = new AgentVitals(0, settings);
    assert.deepEqual(vitals.check(10_000), { healthy: true });
    assert.deepEqual(vitals.check(45_000), { healthy: true, activity: 'the agent has written nothing yet for 45s' });
    assert.deepEqual(vitals.check(300_000), { healthy: false, reason: 'no output from the agent for 5m00s' });
  });

  it('any line is a sign of life; a running tool holds the silence clock until it returns', () => {
    const vitals = new AgentVitals(0, settings);
    vitals.sign(200_000);
    assert.deepEqual(vitals.check(400_000), { healthy: true, activity: 'no output from the agent for 3m20s' });
    vitals.event(at(400_000, { type: 'tool', name: 'Bash', detail: 'npm test' }));
    assert.deepEqual(vitals.check(1_400_000), { healthy: true }, 'a twenty-minute test run is not silence');
    vitals.event(at(1_400_000, { type: 'toolResult', ok: true, output: '' }));
    assert.equal(vitals.check(1_700_000).healthy, false);
  });

  it('a retry streak is shown, stalls past its bound, and ends with any progress', () => {
    const vitals = new AgentVitals(0, settings);
    vitals.event(at(1000, { type: 'retry', message: 'server error', attempt: 1, maxAttempts: 10, status: 500 }));
    vitals.event(at(60_000, { type: 'retry', message: 'server error', attempt: 4, maxAttempts: 10, status: 500 }));
    assert.deepEqual(vitals.check(61_000), { healthy: true, activity: 'API retry 4/10: 500 server error' });
    assert.deepEqual(vitals.check(121_000), { healthy: false, reason: 'API retry 4/10: 500 server error, retrying for 2m00s' });
    vitals.event(at(122_000, { type: 'message', text: 'back' }));
    assert.deepEqual(vitals.check(123_000), { healthy: true });
  });

  it('a streak of rate limits past its bound is a limit to wait out, with the wait the agent meant to keep', () => {
    const vitals = new AgentVitals(0, settings);
    vitals.event(at(1000, { type: 'retry', message: 'rate limited', attempt: 1, maxAttempts: 10, status: 429, delayMs: 40_000 }));
    vitals.event(at(41_000, { type: 'retry', message: 'rate limited', attempt: 2, maxAttempts: 10, status: 429, delayMs: 45_000 }));
    assert.deepEqual(vitals.check(121_000), {
      healthy: false,
      reason: 'API retry 2/10: 429 rate limited, retrying for 2m00s',
      rateLimit: { waitMs: 45_000 },
    });
    // One server error in the streak: not a limit, a stall.
    vitals.event(at(122_000, { type: 'retry', message: 'server error', attempt: 3, maxAttempts: 10, status: 500 }));
    const mixed = vitals.check(123_000);
    assert.ok(!mixed.healthy && mixed.rateLimit === undefined);
  });
});
