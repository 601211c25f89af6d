/**
 * A Claude Code profile's `boardTools`: the run gets `--mcp-config` with a file that runs
 * `foreman mcp` (waited for before the first turn), and the board's tools are allowed without
 * asking; other kinds refuse the option by name.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { adapters } from '../../../src/infra/agents/kinds';
import { resolveProfile } from '../../../src/infra/agents/profiles';

const run = {
  workerId: 'planner',
  taskId: 'epic',
  attempt: 1,
  branch: 'planner/epic',
  worktree: '/tmp/worktrees/planner',
  prompt: 'Split the epic into a chain.',
  foremanCommand: '/opt/foreman/bin/foreman',
  files: { promptFile: '/tmp/logs/epic/attempt-1.prompt.md', runDir: '/tmp/logs/epic', stem: 'attempt-1' },
  environment: {},
};

test('boardTools: --mcp-config runs `foreman mcp`, and mcp__foreman is allowed', () => {
  const planned = adapters.claude.plan(run, { extraArgs: [], boardTools: true, permissions: 'allowList' });
  const at = planned.args.indexOf('--mcp-config');
  assert.ok(at >= 0, planned.args.join(' '));
  const file = planned.args[at + 1]!;
  assert.equal(file, '/tmp/logs/epic/attempt-1.mcp.json');
  assert.deepEqual(JSON.parse(planned.files.get(file)!), {
    mcpServers: { foreman: { type: 'stdio', command: '/opt/foreman/bin/foreman', args: ['mcp'], alwaysLoad: true } },
  });
  const settings = JSON.parse(planned.files.get('/tmp/logs/epic/attempt-1.claude-settings.json')!) as { permissions: { allow: string[] } };
  assert.ok(settings.permissions.allow.includes('mcp__foreman'));

  const without = adapters.claude.plan(run, { extraArgs: [], permissions: 'allowList' });
  assert.ok(!without.args.includes('--mcp-config'));
  assert.equal(without.files.size, 1);
});

test('boardTools is a Claude Code option: a codex profile with it is refused by name', () => {
  assert.equal(resolveProfile('claude', { claude: { boardTools: true } }).ok, true);
  const codex = resolveProfile('codex', { codex: { boardTools: true } });
  assert.equal(codex.ok, false);
  assert.match(codex.ok ? '' : codex.message, /boardTools apply to "kind": "claude" only/);
});
