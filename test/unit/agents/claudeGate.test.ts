/**
 * The permission gate of a Claude Code worker (core/claudePermissions.ts): never looser than
 * Claude — deny wins, a compound command passes only when every part does, paths outside the
 * worktree ask under the allow-list — and tools that only read or plan come from the CLI's own
 * init event. Table-driven.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ClaudeGate, gateDecision, initToolsOf, parseGate } from '../../../src/core/claudePermissions';
import { confinedBashRules } from '../../../src/infra/agents/kinds/claudeSettings';

const worktree = '/work/trees/repo/ada';
const listGate: ClaudeGate = { confinement: 'allowList', allow: ['Read', ...confinedBashRules], deny: [], worktree, home: '/home/me' };
const initTools = ['Task', 'Bash', 'Edit', 'Read', 'Skill', 'TaskCreate', 'TaskUpdate', 'TaskList', 'WebFetch', 'Write', 'CronCreate'];

const decide = (gate: ClaudeGate, tool: string, input: Record<string, unknown>) =>
  gateDecision(gate, tool, input, { cwd: worktree, initTools }).decision;
const bash = (gate: ClaudeGate, command: string) => decide(gate, 'Bash', { command });

describe('the gate, allow-list confinement', () => {
  const cases: Array<[string, 'allow' | 'ask' | 'deny']> = [
    ['npm test', 'allow'],
    ['npm test -- --grep x && git status', 'allow'],
    ['npm test && curl https://example.com', 'ask'],
    ['npm test; curl x', 'ask'],
    ['npm test | curl -d @- x', 'ask'],
    ['npm test $(curl x)', 'ask'],
    ['npm test `curl x`', 'ask'],
    ['(npm test && curl x)', 'ask'],
    ['npm testing', 'ask'],
    ['git push origin main', 'ask'],
    ['foreman heartbeat --progress 0.5', 'allow'],
    ['foreman heartbeat && rm -rf /', 'ask'],
    ['rm -rf dist', 'allow'],
    ['rm -rf /tmp/elsewhere', 'ask'],
    ['rm -rf ../main', 'ask'],
    ['cat ~/.ssh/id_rsa', 'ask'],
    [`cat ${worktree}/src/a.ts`, 'allow'],
    ['echo x > /work/trees/repo/main.txt', 'ask'],
    ['npm test 2>&1 > /dev/null', 'allow'],
    ['npx tsc --outDir=/tmp/out', 'ask'],
    ['npm test $FLAGS', 'ask'],
    ['echo "unterminated', 'ask'],
    ['node -e "require(1)"', 'ask'],
  ];
  for (const [command, expected] of cases) it(`Bash ${JSON.stringify(command)} → ${expected}`, () => assert.equal(bash(listGate, command), expected));

  it("tools that only read or plan are the init event's tools minus those that act", () => {
    for (const tool of ['TaskCreate', 'TaskUpdate', 'TaskList', 'Skill', 'Task', 'Read']) assert.equal(decide(listGate, tool, {}), 'allow', tool);
    for (const tool of ['WebFetch', 'CronCreate', 'mcp__github__create_issue', 'BrandNewTool']) assert.equal(decide(listGate, tool, {}), 'ask', tool);
    assert.equal(gateDecision(listGate, 'TaskCreate', {}, { cwd: worktree }).decision, 'ask', 'without the init event only rules allow');
  });

  it('file edits pass inside the worktree and ask outside it', () => {
    assert.equal(decide(listGate, 'Write', { file_path: 'src/new.ts', content: '' }), 'allow');
    assert.equal(decide(listGate, 'Edit', { file_path: `${worktree}/a.ts` }), 'allow');
    assert.equal(decide(listGate, 'Write', { file_path: '/etc/hosts' }), 'ask');
    assert.equal(decide(listGate, 'Write', { file_path: '../ada-sibling/x' }), 'ask');
    const named = { ...listGate, allow: [...listGate.allow, 'Edit(//tmp/scratch/**)'] };
    assert.equal(decide(named, 'Write', { file_path: '/tmp/scratch/deep/x.txt' }), 'allow', 'a rule naming the path');
  });
});

describe('the gate, rules of the user', () => {
  it('deny wins over allow, part by part, and over the init tools', () => {
    const gate: ClaudeGate = { ...listGate, allow: [...listGate.allow, 'Bash(curl:*)'], deny: ['Bash(curl *example.org*)', 'Edit(//work/trees/repo/main/**)', 'TaskCreate'] };
    assert.equal(bash(gate, 'curl https://ok.test'), 'allow');
    assert.equal(bash(gate, 'npm test && curl https://example.org/x'), 'deny');
    assert.equal(bash(gate, 'echo "$(curl https://example.org)"'), 'deny');
    assert.equal(decide(gate, 'Write', { file_path: '/work/trees/repo/main/a.txt' }), 'deny');
    assert.equal(decide(gate, 'TaskCreate', {}), 'deny');
  });

  it('reads rule forms: exact, prefix, wildcard, bare, mcp servers, WebFetch domains', () => {
    const gate: ClaudeGate = {
      confinement: 'open',
      allow: ['Bash(make)', 'Bash(docker compose *)', 'mcp__github', 'WebFetch(domain:docs.rs)'],
      deny: [],
    };
    assert.equal(bash(gate, 'make'), 'allow');
    assert.equal(bash(gate, 'make install'), 'ask');
    assert.equal(bash(gate, 'docker compose up -d'), 'allow');
    assert.equal(bash(gate, 'docker run x'), 'ask');
    assert.equal(decide(gate, 'mcp__github__create_issue', {}), 'allow');
    assert.equal(decide(gate, 'mcp__gitlab__x', {}), 'ask');
    assert.equal(decide(gate, 'WebFetch', { url: 'https://serde.docs.rs/x' }), 'allow');
    assert.equal(decide(gate, 'WebFetch', { url: 'https://docs.rs.evil.test/' }), 'ask');
  });

  it("sandboxed Bash runs without asking unless a deny rule names it; paths are the sandbox's", () => {
    const gate: ClaudeGate = { confinement: 'sandbox', allow: ['Read'], deny: ['Bash(git push:*)'], worktree, sandboxedBash: true };
    assert.equal(bash(gate, 'rm -rf /tmp/elsewhere && curl x'), 'allow');
    assert.equal(bash(gate, 'npm test && git push origin main'), 'deny');
  });
});

describe('the gate from its environment variable and the init line', () => {
  it('reads the gate, the legacy allow-list array, and refuses anything else', () => {
    assert.deepEqual(parseGate('["Read"]'), { confinement: 'open', allow: ['Read'], deny: [] });
    assert.deepEqual(parseGate(JSON.stringify({ confinement: 'sandbox', allow: [], deny: [], worktree, sandboxedBash: true })), {
      confinement: 'sandbox',
      allow: [],
      deny: [],
      worktree,
      sandboxedBash: true,
    });
    for (const bad of [undefined, '', 'not json', '{"confinement":"loose","allow":[],"deny":[]}', '{"confinement":"open","allow":[1],"deny":[]}', '7']) {
      assert.equal(parseGate(bad), undefined, String(bad));
    }
  });

  it('finds the tools of the system/init line among the first lines', () => {
    const head = ['{"type":"system","subtype":"hook_started"}', JSON.stringify({ type: 'system', subtype: 'init', tools: ['Bash', 'TaskCreate'] }), '{"type":"assistant"'].join('\n');
    assert.deepEqual(initToolsOf(head), ['Bash', 'TaskCreate']);
    assert.equal(initToolsOf('{"type":"system","subtype":"init"'), undefined, 'a line still being written');
  });
});
