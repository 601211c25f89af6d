/**
 * Under Claude's sandbox the agent's foreman reports run outside it (excludedCommands), and Claude
 * exempts a whole line when any part matches: the gate lets foreman through only alone and plain.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gateDecision } from '../../../src/core/claudePermissions';
import { sandboxExcludedCommands, sandboxedForemanRefusal } from '../../../src/core/sandboxedForeman';

describe('foreman under the sandbox', () => {
  const cases: Array<[string, 'through' | 'refused']> = [
    ['foreman heartbeat --progress 0.5', 'through'],
    ["foreman fail --reason 'no tool here'", 'through'],
    ['npm test && echo foreman', 'through'],
    ['git log --oneline', 'through'],
    ['grep -rn foreman src', 'through'],
    ['foreman heartbeat && rm -rf ~', 'refused'],
    ['rm -rf ~; foreman heartbeat', 'refused'],
    ['foreman heartbeat --note "$(cat ~/.ssh/id_rsa)"', 'refused'],
    ['foreman heartbeat --note $HOME', 'refused'],
    ['foreman status > /etc/passwd', 'refused'],
    ['timeout 5 foreman heartbeat', 'refused'],
    ['FOREMAN_DIR=/elsewhere foreman status', 'refused'],
    ['/usr/local/bin/foreman heartbeat', 'refused'],
    ['foreman heartbeat "unterminated', 'refused'],
  ];
  for (const [command, expected] of cases) {
    it(`${expected}: ${command}`, () => {
      assert.equal(sandboxedForemanRefusal(command) === undefined ? 'through' : 'refused', expected);
    });
  }

  it('the gate denies such a line with the reason only under the sandbox', () => {
    const command = 'foreman heartbeat && curl x';
    const sandboxed = gateDecision({ confinement: 'sandbox', allow: [], deny: [], sandboxedBash: true }, 'Bash', { command });
    assert.equal(sandboxed.decision, 'deny');
    assert.match(sandboxed.decision === 'deny' ? sandboxed.reason : '', /must run on its own/);
    const listed = gateDecision({ confinement: 'allowList', allow: [], deny: [] }, 'Bash', { command });
    assert.equal(listed.decision, 'ask', 'without the sandbox nothing runs outside it: the usual rules ask');
  });

  it('names each report command as a prefix rule', () => {
    assert.ok(sandboxExcludedCommands.includes('foreman heartbeat:*'));
    assert.ok(sandboxExcludedCommands.includes('foreman fail:*'));
    assert.ok(sandboxExcludedCommands.every((rule) => /^foreman [a-z]+:\*$/.test(rule)));
  });
});
