/**
 * `.foreman/` holds prompts, agent output and the endpoint token: after a small real run (init,
 * worker add, task add, bus messages, a blob, export, checkpoints, an owner serving) every folder
 * in it is 0700 and every file 0600, so no other local user can read any of it.
 */
import assert from 'node:assert/strict';
import { chmodSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { type Server, foreman, makeRepo, startServe } from '../cli/harness';

/**
 * Files written by code outside this change, still created with the process umask; the folder's
 * 0700 keeps them private meanwhile. Remove an entry once its writer passes mode 0o600.
 */

/** Every entry under `dir` with its permission bits, relative names. */
function modesUnder(dir: string): Array<{ name: string; kind: 'folder' | 'file' | 'socket'; mode: number }> {
  const entries: Array<{ name: string; kind: 'folder' | 'file' | 'socket'; mode: number }> = [];
  const pending = [dir];
  while (pending.length > 0) {
    const current = pending.pop()!;
    for (const name of readdirSync(current)) {
      const full = join(current, name);
      const stat = statSync(full);
      const kind = stat.isDirectory() ? 'folder' : stat.isSocket() ? 'socket' : 'file';
      entries.push({ name: relative(dir, full), kind, mode: stat.mode & 0o777 });
      if (kind === 'folder') pending.push(full);
    }
  }
  return entries;
}

function assertPrivate(dir: string, expectNames: readonly string[]): void {
  assert.equal(statSync(dir).mode & 0o777, 0o700, '.foreman/ itself');
  const entries = modesUnder(dir);
  const names = entries.map((entry) => entry.name);
  for (const name of expectNames) assert.ok(names.includes(name), `${name} exists (found ${names.join(', ')})`);
  for (const entry of entries) {
    const wanted = entry.kind === 'folder' ? 0o700 : 0o600;
    assert.equal(entry.mode.toString(8), wanted.toString(8), `${entry.kind} ${entry.name}`);
  }
}

async function ok(repo: string, args: readonly string[]): Promise<void> {
  const run = await foreman(repo, args);
  assert.equal(run.code, 0, `foreman ${args.join(' ')}: ${run.stderr}`);
}

describe('file modes in .foreman/', { timeout: 120_000 }, () => {
  it('are 0700 for folders and 0600 for files after a real run, also while an owner serves', async () => {
    const repo = makeRepo();
    const dir = join(repo, '.foreman');
    await ok(repo, ['init']);
    await ok(repo, ['worker', 'add', 'w1']);
    await ok(repo, ['task', 'add', 'First', '--id', 't1', '--prompt', 'a secret prompt']);
    await ok(repo, ['task', 'add', 'Second', '--id', 't2', '--manual']);
    await ok(repo, ['assign', 'w1', 't1']);
    await ok(repo, ['heartbeat', 'w1']);
    // Over the inline limit (4 KiB), so the payload goes to a blob.
    await ok(repo, ['send', '--from', 'w1', '--type', 'note', '--payload', JSON.stringify({ text: 'x'.repeat(8192) })]);
    await ok(repo, ['send', '--from', 'w1', '--type', 'note', '--payload', '{"small":true}']);
    await ok(repo, ['export']);
    assertPrivate(dir, ['.gitignore', 'foreman.db', 'foreman.journal', 'bus.jsonl', 'transitions.jsonl', 'blobs']);
    assert.ok(
      modesUnder(dir).some((entry) => entry.name.startsWith('blobs/sha256-')),
      'a blob was written',
    );

    let server: Server | undefined;
    try {
      server = await startServe(repo);
      await ok(repo, ['task', 'add', 'Third', '--id', 't3', '--manual']);
      assertPrivate(dir, ['endpoint.json', 'endpoint.token', 'owner.lock']);
      if (server.socketPath.startsWith(dir)) assert.equal(statSync(server.socketPath).mode & 0o777, 0o600, 'the socket');
    } finally {
      assert.equal(await server?.stop(), 0);
    }
    assertPrivate(dir, ['foreman.db', 'foreman.db.1', 'foreman.journal.1']);
  });

  it('tightens a .foreman/ left readable by others when it opens it', async () => {
    const repo = makeRepo();
    const dir = join(repo, '.foreman');
    await ok(repo, ['init']);
    chmodSync(dir, 0o755);
    await ok(repo, ['status']);
    assert.equal(statSync(dir).mode & 0o777, 0o700);
  });
});
