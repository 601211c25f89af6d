/**
 * `foreman serve` and one-shot calls on a disk that fills up and is freed again (issue 10, item
 * 4): each write that does not fit is refused with what to do, exit 3, nothing half written; the
 * owner keeps running and takes writes again once there is space, with no restart. On a real small
 * tmpfs; skipped, with the reason in the output, where one cannot be mounted.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { makeGitRepo } from '../../support/gitRepo';
import { type SmallDisk, mountSmallDisk } from '../../support/smallDisk';
import { foreman, foremanJson, startServe } from './harness';

const disk = mountSmallDisk(8);
const skip = typeof disk === 'string' ? disk : false;
after(() => {
  if (typeof disk !== 'string') disk.unmount();
});

function repoOn(small: SmallDisk, name: string): string {
  const repo = path.join(small.root, name);
  fs.mkdirSync(repo);
  const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
  return makeGitRepo(repo, { configureIdentity: false, env });
}

/** Adds tasks until one is refused; returns the titles that were acknowledged and the refusal. */
async function addUntilRefused(
  repo: string,
  prefix: string,
): Promise<{ added: string[]; refusal: { code: number | null; stdout: string } }> {
  const added: string[] = [];
  for (let index = 0; index < 100; index++) {
    const run = await foreman(repo, ['task', 'add', `${prefix} ${index}`, '--manual', '--json']);
    if (run.code !== 0) return { added, refusal: run };
    added.push(`${prefix} ${index}`);
  }
  throw new Error('the disk never filled up');
}

async function titles(repo: string): Promise<string[]> {
  const status = await foremanJson<{ tasks: Array<{ title: string }> }>(repo, ['status']);
  return status.tasks.map((task) => task.title).sort();
}

describe('foreman on a full disk', { skip, timeout: 180_000 }, () => {
  it('serve refuses each write that does not fit, keeps running, and takes writes again once space is freed', async () => {
    const small = disk as SmallDisk;
    const repo = repoOn(small, 'served');
    assert.equal((await foreman(repo, ['init'])).code, 0);
    const server = await startServe(repo);
    let filler: string | undefined;
    try {
      assert.equal((await foreman(repo, ['task', 'add', 'before', '--manual'])).code, 0);
      filler = small.fill();
      const { added, refusal } = await addUntilRefused(repo, 'while full');
      assert.equal(refusal.code, 3, refusal.stdout);
      const error = (JSON.parse(refusal.stdout) as { error: { code: string; message: string } }).error;
      assert.equal(error.code, 'notSaved');
      assert.match(
        error.message,
        /^This change was not saved: the disk holding .*\.foreman is full \(ENOSPC\)\. .*free some space and try again\.$/,
      );
      assert.equal(server.child.exitCode, null, 'the owner is still running');
      assert.deepEqual(await titles(repo), ['before', ...added].sort(), 'reads still answer, with every acknowledged write');

      fs.rmSync(filler);
      filler = undefined;
      assert.equal((await foreman(repo, ['task', 'add', 'after', '--manual'])).code, 0);
      assert.deepEqual(await titles(repo), ['after', 'before', ...added].sort());
      assert.doesNotMatch(server.output(), /unusable|failed unexpectedly/);
    } finally {
      if (filler) fs.rmSync(filler, { force: true });
      assert.equal(await server.stop(), 0, server.output());
    }
    // The next owner opens what serve left without any recovery to do.
    const reopened = await foreman(repo, ['status']);
    assert.equal(reopened.code, 0);
    assert.equal(reopened.stderr, '');
  });

  it('a one-shot call on a full disk is refused with what to do and leaves no lock behind', async () => {
    const small = disk as SmallDisk;
    const repo = repoOn(small, 'one-shot');
    assert.equal((await foreman(repo, ['init'])).code, 0);
    const filler = small.fill();
    try {
      const { added, refusal } = await addUntilRefused(repo, 'while full');
      assert.equal(refusal.code, 3, refusal.stdout);
      const error = (JSON.parse(refusal.stdout) as { error: { code: string; message: string } }).error;
      assert.ok(['notSaved', 'diskFull'].includes(error.code), error.code);
      assert.match(error.message, /ENOSPC/);
      assert.match(error.message, /free some space/);
      assert.equal(fs.existsSync(path.join(repo, '.foreman', 'owner.lock')), false);
      fs.rmSync(filler);
      assert.equal((await foreman(repo, ['task', 'add', 'after', '--manual'])).code, 0);
      assert.deepEqual(await titles(repo), ['after', ...added].sort());
    } finally {
      fs.rmSync(filler, { force: true });
    }
  });
});
