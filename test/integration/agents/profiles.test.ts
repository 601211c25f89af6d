import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expandPlaceholders, resolveProfile } from '../../../src/infra/agents/profiles';

const values = {
  prompt: 'fix "it"; $(rm -rf /) {taskId}',
  promptFile: '/logs/t-1/attempt-2.prompt.md',
  taskId: 't-1',
  workerId: 'w-1',
  branch: 'w-1/t-1',
  worktree: '/work trees/w-1',
  attempt: '2',
};

describe('expandPlaceholders', () => {
  it('substitutes inside single argv elements, never splitting or joining them', () => {
    const result = expandPlaceholders(
      ['-p', '{prompt}', '--message={prompt}', '{workerId}:{taskId}#{attempt}', '--cwd', '{worktree}', '{branch}', '{promptFile}'],
      values,
    );
    assert.deepEqual(result, {
      ok: true,
      value: ['-p', values.prompt, `--message=${values.prompt}`, 'w-1:t-1#2', '--cwd', '/work trees/w-1', 'w-1/t-1', values.promptFile],
    });
  });

  it('leaves substituted text alone, even when it looks like a placeholder or a replacement pattern', () => {
    const result = expandPlaceholders(['{prompt}'], { prompt: "{taskId} $& $' $1" });
    assert.deepEqual(result, { ok: true, value: ["{taskId} $& $' $1"] });
  });

  it('keeps braces that are not placeholders', () => {
    assert.deepEqual(expandPlaceholders(['--json={"a":1}', '{}', '{ prompt }'], values), {
      ok: true,
      value: ['--json={"a":1}', '{}', '{ prompt }'],
    });
  });

  it('refuses an unknown placeholder, naming it, and a placeholder without a value', () => {
    const unknown = expandPlaceholders(['--dir={cwd}'], values);
    assert.ok(!unknown.ok);
    assert.equal(unknown.kind, 'invalid');
    assert.equal(unknown.code, 'unknownPlaceholder');
    assert.match(unknown.message, /'\{cwd\}'/);
    const missing = expandPlaceholders(['{promptFile}'], { prompt: 'x' });
    assert.ok(!missing.ok);
    assert.equal(missing.code, 'missingPlaceholderValue');
    assert.match(missing.message, /\{promptFile\}/);
  });
});

describe('resolveProfile', () => {
  it('ships claude, codex and aider as adapters of their kind, and demo as a command', () => {
    for (const kind of ['claude', 'codex', 'aider'] as const) {
      const profile = resolveProfile(kind);
      assert.ok(profile.ok);
      assert.deepEqual([profile.value.kind, profile.value.command, profile.value.args, profile.value.mode], [kind, kind, [], 'process']);
    }
    const demo = resolveProfile('demo');
    assert.ok(demo.ok);
    assert.equal(demo.value.kind, 'command');
    assert.equal(demo.value.command, process.execPath);
    assert.equal(demo.value.args.at(-1), '{promptFile}');
    assert.ok(demo.value.args.some((arg) => /demo(Agent\.ts|-agent\.js)$/.test(arg)));
  });

  it('adds user profiles and lets them override a built-in field by field', () => {
    const user = {
      claude: { command: '/opt/bin/claude', args: ['--model', 'opus'], maxBudgetUsd: 2 },
      mine: { command: 'my-agent', args: ['--task', '{taskId}'] },
      filed: { command: 'x', args: ['{promptFile}'] },
      reviewer: { kind: 'claude', allowedTools: ['Read', 'Grep'] },
    };
    const claude = resolveProfile('claude', user);
    assert.ok(claude.ok);
    assert.deepEqual(
      [claude.value.kind, claude.value.command, claude.value.args, claude.value.maxBudgetUsd],
      ['claude', '/opt/bin/claude', ['--model', 'opus'], 2],
    );
    const mine = resolveProfile('mine', user);
    assert.deepEqual(mine, {
      ok: true,
      value: { kind: 'command', command: 'my-agent', args: ['--task', '{taskId}'], prompt: 'stdin', mode: 'process' },
    });
    const filed = resolveProfile('filed', user);
    assert.ok(filed.ok);
    assert.equal(filed.value.prompt, 'file', 'the delivery is inferred from the args');
    const reviewer = resolveProfile('reviewer', user);
    assert.ok(reviewer.ok);
    assert.deepEqual([reviewer.value.command, reviewer.value.allowedTools], ['claude', ['Read', 'Grep']], 'a kind brings its command');
    const rewired = resolveProfile('aider', { aider: { args: ['--message', '{prompt}'] } });
    assert.ok(rewired.ok);
    assert.deepEqual([rewired.value.kind, rewired.value.prompt], ['command', 'argument'], 'a whole argv runs as a command profile');
  });

  it('refuses what a kind does not take', () => {
    const cases: [unknown, RegExp][] = [
      [
        { kind: 'claude', args: ['-p', '{prompt}'], kind2: 1 },
        /foreman\.agents\.bad: unknown key "kind2"; known: kind, command, args, env, prompt, mode, allowedTools, maxBudgetUsd/,
      ],
      [{ kind: 'codex', args: ['{prompt}'] }, /passes the prompt itself/],
      [{ kind: 'codex', allowedTools: ['Read'] }, /apply to "kind": "claude" only/],
      [{ kind: 'robot' }, /foreman\.agents\.bad\.kind/],
      [{ args: ['x'] }, /needs the executable/],
      [{ kind: 'claude', maxBudgetUsd: 0 }, /a budget is more than 0/],
    ];
    for (const [profile, message] of cases) {
      const result = resolveProfile('bad', { bad: profile });
      assert.ok(!result.ok, JSON.stringify(profile));
      assert.match(result.message, message);
    }
  });

  it('reports what is wrong with a profile, with the setting path', () => {
    const cases: [unknown, RegExp][] = [
      [{ command: '' }, /foreman\.agents\.bad\.command: the command must not be empty/],
      [{ command: 'x', arg: ['y'] }, /foreman\.agents\.bad: unknown key "arg"; known: kind, command/],
      [{ command: 'x', args: ['{cwd}'] }, /foreman\.agents\.bad\.args: unknown placeholder '\{cwd\}'/],
      [{ command: 'x', args: [], prompt: 'argument' }, /prompt 'argument' needs the placeholder '\{prompt\}'/],
      [{ command: 'x', prompt: 'telepathy' }, /foreman\.agents\.bad\.prompt/],
      [{ command: 'x', mode: 'window' }, /foreman\.agents\.bad\.mode/],
      [{ command: 'x', env: { A: 1 } }, /foreman\.agents\.bad\.env\.A/],
      ['claude --yes', /must be an object/],
    ];
    for (const [profile, message] of cases) {
      const result = resolveProfile('bad', { bad: profile });
      assert.ok(!result.ok, JSON.stringify(profile));
      assert.equal(result.kind, 'invalid');
      assert.match(result.message, message);
    }
  });

  it('refuses an unknown profile name and lists the known ones', () => {
    const result = resolveProfile('gpt-engineer', { mine: { command: 'x' } });
    assert.ok(!result.ok);
    assert.equal(result.code, 'unknownAgentProfile');
    assert.match(result.message, /aider, claude, codex, demo, mine/);
  });
});
