import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { acquireOwnerLock, readOwner } from '../../../src/infra/db/index';
import type { OwnerInfo } from '../../../src/infra/db/index';
import { folderIdentityOf } from '../../../src/infra/workspace/folderIdentity';
import { collectLog, tempForemanDir } from './helpers';

const contender = path.join(__dirname, 'fixtures', 'lockContender.ts');

function lockPath(dir: string): string {
  return path.join(dir, 'owner.lock');
}

function writeLockFile(dir: string, info: OwnerInfo): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(lockPath(dir), JSON.stringify(info));
}

/** The pid of a process that has exited (and been reaped). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  assert.ok(child.pid);
  return child.pid;
}

describe('owner lock', () => {
  it('refuses a second acquire while the first holds it, naming pid and role', () => {
    const dir = tempForemanDir();
    const first = acquireOwnerLock(dir, { role: 'window' });
    assert.ok(first.ok);
    const second = acquireOwnerLock(dir, { role: 'cli' });
    assert.equal(second.ok, false);
    assert.ok(!second.ok && second.code === 'ownedByOther');
    assert.ok(!second.ok && second.message.includes(`pid ${process.pid} (window)`), !second.ok ? second.message : '');
    first.value.release();
    const third = acquireOwnerLock(dir, { role: 'cli' });
    assert.ok(third.ok);
    third.value.release();
    assert.equal(fs.existsSync(lockPath(dir)), false);
  });

  it('writes its owner info, updates it atomically, and readOwner reports it', () => {
    const dir = tempForemanDir();
    const lock = acquireOwnerLock(dir, { role: 'serve' });
    assert.ok(lock.ok);
    assert.deepEqual(readOwner(dir), {
      pid: process.pid,
      host: os.hostname(),
      startedAt: lock.value.info.startedAt,
      role: 'serve',
      folder: folderIdentityOf(dir),
    });
    lock.value.update({ endpoint: '/tmp/foreman.sock' });
    assert.equal(readOwner(dir)?.endpoint, '/tmp/foreman.sock');
    assert.deepEqual(
      fs.readdirSync(dir).filter((name) => name.startsWith('owner.lock')),
      ['owner.lock'],
    );
    lock.value.release();
    lock.value.release();
    assert.equal(readOwner(dir), undefined);
    assert.ok(fs.existsSync(path.join(dir, '.gitignore')));
  });

  it('takes over a lock whose process is gone, and logs it', () => {
    const dir = tempForemanDir();
    const pid = deadPid();
    writeLockFile(dir, { pid, host: os.hostname(), startedAt: Date.now() - 1000, role: 'window' });
    assert.equal(readOwner(dir), undefined);
    const { lines, log } = collectLog();
    const lock = acquireOwnerLock(dir, { role: 'cli' }, { log });
    assert.ok(lock.ok, !lock.ok ? lock.message : '');
    assert.equal(readOwner(dir)?.pid, process.pid);
    assert.ok(
      lines.some((line) => line.includes(`pid ${pid} (window)`) && /no longer runs/.test(line)),
      lines.join('\n'),
    );
    lock.value.release();
  });

  it('takes over a lock whose pid now belongs to a process started after it (pid reuse)', () => {
    const dir = tempForemanDir();
    writeLockFile(dir, { pid: process.pid, host: os.hostname(), startedAt: performance.timeOrigin - 60_000, role: 'window' });
    const lock = acquireOwnerLock(dir, { role: 'cli' });
    assert.ok(lock.ok);
    lock.value.release();
  });

  it('leaves a just-created unreadable lock alone, but takes over one older than 10 s', () => {
    const dir = tempForemanDir();
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(lockPath(dir), '');
    const young = acquireOwnerLock(dir, { role: 'cli' });
    assert.ok(!young.ok && young.code === 'ownedByOther');
    const old = (Date.now() - 20_000) / 1000;
    fs.utimesSync(lockPath(dir), old, old);
    const lock = acquireOwnerLock(dir, { role: 'cli' });
    assert.ok(lock.ok);
    lock.value.release();
  });

  for (const stale of [false, true]) {
    it(
      `lets exactly one of several processes win a concurrent acquire${stale ? ' of a stale lock' : ''}`,
      { timeout: 60_000 },
      async () => {
        const dir = tempForemanDir();
        fs.mkdirSync(dir, { recursive: true });
        if (stale) writeLockFile(dir, { pid: deadPid(), host: os.hostname(), startedAt: Date.now() - 5000, role: 'window' });
        const startAt = Date.now() + 3000;
        const children = Array.from({ length: 5 }, () =>
          spawn(process.execPath, ['--import', 'tsx', contender, dir, String(startAt)], { stdio: ['pipe', 'pipe', 'pipe'] }),
        );
        const outcomes = await Promise.all(
          children.map(
            (child) =>
              new Promise<string>((resolve, reject) => {
                let out = '';
                let err = '';
                child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
                  out += chunk;
                  if (out.endsWith('\n')) resolve(out.trim());
                });
                child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
                child.on('close', (code) => reject(new Error(`contender exited early (${code}): ${err}`)));
              }),
          ),
        );
        for (const child of children) child.stdin.end();
        await Promise.all(
          children.map((child) => new Promise((resolve) => (child.exitCode === null ? child.on('close', resolve) : resolve(undefined)))),
        );
        assert.equal(outcomes.filter((outcome) => outcome === 'won').length, 1, outcomes.join(', '));
        assert.equal(outcomes.filter((outcome) => outcome === 'refused ownedByOther').length, children.length - 1, outcomes.join(', '));
        assert.equal(fs.existsSync(lockPath(dir)), false, 'the winner released it');
      },
    );
  }
});
