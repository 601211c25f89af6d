import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { foreman, foremanJson, makeRepo, tempFolder } from './harness';

/** A PATH with git and the system tools but no agent CLI, plus the given folders first. */
function pathWith(...folders: string[]): string {
  return [...folders, '/usr/bin', '/bin'].join(':');
}

describe('foreman worker add with an agent whose command is not installed', () => {
  it('adds the worker and warns on stderr that the command is not found on PATH', async () => {
    const repo = makeRepo();
    assert.equal((await foreman(repo, ['init'])).code, 0);
    const missing = await foreman(repo, ['worker', 'add', 'w-claude', '--agent', 'claude'], { env: { PATH: pathWith() } });
    assert.equal(missing.code, 0, missing.stderr);
    assert.match(missing.stderr, /^foreman: warning: the agent command 'claude' of profile 'claude' is not found on PATH;/m);
    const workers = await foremanJson<Array<{ id: string; agent: string }>>(repo, ['worker', 'list'], { env: { PATH: pathWith() } });
    assert.deepEqual(
      workers.map((worker) => [worker.id, worker.agent]),
      [['w-claude', 'claude']],
    );
  });

  it('says nothing when the command is on PATH, and nothing for the demo agent', async () => {
    const repo = makeRepo();
    assert.equal((await foreman(repo, ['init'])).code, 0);
    const bin = tempFolder();
    writeFileSync(join(bin, 'claude'), '#!/bin/sh\nexit 0\n');
    chmodSync(join(bin, 'claude'), 0o755);
    const found = await foreman(repo, ['worker', 'add', 'w-claude', '--agent', 'claude'], { env: { PATH: pathWith(bin) } });
    assert.equal(found.code, 0, found.stderr);
    assert.equal(found.stderr, '');
    const demo = await foreman(repo, ['worker', 'add', 'w-demo', '--agent', 'demo'], { env: { PATH: pathWith() } });
    assert.equal(demo.code, 0, demo.stderr);
    assert.equal(demo.stderr, '');
  });

  it('keeps --json output clean: the warning goes to stderr only', async () => {
    const repo = makeRepo();
    assert.equal((await foreman(repo, ['init'])).code, 0);
    const run = await foreman(repo, ['worker', 'add', 'w1', '--agent', 'codex', '--json'], { env: { PATH: pathWith() } });
    assert.equal(run.code, 0, run.stderr);
    assert.equal((JSON.parse(run.stdout) as { id: string }).id, 'w1');
    assert.match(run.stderr, /'codex' of profile 'codex' is not found on PATH/);
  });
});
