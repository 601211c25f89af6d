/**
 * `foreman serve` started while a one-shot CLI call holds the owner lock (issue 10, item 6) waits
 * for that call to finish and becomes the owner, with a progress line, instead of refusing: the
 * README's `foreman serve & foreman status` must leave an owner. A long-running owner is still
 * refused at once.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { test } from 'node:test';
import { pollUntil } from '../../support/pollUntil';
import { type ServeProcess, spawnServe as spawnServeOf } from '../../support/serve';
import { foreman, foremanJson, makeRepo } from './harness';

function spawnServe(repo: string): ServeProcess {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('FOREMAN_')));
  return spawnServeOf(repo, { args: ['--no-agents'], env });
}

/** How this file waits on serve: its output is cheap to read, and start-up beside a held lock can take seconds. */
const serveWait = { timeoutMs: 20_000, intervalMs: 20 };

const isReady = (serve: ServeProcess): boolean => serve.isReady();

const stopServe = (serve: ServeProcess): Promise<number | null> => serve.stop();

async function initialised(): Promise<string> {
  const repo = makeRepo();
  const init = await foreman(repo, ['init']);
  assert.equal(init.code, 0, init.stderr);
  return repo;
}

/** A live process standing in for a holder of `role`, and the lock it holds. */
function holdLock(repo: string, role: string): ChildProcess {
  const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
  const lock = { pid: holder.pid, host: hostname(), startedAt: Date.now(), role };
  writeFileSync(join(repo, '.foreman', 'owner.lock'), JSON.stringify(lock), { mode: 0o600 });
  return holder;
}

test('serve waits for a one-shot call holding the lock, says so, and becomes the owner when it lets go', { timeout: 60_000 }, async () => {
  const repo = await initialised();
  const holder = holdLock(repo, 'cli');
  const serve = spawnServe(repo);
  try {
    await pollUntil(() => /waiting for pid \d+ \(cli\) to finish with the owner lock/.test(serve.output()), {
      what: 'the progress line',
      ...serveWait,
    });
    await delay(1_000);
    assert.equal(serve.child.exitCode, null, `serve gave up while the one-shot held the lock: ${serve.output()}`);
    assert.ok(!isReady(serve), 'serve became the owner while the lock was held');
    // The one-shot call finishes: it deletes its lock (its process may live on).
    rmSync(join(repo, '.foreman', 'owner.lock'));
    await pollUntil(() => isReady(serve) || serve.child.exitCode !== null, { what: 'serve to become the owner', ...serveWait });
    assert.ok(isReady(serve), serve.output());
    assert.match(serve.output(), /took the owner lock after waiting [\d.]+ s/);
    const status = await foremanJson<{ workers: unknown[] }>(repo, ['status']);
    assert.deepEqual(status.workers, []);
    assert.equal(await stopServe(serve), 0, serve.output());
  } finally {
    holder.kill();
    await stopServe(serve);
  }
});

test('foreman serve & foreman status (the README walkthrough) always leaves serve the owner', { timeout: 120_000 }, async () => {
  const repo = await initialised();
  for (let round = 0; round < 4; round++) {
    const serve = spawnServe(repo);
    // Status races serve for the lock: sometimes it wins and serve has to wait for it.
    const status = await foreman(repo, ['status']);
    try {
      assert.equal(status.code, 0, `round ${round}: status exited ${status.code}: ${status.stderr}`);
      await pollUntil(() => isReady(serve) || serve.child.exitCode !== null, {
        what: `round ${round}: serve to become the owner`,
        ...serveWait,
      });
      assert.ok(isReady(serve), `round ${round}: ${serve.output()}`);
    } finally {
      assert.equal(await stopServe(serve), 0, `round ${round}: ${serve.output()}`);
    }
  }
});

test('serve does not wait for a long-running owner: it is refused at once (exit 3)', { timeout: 30_000 }, async () => {
  const repo = await initialised();
  const holder = holdLock(repo, 'serve');
  try {
    const started = Date.now();
    const serve = spawnServe(repo);
    const { code } = await serve.exited;
    assert.equal(code, 3, serve.output());
    assert.match(serve.output(), /owned by pid \d+ \(serve\)/);
    assert.doesNotMatch(serve.output(), /waiting for/);
    assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
  } finally {
    holder.kill();
  }
});

test('SIGTERM while serve waits for the lock stops it at once, cleanly, leaving the lock to its holder', { timeout: 30_000 }, async () => {
  const repo = await initialised();
  const holder = holdLock(repo, 'cli');
  const serve = spawnServe(repo);
  try {
    await pollUntil(() => /waiting for pid/.test(serve.output()), { what: 'the progress line', ...serveWait });
    const started = Date.now();
    serve.child.kill('SIGTERM');
    assert.equal((await serve.exited).code, 0, serve.output());
    assert.ok(Date.now() - started < 5_000, `took ${Date.now() - started} ms`);
    assert.match(serve.output(), /SIGTERM while waiting for the owner lock: stopped/);
  } finally {
    holder.kill();
  }
});
