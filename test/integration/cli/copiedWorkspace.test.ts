/**
 * A copied workspace never writes into the original (issue 28, item 3 and item 4). `cp -a` of a
 * repository while its `foreman serve` runs copies the owner's lock (naming a live pid), its
 * endpoint.json and its token. Writes made in the copy must stay in the copy, which works as a
 * workspace of its own (one-shot calls, or its own `serve`); the original still routes to its owner.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readAnnouncement } from '../../../src/infra/endpoint';
import { pollUntil } from '../../support/pollUntil';
import { type Server, foreman, foremanJson, servedRepo, startServe, tempFolder } from './harness';

interface Status {
  readonly tasks: ReadonlyArray<{ readonly id: string }>;
  readonly workers: ReadonlyArray<{ readonly id: string }>;
}

const taskIds = async (repo: string): Promise<string[]> =>
  (await foremanJson<Status>(repo, ['status'])).tasks.map((task) => task.id).sort();

/** `cp -a repo <new folder>/copy`, as a person would copy a repository. */
function copyOf(repo: string): string {
  const copy = join(tempFolder(), 'copy');
  execFileSync('cp', ['-a', repo, copy]);
  return copy;
}

/** The owner's log says it took this task's transitions (it logs each one). */
const loggedTask = (server: Server, id: string): boolean => server.output().includes(`task ${id}: created`);

describe('foreman CLI: a copied workspace', { timeout: 180_000 }, () => {
  let repo = '';
  let server: Server | undefined;

  before(async () => {
    ({ repo, server } = await servedRepo(['w1']));
    const added = await foreman(repo, ['task', 'add', 'Before the copy', '--id', 'before']);
    assert.equal(added.code, 0, added.stderr);
  });
  after(async () => {
    assert.equal(await server?.stop(), 0);
  });

  it('takes writes made in a copy into the copy, never into the original', async () => {
    const copy = copyOf(repo);
    // What made the copy write into the original: the owner's lock and announcement came along.
    const copiedLock = JSON.parse(readFileSync(join(copy, '.foreman', 'owner.lock'), 'utf8')) as { pid: number };
    assert.equal(copiedLock.pid, server!.pid);
    assert.equal(readAnnouncement(join(copy, '.foreman'))?.info.pid, server!.pid);

    const added = await foreman(copy, ['task', 'add', 'Made in the copy', '--id', 'in-copy']);
    assert.equal(added.code, 0, added.stderr);
    assert.equal(added.stdout, 'task in-copy: queued "Made in the copy"\n');
    assert.match(
      added.stderr,
      /owner\.lock: removed the stale lock of pid \d+ \(serve\).*taken on another folder \(this one is a copy of it\)/,
    );

    assert.deepEqual(await taskIds(repo), ['before'], 'the original does not have it');
    assert.ok(!loggedTask(server!, 'in-copy'), "the original's owner never saw it");
    assert.deepEqual(await taskIds(copy), ['before', 'in-copy'], 'the copy has its own state, from the copy on');
    const workers = await foremanJson<Status>(copy, ['status']);
    assert.deepEqual(
      workers.workers.map((worker) => worker.id),
      ['w1'],
    );
    // The copy is its own workspace: its one-shot calls took and released its own lock.
    assert.ok(!existsSync(join(copy, '.foreman', 'owner.lock')));
    const original = JSON.parse(readFileSync(join(repo, '.foreman', 'owner.lock'), 'utf8')) as { pid: number };
    assert.equal(original.pid, server!.pid, "the original's lock is untouched");
  });

  it('still routes the original to its owner', async () => {
    const added = await foreman(repo, ['task', 'add', 'After the copy', '--id', 'after']);
    assert.equal(added.code, 0, added.stderr);
    await pollUntil(() => loggedTask(server!, 'after'), { timeoutMs: 10_000, what: "the original's owner logs the task" });
    assert.deepEqual(await taskIds(repo), ['after', 'before']);
  });

  it("lets a copy run its own serve while the original's runs, each answering for its own folder", async () => {
    const copy = copyOf(repo);
    const second = await startServe(copy);
    try {
      assert.match(second.output(), /taken on another folder \(this one is a copy of it\)/);
      assert.equal(readAnnouncement(join(copy, '.foreman'))?.info.pid, second.pid);
      assert.equal(readAnnouncement(join(repo, '.foreman'))?.info.pid, server!.pid);

      assert.equal((await foreman(copy, ['task', 'add', 'Served copy', '--id', 'served-copy'])).code, 0);
      assert.equal((await foreman(repo, ['task', 'add', 'Served original', '--id', 'served-original'])).code, 0);
      await pollUntil(() => loggedTask(second, 'served-copy') && loggedTask(server!, 'served-original'), {
        timeoutMs: 10_000,
        what: 'each owner logs its own task',
      });
      assert.ok(!loggedTask(server!, 'served-copy') && !loggedTask(second, 'served-original'));
      assert.deepEqual(await taskIds(copy), ['after', 'before', 'served-copy']);
      assert.deepEqual(await taskIds(repo), ['after', 'before', 'served-original']);
    } finally {
      assert.equal(await second.stop(), 0);
    }
    // The copy's owner stopping took nothing of the original's with it.
    assert.equal((await foreman(repo, ['task', 'add', 'Still served', '--id', 'still'])).code, 0);
    await pollUntil(() => loggedTask(server!, 'still'), { timeoutMs: 10_000, what: "the original's owner logs the task" });
  });

  it('routes another path to the same folder (a symbolic link) to the owner', async () => {
    const elsewhere = tempFolder();
    const link = join(elsewhere, 'link');
    symlinkSync(repo, link);
    // --dir keeps the path as given (a working folder would be resolved to the real one).
    const added = await foreman(elsewhere, ['task', 'add', 'Through a link', '--id', 'via-link', '--dir', link]);
    assert.equal(added.code, 0, added.stderr);
    await pollUntil(() => loggedTask(server!, 'via-link'), { timeoutMs: 10_000, what: "the original's owner logs the task" });
  });
});
