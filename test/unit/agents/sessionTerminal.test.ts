/**
 * Open Session in Terminal builds an argv for the agent's own CLI (never a shell string): the
 * profile's command resumes the worker's session in its worktree with the profile's env; a
 * session of another kind uses the CLI's own name; a worker without a session is refused in words.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveProfile } from '../../../src/infra/agents/profiles';
import { sessionTerminal } from '../../../src/infra/agents/sessionTerminal';

const profile = (name: string, profiles: Record<string, unknown> = {}) => {
  const resolved = resolveProfile(name, profiles);
  assert.ok(resolved.ok, 'the profile resolves');
  return resolved.value;
};

describe('sessionTerminal', () => {
  it('resumes a Claude session with the profile command and env, as argv in the worktree', () => {
    const claude = profile('mine', { mine: { kind: 'claude', command: '/opt/claude bin/claude', env: { ANTHROPIC_API_KEY: 'k' } } });
    const spec = sessionTerminal({ id: 'ada', sessionId: 'a1b2; rm -rf /', sessionKind: 'claude' }, claude, '/work/ada tree');
    assert.ok(spec.ok);
    assert.deepEqual(spec.value, {
      name: 'Foreman: ada (taken over)',
      shellPath: '/opt/claude bin/claude',
      shellArgs: ['--resume', 'a1b2; rm -rf /'],
      cwd: '/work/ada tree',
      env: { ANTHROPIC_API_KEY: 'k' },
    });
  });

  it('resumes a Codex session with `codex resume <id>`', () => {
    const spec = sessionTerminal({ id: 'bo', sessionId: 'thread-9', sessionKind: 'codex' }, profile('codex'), '/w/bo');
    assert.ok(spec.ok);
    assert.equal(spec.value.shellPath, 'codex');
    assert.deepEqual(spec.value.shellArgs, ['resume', 'thread-9']);
  });

  it("uses the session's own CLI when the worker's profile is of another kind", () => {
    const spec = sessionTerminal({ id: 'cy', sessionId: 's', sessionKind: 'claude' }, profile('codex'), '/w/cy');
    assert.ok(spec.ok);
    assert.equal(spec.value.shellPath, 'claude');
    assert.deepEqual(spec.value.env, {}, "another kind's env is not handed over");
  });

  it('refuses a worker without a session, or with one no CLI can resume', () => {
    const none = sessionTerminal({ id: 'di' }, undefined, '/w/di');
    assert.ok(!none.ok);
    assert.match(none.message, /di has no agent session/);
    const aider = sessionTerminal({ id: 'ed', sessionId: 'x', sessionKind: 'aider' }, undefined, '/w/ed');
    assert.ok(!aider.ok);
    assert.match(aider.message, /only Claude Code and Codex sessions/);
  });
});
