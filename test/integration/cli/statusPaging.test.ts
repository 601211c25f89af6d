/**
 * `foreman status` pages by default (issue 13): at most 100 tasks, the active ones first, with a
 * line that says what was left out and how to see it; `--all`, `--limit`, `--status`, `--worker`
 * and `--since` through the real CLI, and bad flags refused with what is allowed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StatusSnapshot } from '../../../src/engine/statusView';
import { foreman, foremanJson, makeRepo } from './harness';

test('status: a page with the rest counted, filters, and bad flags refused', { timeout: 120_000 }, async () => {
  const repo = makeRepo();
  assert.equal((await foreman(repo, ['init'])).code, 0);
  for (const title of ['one', 'two', 'three', 'four']) assert.equal((await foreman(repo, ['task', 'add', title])).code, 0);

  const page = await foreman(repo, ['status', '--limit', '2']);
  assert.equal(page.code, 0, page.stderr);
  assert.match(
    page.stdout,
    /showing 2 of 4 tasks \(the active ones first, then the latest finished\); narrow with --status, --worker or --since, or list them all with --all/,
  );
  assert.match(page.stdout, /all 4 tasks: queued 4/);

  const everything = await foremanJson<StatusSnapshot>(repo, ['status']);
  assert.deepEqual(
    everything.tasks.map((task) => task.title),
    ['one', 'two', 'three', 'four'],
  );
  assert.deepEqual(everything.page, { limit: 100, total: 4, matching: 4, shown: 4, counts: { queued: 4 }, archived: 0 });
  const all = await foremanJson<StatusSnapshot>(repo, ['status', '--all']);
  assert.equal(all.page, undefined);
  assert.equal((await foremanJson<StatusSnapshot>(repo, ['status', '--status', 'DONE,cancelled'])).tasks.length, 0);
  assert.equal((await foremanJson<StatusSnapshot>(repo, ['status', '--since', '1h'])).tasks.length, 4);

  const badSince = await foreman(repo, ['status', '--since', 'yesterday']);
  assert.equal(badSince.code, 2);
  assert.match(badSince.stderr, /--since: 'yesterday' is neither a duration back from now \(90s, 30m, 2h, 7d\) nor a date/);
  const both = await foreman(repo, ['status', '--all', '--limit', '3']);
  assert.equal(both.code, 2);
  assert.match(both.stderr, /--all and --limit contradict each other/);
  const badStatus = await foreman(repo, ['status', '--status', 'finished']);
  assert.equal(badStatus.code, 2);
  assert.match(badStatus.stderr, /a task status is one of idle, queued, running, done, failed, cancelled/);
});
