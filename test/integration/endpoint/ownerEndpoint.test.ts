/**
 * The endpoint of a real `foreman serve` under attack and across users (issue 10, item 9): a client
 * that pipelines 50 MB of requests without reading does not grow the owner's memory (RSS from
 * /proc) and does not stop it answering others; a long repository path gets a socket in a fresh
 * private folder (0700, recorded in endpoint.json, removed on stop, and cleaned up after a kill);
 * another user's `foreman status` is told "permission denied on the token" at once.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { after, test } from 'node:test';
import { readAnnouncement } from '../../../src/infra/endpoint';
import { makeGitRepo } from '../../support/gitRepo';
import { runProcess } from '../../support/runProcess';
import { cliPath, foreman, foremanJson, makeRepo, startServe } from '../cli/harness';

const sandbox = mkdtempSync(join(tmpdir(), 'foreman-owner-endpoint-'));
after(() => rmSync(sandbox, { recursive: true, force: true }));

/** Resident memory of a process, in MiB. */
function rssMiB(pid: number): number {
  const kib = Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return kib / 1024;
}

/** A repository outside the harness's sandbox, so a test can choose its path and modes. */
function repoAt(root: string): string {
  return makeGitRepo(root, { configureIdentity: false });
}

async function initialised(repo: string): Promise<string> {
  const init = await foreman(repo, ['init']);
  assert.equal(init.code, 0, init.stderr);
  return repo;
}

/**
 * Writes `total` bytes of request lines without ever reading, as fast as the socket takes them;
 * stops early once the owner has stopped reading for `stallMs`. Resolves to the bytes written.
 */
async function pipelineWithoutReading(socket: net.Socket, line: string, total: number, stallMs: number): Promise<number> {
  const block = Buffer.from(line.repeat(Math.ceil((1024 * 1024) / line.length)));
  let written = 0;
  while (written < total) {
    written += block.length;
    if (socket.write(block)) continue;
    const drained = await Promise.race([
      new Promise<boolean>((resolve) => socket.once('drain', () => resolve(true))),
      delay(stallMs).then(() => false),
    ]);
    if (!drained) break;
  }
  return written;
}

test(
  'a client pipelining 50 MB without reading does not grow the owner, which still answers others',
  { timeout: 120_000, skip: !existsSync('/proc/self/status') && "needs /proc to read the owner's RSS" },
  async (t) => {
    const repo = await initialised(makeRepo());
    await foreman(repo, ['worker', 'add', 'w1', '--agent', 'demo']);
    const server = await startServe(repo);
    const attacker = new net.Socket();
    try {
      // Warm the owner up (status, its code paths) so the baseline is not its start-up.
      for (let round = 0; round < 3; round++) await foremanJson(repo, ['status']);
      const before = rssMiB(server.pid);
      await new Promise<void>((resolve, reject) => {
        attacker.once('error', reject);
        attacker.connect(server.socketPath, resolve);
      });
      // Requests the owner answers at once (a wrong token), so only the endpoint's limits can hold it back.
      const line = `${JSON.stringify({ token: 'not-the-token', request: { command: 'status', args: {}, actor: 'cli' } })}\n`;
      const written = await pipelineWithoutReading(attacker, line, 50 * 1024 * 1024, 3_000);
      await delay(500);
      const grown = rssMiB(server.pid) - before;
      t.diagnostic(
        `owner RSS ${before.toFixed(0)} MiB, +${grown.toFixed(1)} MiB after the client wrote ${(written / 1024 / 1024).toFixed(0)} MiB`,
      );
      assert.ok(written < 50 * 1024 * 1024, 'the owner kept reading from a client that reads nothing');
      assert.ok(grown < 40, `the owner grew by ${grown.toFixed(1)} MiB`);

      const started = Date.now();
      const status = await foremanJson<{ workers: Array<{ id: string }> }>(repo, ['status']);
      assert.deepEqual(
        status.workers.map((worker) => worker.id),
        ['w1'],
      );
      assert.ok(Date.now() - started < 10_000, `status took ${Date.now() - started} ms beside the attacker`);
    } finally {
      attacker.destroy();
      assert.equal(await server.stop(), 0, server.output());
    }
  },
);

