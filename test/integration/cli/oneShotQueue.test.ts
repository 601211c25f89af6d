/**
 * Sixteen one-shot CLI calls at once with no owner running (issue 10, item 10): each loads the
 * store before taking the lock and holds the lock for its own transaction only, so they queue
 * instead of being refused after 30 s, and every write lands exactly once. How long they take is
 * the bench's business (bench/oneShotContention.bench.ts), not this test's.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { foreman, foremanJson, makeRepo } from './harness';

const clients = 16;

test(`${clients} one-shot calls at once, no owner: every one succeeds and every task lands once`, { timeout: 240_000 }, async () => {
  const repo = makeRepo();
  assert.equal((await foreman(repo, ['init'])).code, 0);
  // Journal records before the race, so the callers preload a journal and catch up on it.
  for (const title of ['before 1', 'before 2']) assert.equal((await foreman(repo, ['task', 'add', title, '--manual'])).code, 0);

  const runs = await Promise.all(
    Array.from({ length: clients }, (_, client) => foreman(repo, ['task', 'add', `client ${client}`, '--manual', '--json'])),
  );
  for (const [client, run] of runs.entries()) {
    assert.equal(run.code, 0, `client ${client}: ${run.stdout}${run.stderr}`);
    // Only the progress lines of a long wait may appear; never an error or a recovery note.
    const progress = /(still )?waiting for (pid \d+ \(cli\)|another process taking the lock)|took the owner lock/;
    const unexpected = run.stderr.split('\n').filter((line) => line && !progress.test(line));
    assert.deepEqual(unexpected, [], `client ${client}`);
  }
  const ids = runs.map((run) => (JSON.parse(run.stdout) as { id: string }).id);
  assert.equal(new Set(ids).size, clients, 'sixteen distinct tasks');

  const status = await foremanJson<{ tasks: Array<{ id: string; title: string }> }>(repo, ['status']);
  const titles = status.tasks.map((task) => task.title).sort();
  const expected = ['before 1', 'before 2', ...Array.from({ length: clients }, (_, client) => `client ${client}`)].sort();
  assert.deepEqual(titles, expected);
  // One-shot calls leave no lock, no stale marker and no temp image behind.
  const left = readdirSync(join(repo, '.foreman')).filter((name) => /owner\.lock|\.tmp$/.test(name));
  assert.deepEqual(left, []);
});
