import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agentChoices } from '../../../src/extension/commands/agentChoices';
import { english } from '../../../src/extension/localizer';

test('the agent picker lists runnable profiles first and says why the others would fail', () => {
  const choices = agentChoices(
    [
      { name: 'claude', status: 'notFound', command: 'claude' },
      { name: 'codex', status: 'notFound', command: 'codex' },
      { name: 'demo', status: 'found', command: '/usr/bin/node', path: '/usr/bin/node' },
      { name: 'broken', status: 'invalid', code: 'invalidAgentProfile', message: 'foreman.agents.broken.command: Required' },
      { name: 'mine', status: 'found', command: 'mine', path: '/opt/mine' },
    ],
    english,
  );
  assert.deepEqual(
    choices.map((choice) => [choice.profile, choice.runnable]),
    [
      ['demo', true],
      ['mine', true],
      ['claude', false],
      ['codex', false],
      ['broken', false],
    ],
  );
  assert.equal(`${choices[2]!.label} ${choices[2]!.description}`, 'claude — not found on PATH');
  assert.equal(choices[4]!.detail, 'foreman.agents.broken.command: Required');
});
