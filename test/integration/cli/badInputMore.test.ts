/**
 * Bad input and broken environments that used to crash with exit 1 "unexpected error": a payload
 * nested deeper than the call stack, a string flag that swallowed the next flag, a bad
 * FOREMAN_WORKER_ID, a damaged store, a read-only `.foreman/` and another user's workspace. Each is
 * refused with its own exit code and a message that says what to do, and changes nothing.
 */
import assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { maxPayloadDepth } from '../../../src/core/payloadDepth';
import { decodeHeaderAt } from '../../../src/infra/db/journalFormat';
import { readAnnouncement, sendToEndpoint } from '../../../src/infra/endpoint';
import { type Run, runProcess } from '../../support/runProcess';
import { type Server, cliPath, foreman, foremanJson, makeRepo, startServe } from './harness';

/** A JSON text of arrays nested `depth` deep around a 1. */
function nested(depth: number): string {
  return `${'['.repeat(depth)}1${']'.repeat(depth)}`;
}

function nestedValue(depth: number): unknown {
  let value: unknown = 1;
  for (let level = 0; level < depth; level++) value = [value];
  return value;
}

async function prepare(repo: string): Promise<void> {
  for (const args of [['init'], ['worker', 'add', 'w1']]) {
    const run = await foreman(repo, args);
    assert.equal(run.code, 0, run.stderr);
  }
  writeFileSync(join(repo, 'deep.json'), nested(20_000));
  writeFileSync(join(repo, 'limit.json'), nested(maxPayloadDepth));
  writeFileSync(join(repo, 'over.json'), nested(maxPayloadDepth + 1));
}

async function taskCount(repo: string): Promise<number> {
  return (await foremanJson<{ tasks: unknown[] }>(repo, ['status'])).tasks.length;
}

async function messageCount(repo: string): Promise<number> {
  return (await foremanJson<{ messages: unknown[] }>(repo, ['poll', 'observer', '--limit', '1000'])).messages.length;
}

/** The payload, flag and variable refusals, the same with and without an owner. */
async function expectInputRefusals(repo: string): Promise<void> {
  const messagesBefore = await messageCount(repo);
  for (const file of ['deep.json', 'over.json']) {
    const run = await foreman(repo, ['send', '--from', 'w1', '--type', 'note', '--payload-file', file]);
    assert.equal(run.code, 2, `${file}: ${run.stderr}`);
    assert.match(run.stderr, /^foreman: send: payload: a payload nests at most 64 arrays or objects deep; flatten it/);
    assert.doesNotMatch(run.stderr, /stack|unexpected/i);
  }
  const atLimit = await foreman(repo, ['send', '--from', 'w1', '--type', 'note', '--payload-file', 'limit.json']);
  assert.equal(atLimit.code, 0, atLimit.stderr);
  assert.equal(await messageCount(repo), messagesBefore + 1);

  const tasksBefore = await taskCount(repo);
  const swallowed = await foreman(repo, ['task', 'add', 'x', '--prompt', '--manual']);
  assert.equal(swallowed.code, 2);
  assert.equal(swallowed.stderr, 'foreman: --prompt needs a value; to pass text starting with -- use --prompt=--manual\n');
  const separator = await foreman(repo, ['task', 'add', 'x', '--prompt', '--', 'y']);
  assert.equal(separator.code, 2);
  assert.match(separator.stderr, /--prompt needs a value/);
  assert.equal(await taskCount(repo), tasksBefore);
  // On purpose, with `=`: the text is the prompt and --manual still applies.
  const added = await foremanJson<{ id: string; status: string }>(repo, ['task', 'add', 'y', '--prompt=--manual', '--manual']);
  assert.equal(added.status, 'idle');
  const titled = await foreman(repo, ['task', 'add', '--id', 'dash', '--manual', '--', '--title-with-dashes']);
  assert.equal(titled.code, 0, titled.stderr);

  for (const workerId of ['BAD ID', '../w1', 'x'.repeat(100)]) {
    const run = await foreman(repo, ['heartbeat'], { env: { FOREMAN_WORKER_ID: workerId } });
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /^foreman: FOREMAN_WORKER_ID: a worker id is .*\(got '/);
    assert.doesNotMatch(run.stderr, /actor/);
    const status = await foreman(repo, ['status'], { env: { FOREMAN_WORKER_ID: workerId } });
    assert.equal(status.code, 2, 'every engine command: the variable would be recorded as the actor');
  }
  assert.equal(await taskCount(repo), tasksBefore + 2);
}

describe('foreman CLI: more bad input', { timeout: 120_000 }, () => {
  it('is refused with exit 2 naming the rule, without an owner', async () => {
    const repo = makeRepo();
    await prepare(repo);
    await expectInputRefusals(repo);
  });

  it('is refused with exit 2 through foreman serve, and the owner refuses a deep payload itself', async () => {
    const repo = makeRepo();
    await prepare(repo);
    let server: Server | undefined;
    try {
      server = await startServe(repo);
      await expectInputRefusals(repo);
      const announced = readAnnouncement(join(repo, '.foreman'))!;
      // Deep enough to refuse, shallow enough for this client's own JSON.stringify.
      const request = { command: 'send', args: { from: 'w1', type: 'note', payload: nestedValue(2_000) }, actor: 'cli' };
      const sent = await sendToEndpoint({ socketPath: announced.info.socketPath, token: announced.token }, request, { timeoutMs: 10_000 });
      assert.ok(sent.kind === 'response', JSON.stringify(sent));
      assert.equal(sent.response.exitCode, 2);
      assert.match(sent.response.result.ok ? '' : sent.response.result.message, /payload: a payload nests at most 64/);
      assert.equal((await foreman(repo, ['status'])).code, 0, 'the owner is still alive');
    } finally {
      assert.equal(await server?.stop(), 0);
    }
  });

  it('refuses a damaged store with exit 3 and what to do, not "unexpected error"', async () => {
    const repo = makeRepo();
    await prepare(repo);
    for (const title of ['T1', 'T2']) assert.equal((await foreman(repo, ['task', 'add', title])).code, 0);
    // The first record is unreadable and intact ones follow it: acknowledged writes are missing.
    const journal = join(repo, '.foreman', 'foreman.journal');
    const bytes = readFileSync(journal);
    // Inside the first record, after the segment's statement table when it has one.
    const firstRecord = decodeHeaderAt(bytes, 0)?.end ?? 0;
    bytes[firstRecord + 20] = bytes[firstRecord + 20]! ^ 0xff;
    writeFileSync(journal, bytes);
    const run = await foreman(repo, ['status']);
    assert.equal(run.code, 3, run.stderr);
    assert.match(run.stderr, /^foreman: The Foreman database in .* is damaged/);
    assert.match(run.stderr, /restore a backup/);
    assert.doesNotMatch(run.stderr, /unexpected|FOREMAN_DEBUG/);
    const json = await foreman(repo, ['status', '--json']);
    assert.equal(json.code, 3);
    assert.equal((JSON.parse(json.stdout) as { error: { code: string } }).error.code, 'storeDamaged');
  });
});

const isRoot = process.getuid?.() === 0;
/** Another user to run as: `nobody`, through runuser (root only). */
const otherUser = isRoot ? { name: 'nobody', uid: 65534 } : undefined;

/** Folders `nobody` can reach (the harness's sandbox is private to this user). */
const shared = mkdtempSync(join(tmpdir(), 'foreman-users-'));
chmodSync(shared, 0o755);
after(() => rmSync(shared, { recursive: true, force: true }));

/** `foreman <args>` as `user`, or as this user; git may not trust another user's repository, so it is told to. */
function foremanAs(user: string | undefined, repo: string, args: readonly string[]): Promise<Run> {
  const env = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: shared,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'safe.directory',
    GIT_CONFIG_VALUE_0: '*',
  };
  const command = [process.execPath, cliPath, ...args];
  return user === undefined
    ? runProcess(command[0]!, command.slice(1), { cwd: repo, env })
    : runProcess('runuser', ['-u', user, '--', ...command], { cwd: repo, env });
}

