/**
 * The owner lock knows the folder it was taken on (issue 28, item 4), on real files: a lock copied
 * into another folder (cp -a while the owner runs) names a live process but is not that folder's
 * owner, so the copy reads no owner and takes the lock; the original keeps its own. A moved folder
 * keeps its lock; a lock from another host, or one that records no folder, is trusted as before.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { acquireOwnerLock, readOwner } from '../../../src/infra/db/ownerLock';
import { folderIdentityOf, readFolderIdentity } from '../../../src/infra/workspace/folderIdentity';
import { lockName } from '../../../src/infra/workspace/ownerFile';

const sandbox = mkdtempSync(join(tmpdir(), 'foreman-lock-'));
after(() => rmSync(sandbox, { recursive: true, force: true }));
let counter = 0;

function foremanDir(): string {
  const dir = join(sandbox, `repo-${++counter}`, '.foreman');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A lock naming this (live) process, as written by hand. */
function writeLock(dir: string, fields: Record<string, unknown>): void {
  const info = { pid: process.pid, host: hostname(), startedAt: Date.now(), role: 'serve', ...fields };
  writeFileSync(join(dir, lockName), JSON.stringify(info));
}

describe('owner lock and the folder it was taken on', () => {
  it('records the folder, and a copy of the lock in another folder is no owner there', () => {
    const original = foremanDir();
    const held = acquireOwnerLock(original, { role: 'serve' });
    assert.ok(held.ok);
    try {
      assert.deepEqual(held.value.info.folder, folderIdentityOf(original));
      const copy = foremanDir();
      copyFileSync(join(original, lockName), join(copy, lockName));
      assert.equal(readOwner(copy), undefined, 'the copied lock names a live process, but one that owns the original');

      const lines: string[] = [];
      const taken = acquireOwnerLock(copy, { role: 'cli' }, { log: (line) => lines.push(line) });
      assert.ok(taken.ok, taken.ok ? '' : taken.message);
      assert.equal(lines.length, 1);
      assert.match(
        lines[0]!,
        new RegExp(`pid ${process.pid} \\(serve\\).*which was taken on another folder \\(this one is a copy of it\\)`),
      );
      assert.deepEqual(taken.value.info.folder, folderIdentityOf(copy));
      taken.value.release();
      assert.equal(readOwner(original)?.startedAt, held.value.info.startedAt, "the original's lock is untouched");
    } finally {
      held.value.release();
    }
  });

  it('keeps the lock of a folder that was moved (the same folder under a new path)', () => {
    const dir = foremanDir();
    const held = acquireOwnerLock(dir, { role: 'serve' });
    assert.ok(held.ok);
    const moved = join(sandbox, `moved-${++counter}`);
    renameSync(join(dir, '..'), moved);
    const movedDir = join(moved, '.foreman');
    assert.equal(readOwner(movedDir)?.pid, process.pid);
    const second = acquireOwnerLock(movedDir, { role: 'cli' });
    assert.equal(second.ok, false);
    assert.ok(!second.ok && second.code === 'ownedByOther');
    held.value.release();
  });

  it('trusts a lock from another host, or one that records no folder (or a malformed one), as before', () => {
    const elsewhere = { dev: '1', ino: '2' };
    const cases: Array<Record<string, unknown>> = [
      { host: `not-${hostname()}`, folder: elsewhere },
      {},
      { folder: { dev: 'x', ino: '2' } },
      { folder: 'nonsense' },
    ];
    for (const fields of cases) {
      const dir = foremanDir();
      writeLock(dir, fields);
      assert.ok(readOwner(dir), JSON.stringify(fields));
      const refused = acquireOwnerLock(dir, { role: 'cli' });
      assert.ok(!refused.ok && refused.code === 'ownedByOther', JSON.stringify(fields));
    }
  });

  it('reads a folder identity only in the form it writes', () => {
    const identity = folderIdentityOf(sandbox)!;
    assert.deepEqual(readFolderIdentity(JSON.parse(JSON.stringify(identity))), identity);
    assert.deepEqual(readFolderIdentity({ ...identity, extra: 1 }), identity);
    for (const bad of [null, [], 'x', { dev: 1, ino: 2 }, { dev: '1' }, { dev: '-1', ino: '2' }, { dev: '1', ino: '1'.repeat(21) }]) {
      assert.equal(readFolderIdentity(bad), undefined, JSON.stringify(bad));
    }
    // Read back from the lock as written.
    const dir = foremanDir();
    const held = acquireOwnerLock(dir, { role: 'serve' });
    assert.ok(held.ok);
    const written = JSON.parse(readFileSync(join(dir, lockName), 'utf8')) as { folder: unknown };
    assert.deepEqual(readFolderIdentity(written.folder), folderIdentityOf(dir));
    held.value.release();
  });
});
