/**
 * The smaller findings of issue 29 that need no shared server, through the real CLI: a failed
 * `init` leaves no `.foreman/` behind; `init` naming the store already in use while an owner serves
 * changes nothing and says so (exit 0), while another store is still refused; a late message from
 * an ended attempt is refused in words a person understands. (With PostgreSQL:
 * test/integration/pg/teamStatus.test.ts.)
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { type Server, foreman, makeRepo, servedRepo } from './harness';

const servers: Server[] = [];
after(async () => {
  for (const server of servers) await server.stop();
});

describe('a failed init takes back what it made', () => {
  it('a server that cannot be reached leaves no .foreman/ (not even its .gitignore)', async () => {
    const repo = makeRepo();
    const run = await foreman(repo, ['init', '--store', 'postgres://nobody@127.0.0.1:1/nothing'], { env: { PGPASSWORD: 'unused' } });
    assert.equal(run.code, 3, `${run.stdout}${run.stderr}`);
    assert.match(run.stderr, /Cannot connect to PostgreSQL at postgres:\/\/127\.0\.0\.1:1\/nothing: connect ECONNREFUSED/);
    assert.equal(
      existsSync(join(repo, '.foreman')),
      false,
      `left: ${existsSync(join(repo, '.foreman')) ? readdirSync(join(repo, '.foreman')).join(', ') : ''}`,
    );
  });

  it('a detached HEAD with no --base leaves no store behind either', async () => {
    const repo = makeRepo();
    execFileSync('git', ['checkout', '--quiet', '--detach'], { cwd: repo });
    const run = await foreman(repo, ['init']);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /HEAD is detached/);
    assert.equal(existsSync(join(repo, '.foreman')), false);
    // And once it can succeed, it does, from scratch.
    assert.equal((await foreman(repo, ['init', '--base', 'main'])).code, 0);
    assert.deepEqual(readdirSync(join(repo, '.foreman')).includes('.gitignore'), true);
  });

  it('a failed init in a workspace that was there leaves it as it was', async () => {
    const repo = makeRepo();
    assert.equal((await foreman(repo, ['init'])).code, 0);
    const before = readdirSync(join(repo, '.foreman')).sort();
    const run = await foreman(repo, ['init', '--store', 'postgres://nobody@127.0.0.1:1/nothing'], { env: { PGPASSWORD: 'unused' } });
    assert.equal(run.code, 3);
    assert.deepEqual(readdirSync(join(repo, '.foreman')).sort(), before);
    assert.equal((await foreman(repo, ['status'])).code, 0);
  });
});

describe('init while the workspace is served', () => {
  it('naming the store in use changes nothing, says so and exits 0; another store is refused', async () => {
    const { repo, server } = await servedRepo([]);
    servers.push(server);
    for (const args of [['init'], ['init', '--store', 'sqljs']]) {
      const run = await foreman(repo, args);
      assert.equal(run.code, 0, `${args.join(' ')}: ${run.stdout}${run.stderr}`);
      assert.match(run.stdout, /^Foreman is already initialised in .* \(base branch main\); nothing changed$/m);
    }
    const json = await foreman(repo, ['init', '--store', 'sqljs', '--json']);
    assert.equal(json.code, 0);
    assert.deepEqual((JSON.parse(json.stdout) as { changed: string[]; store: string }).changed, []);
    assert.equal((JSON.parse(json.stdout) as { store: string }).store, 'sqljs');
    const other = await foreman(repo, ['init', '--store', 'postgres://nobody@127.0.0.1:1/nothing'], { env: { PGPASSWORD: 'unused' } });
    assert.equal(other.code, 3, 'choosing another store while an owner runs is refused');
    const base = await foreman(repo, ['init', '--base', 'main']);
    assert.equal(base.code, 3, 'so is a base named while an owner runs');
  });
});

describe('a late message is refused in words', () => {
  it('a heartbeat of attempt 1 for a worker that holds no task says so, exit 3', async () => {
    const { repo, server } = await servedRepo(['ada']);
    servers.push(server);
    const late = await foreman(repo, ['heartbeat', 'ada', '--attempt', '1']);
    assert.equal(late.code, 3);
    assert.equal(
      late.stderr.trim(),
      "foreman: heartbeat for worker 'ada' was refused: it comes from attempt 1 of a task the worker no longer holds (that attempt ended: the task was finished, cancelled, failed or taken back), so it changes nothing.",
    );
  });
});