/** A repository owned by `owner` (or this user) with an initialised workspace. */
async function sharedRepo(name: string, owner: { name: string; uid: number } | undefined): Promise<string> {
  const repo = join(shared, name);
  mkdirSync(repo);
  if (owner) chownSync(repo, owner.uid, owner.uid);
  const env = { PATH: process.env['PATH'] ?? '', HOME: shared, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
  for (const args of [
    ['init', '--quiet', '-b', 'main'],
    ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', 'commit', '--quiet', '--allow-empty', '-m', 'initial'],
  ]) {
    const run = owner
      ? await runProcess('runuser', ['-u', owner.name, '--', 'git', ...args], { cwd: repo, env })
      : await runProcess('git', args, { cwd: repo, env });
    assert.equal(run.code, 0, run.stderr);
  }
  for (const args of [['init'], ['worker', 'add', 'w1']]) {
    const run = await foremanAs(owner?.name, repo, args);
    assert.equal(run.code, 0, run.stderr);
  }
  return repo;
}

describe('foreman CLI: a workspace this user cannot write', { timeout: 120_000 }, () => {
  it('refuses a read-only .foreman/ with exit 3 and the chmod to run', async () => {
    // root writes through any mode, so the read-only owner must be another user then.
    const repo = await sharedRepo('read-only', otherUser);
    const dir = join(repo, '.foreman');
    chmodSync(dir, 0o500);
    try {
      for (const args of [['status'], ['task', 'add', 'T']]) {
        const run = await foremanAs(otherUser?.name, repo, args);
        assert.equal(run.code, 3, run.stderr);
        assert.match(run.stderr, /^foreman: permission denied on .*\.foreman.*read-only.*chmod -R u\+rwX '.*\.foreman'/);
        assert.doesNotMatch(run.stderr, /unexpected|FOREMAN_DEBUG/);
      }
      const json = await foremanAs(otherUser?.name, repo, ['status', '--json']);
      assert.equal((JSON.parse(json.stdout) as { error: { code: string } }).error.code, 'permissionDenied');
    } finally {
      chmodSync(dir, 0o700);
    }
    assert.equal((await foremanAs(otherUser?.name, repo, ['status'])).code, 0);
  });

  it(
    "refuses another user's workspace with exit 3 naming its owner",
    { skip: otherUser ? false : 'needs root to run as a second user' },
    async () => {
      const repo = await sharedRepo('theirs', undefined);
      for (const args of [['status'], ['task', 'add', 'T'], ['init']]) {
        const run = await foremanAs(otherUser!.name, repo, args);
        assert.equal(run.code, 3, `${args.join(' ')}: ${run.stderr}`);
        assert.match(
          run.stderr,
          new RegExp(
            `^foreman: permission denied on .*: this workspace's Foreman state belongs to uid ${process.getuid!()} and you are uid ${otherUser!.uid}; run foreman as that user`,
          ),
        );
        assert.doesNotMatch(run.stderr, /No Foreman here|unexpected/);
      }
    },
  );
});