test(
  'a long repository path gets its socket in a fresh private folder, recorded, removed on stop and after a kill',
  { timeout: 60_000 },
  async () => {
    const repo = await initialised(repoAt(join(sandbox, `long-${'x'.repeat(110)}`, 'repo')));
    const foremanDir = join(repo, '.foreman');
    const first = await startServe(repo);
    let firstDir: string;
    try {
      firstDir = dirname(first.socketPath);
      assert.notEqual(firstDir, foremanDir);
      const stat = statSync(firstDir);
      assert.equal(stat.mode & 0o777, 0o700, `socket folder mode ${(stat.mode & 0o777).toString(8)}`);
      assert.equal(stat.uid, process.getuid!());
      assert.deepEqual(readAnnouncement(foremanDir)!.info.socketDir, firstDir);
      assert.deepEqual((await foremanJson<{ workers: unknown[] }>(repo, ['status'])).workers, []);
    } finally {
      assert.equal(await first.stop(), 0, first.output());
    }
    assert.equal(existsSync(firstDir), false, 'the private folder outlived its owner');

    // An owner killed outright leaves its folder; the next owner removes it and makes a new one.
    const killed = await startServe(repo);
    const killedDir = dirname(killed.socketPath);
    killed.child.kill('SIGKILL');
    await killed.stop();
    assert.ok(existsSync(killedDir));
    const next = await startServe(repo);
    try {
      assert.equal(existsSync(killedDir), false, "the dead owner's folder was left behind");
      assert.notEqual(dirname(next.socketPath), killedDir);
    } finally {
      assert.equal(await next.stop(), 0, next.output());
    }
  },
);

const isRoot = process.getuid?.() === 0;
const hasRunuser = ((): boolean => {
  try {
    execFileSync('runuser', ['--help'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const otherUserSkip = !isRoot
  ? 'needs root to run the client as another user (runuser -u nobody)'
  : !hasRunuser
    ? 'needs runuser to run the client as another user'
    : false;

test(
  'another user\'s foreman status is told "permission denied on the token" at once',
  { timeout: 60_000, skip: otherUserSkip },
  async () => {
    // A folder every user may enter, so the other user reaches .foreman/ at all.
    const open = mkdtempSync(join(tmpdir(), 'foreman-shared-'));
    chmodSync(open, 0o755);
    try {
      const repo = await initialised(repoAt(join(open, 'repo')));
      const foremanDir = join(repo, '.foreman');
      const server = await startServe(repo);
      try {
        const asNobody = () =>
          runProcess('runuser', ['-u', 'nobody', '--', process.execPath, cliPath, 'status'], {
            cwd: repo,
            env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: '/' },
          });
        // As shipped (.foreman 0700): refused at once, naming whose it is.
        let started = Date.now();
        let run = await asNobody();
        assert.equal(run.code, 3, `${run.stdout}${run.stderr}`);
        assert.match(run.stderr, /permission denied/i);
        assert.ok(Date.now() - started < 4_000, `took ${Date.now() - started} ms`);

        // Widened by hand (or by an older version): the lock and endpoint.json readable, the token not.
        chmodSync(foremanDir, 0o755);
        chmodSync(join(foremanDir, 'owner.lock'), 0o644);
        chmodSync(join(foremanDir, 'endpoint.json'), 0o644);
        started = Date.now();
        run = await asNobody();
        assert.equal(run.code, 3, `${run.stdout}${run.stderr}`);
        assert.match(run.stderr, /permission denied on the token \(.*endpoint\.token\): the owner of this workspace runs as uid 0/);
        assert.doesNotMatch(run.stderr, /did not take the request/);
        assert.ok(Date.now() - started < 4_000, `took ${Date.now() - started} ms`);
      } finally {
        assert.equal(await server.stop(), 0, server.output());
      }
    } finally {
      rmSync(open, { recursive: true, force: true });
    }
  },
);
