/**
 * Choosing PostgreSQL for a clone (issue 14), through the real CLI (dist/cli.js) against a real
 * server (test/support/postgres.ts): `foreman init --store` writes `.foreman/store.json` without the
 * password and tells where it goes; later calls find it in PGPASSWORD or a password file; a second
 * clone joins the same queue without moving the team's base branch; TLS options reach the driver;
 * a bad `store.json` is refused by name; and a server that goes away under a running owner fails a
 * write with the server named (never the password), writes nothing, and the next write after it is
 * back works. Each test has its own database on the one server.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execFileSync } from 'node:child_process';
import { openOwner } from '../../../src/host/owner';
import { PgStore } from '../../../src/infra/pg/pgStore';
import { type TestPostgres, createDatabase, startPostgres } from '../../support/postgres';
import { type Run, foreman, foremanJson, makeRepo, startServe, tempFolder } from '../cli/harness';

let server: TestPostgres;
let databases = 0;

before(async () => {
  server = await startPostgres();
});
after(async () => {
  await server?.stop();
});

/** A fresh database on the test server: its URL with and without the password. */
function database(): { url: string; bare: string } {
  const url = new URL(createDatabase(server.url, `crew${++databases}`));
  const bare = new URL(url);
  bare.password = '';
  return { url: url.toString(), bare: bare.toString() };
}

/** Everything a run printed, which must never hold the password. */
function assertNoPassword(run: Run | string, what: string): void {
  const text = typeof run === 'string' ? run : `${run.stdout}${run.stderr}`;
  assert.ok(!text.includes(server.password), `${what} shows the password: ${text}`);
}

/** Every file under `.foreman/`, none of which may hold the password. */
function assertNoPasswordInFiles(repo: string): void {
  const dir = path.join(repo, '.foreman');
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    assert.ok(!fs.readFileSync(file).includes(server.password), `${file} holds the password`);
  }
}

/** Reads the shared meta directly, as another machine's owner would see it. */
function sharedMeta(url: string): Record<string, string> {
  const store = PgStore.open(url);
  try {
    const rows = store.read((reader) => reader.all<{ key: string; value: string }>('SELECT key, value FROM meta'));
    return Object.fromEntries(rows.map((row) => [row.key, row.value]));
  } finally {
    store.close();
  }
}

describe('choosing PostgreSQL for a clone', () => {
  it('init --store writes the URL without its password, says where the password goes, and later calls find it there', async () => {
    const { url, bare } = database();
    const repo = makeRepo();
    const init = await foreman(repo, ['init', '--store', bare, '--password-stdin', '--json'], { stdin: `${server.password}\n` });
    assert.equal(init.code, 0, init.stderr);
    assertNoPassword(init.stdout, 'init');
    assert.match(init.stderr, /PGPASSWORD.*~\/\.pgpass/);
    const report = JSON.parse(init.stdout) as { store: string; created: boolean; baseBranch: string };
    assert.deepEqual([report.store, report.created, report.baseBranch], [bare, true, 'main']);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(repo, '.foreman', 'store.json'), 'utf8')), { kind: 'postgres', url: bare });
    assert.equal(fs.existsSync(path.join(repo, '.foreman', 'foreman.db')), false, 'no sql.js store is made');

    // No password anywhere: refused, naming the server and where to give it.
    const without = await foreman(repo, ['worker', 'add', 'ada']);
    assert.equal(without.code, 3, without.stderr);
    assert.match(without.stderr, new RegExp(`Cannot connect to PostgreSQL at ${escape(`postgres://127.0.0.1:${server.port}/crew`)}`));
    assert.match(without.stderr, /PGPASSWORD or ~\/\.pgpass/);

    const added = await foreman(repo, ['worker', 'add', 'ada'], { env: { PGPASSWORD: server.password } });
    assert.equal(added.code, 0, added.stderr);

    // A password file, private to its user; one that others can read is ignored, as libpq does.
    const passfile = path.join(tempFolder(), 'pgpass');
    fs.writeFileSync(passfile, `127.0.0.1:${server.port}:*:foreman:${server.password}\n`, { mode: 0o600 });
    fs.chmodSync(passfile, 0o600);
    const listed = await foremanJson<Array<{ id: string }>>(repo, ['worker', 'list'], { env: { PGPASSFILE: passfile } });
    assert.deepEqual(
      listed.map((worker) => worker.id),
      ['ada'],
    );
    fs.chmodSync(passfile, 0o644);
    const ignored = await foreman(repo, ['worker', 'list'], { env: { PGPASSFILE: passfile } });
    assert.equal(ignored.code, 3, ignored.stderr);

    assertNoPasswordInFiles(repo);
    const meta = sharedMeta(url);
    assert.equal(meta['base_branch'], 'main');
    assert.equal(meta['repo_root'], undefined, "a machine's folder is not written to the shared store");
  });

  it('a second clone joins the queue: init keeps the recorded base unless --base is given, and is idempotent', async () => {
    const { url, bare } = database();
    const env = { PGPASSWORD: server.password };
    const first = makeRepo();
    assert.equal((await foreman(first, ['init', '--store', bare], { env })).code, 0);
    assert.equal((await foreman(first, ['task', 'add', 'Shared work'], { env })).code, 0);

    const second = makeRepo();
    execFileSync('git', ['checkout', '--quiet', '-b', 'topic'], { cwd: second });
    const joined = await foremanJson<{ baseBranch: string; changed: string[] }>(second, ['init', '--store', bare], { env });
    assert.equal(joined.baseBranch, 'main', "the team's base, not the branch checked out in this clone");
    assert.deepEqual(joined.changed, ['store']);
    const again = await foremanJson<{ changed: string[]; created: boolean }>(second, ['init', '--store', bare], { env });
    assert.deepEqual([again.changed, again.created], [[], false]);
    const plain = await foreman(second, ['init'], { env });
    assert.match(plain.stdout, /already initialised .* on postgres:\/\/.*nothing changed/);

    const { tasks } = await foremanJson<{ tasks: Array<{ title: string }> }>(second, ['status', '--all'], { env });
    assert.deepEqual(
      tasks.map((task) => task.title),
      ['Shared work'],
    );
    execFileSync('git', ['branch', 'develop'], { cwd: second });
    const moved = await foremanJson<{ baseBranch: string; changed: string[] }>(second, ['init', '--base', 'develop'], { env });
    assert.deepEqual([moved.baseBranch, moved.changed], ['develop', ['base_branch']]);
    assert.equal(sharedMeta(url)['base_branch'], 'develop');
  });

  it('a wrong password is refused without showing it, and the clone is left as it was', async () => {
    const { bare } = database();
    const repo = makeRepo();
    const run = await foreman(repo, ['init', '--store', bare, '--password-stdin'], { stdin: 'not-the-password\n' });
    assert.equal(run.code, 3, run.stderr);
    assert.match(run.stderr, /password authentication failed/);
    assert.ok(!`${run.stdout}${run.stderr}`.includes('not-the-password'));
    assert.equal(fs.existsSync(path.join(repo, '.foreman', 'store.json')), false);
    const status = await foreman(repo, ['status']);
    assert.match(status.stderr, /No Foreman here/);
  });

  it('passes TLS options through: the URL sslmode and the files named in store.json reach the driver', async () => {
    const { bare } = database();
    const env = { PGPASSWORD: server.password };
    const repo = makeRepo();
    // The test server speaks no TLS: asking for it must fail, which shows the option was applied.
    const tls = await foreman(repo, ['init', '--store', `${bare}?sslmode=require`], { env });
    assert.equal(tls.code, 3, tls.stderr);
    assert.match(tls.stderr, /does not support SSL/);

    assert.equal((await foreman(repo, ['init', '--store', bare], { env })).code, 0);
    const file = path.join(repo, '.foreman', 'store.json');
    const missingCa = path.join(tempFolder(), 'missing-ca.pem');
    fs.writeFileSync(file, JSON.stringify({ kind: 'postgres', url: bare, ssl: { caFile: missingCa } }));
    const status = await foreman(repo, ['status'], { env });
    assert.equal(status.code, 3, status.stderr);
    assert.ok(status.stderr.includes(missingCa), status.stderr);
    // The same server named again keeps the TLS options already recorded.
    const kept = await foremanJson<{ changed: string[] }>(repo, ['init', '--store', bare], { env }).catch((error: unknown) => error);
    assert.ok(kept instanceof Error && kept.message.includes(missingCa), String(kept));
  });

  it('refuses a bad store.json, naming the file and the field', async () => {
    const { bare } = database();
    const repo = makeRepo();
    assert.equal((await foreman(repo, ['init', '--store', bare], { env: { PGPASSWORD: server.password } })).code, 0);
    const file = path.join(repo, '.foreman', 'store.json');
    fs.writeFileSync(file, JSON.stringify({ kind: 'postgres', url: `postgres://foreman:${server.password}@127.0.0.1/x` }));
    const run = await foreman(repo, ['status']);
    assert.equal(run.code, 2, run.stderr);
    assert.ok(run.stderr.includes(`${file}: url: holds a password`), run.stderr);
    assertNoPassword(run, 'the refusal');
  });

  it("the window's store (the foreman.store setting) overrides store.json: the owner opens PostgreSQL in a clone set up on sql.js", async () => {
    const { url } = database();
    const repo = makeRepo();
    assert.equal((await foreman(repo, ['init'])).code, 0);
    const opened = await openOwner(repo, { role: 'cli', store: { kind: 'postgres', url } });
    assert.ok(opened.ok, !opened.ok ? opened.message : '');
    try {
      assert.ok(opened.value.store instanceof PgStore);
      const added = await opened.value.execute({ command: 'worker.add', args: { id: 'ada', agent: 'demo' }, actor: 'cli' });
      assert.ok(added.ok, !added.ok ? added.message : '');
    } finally {
      opened.value.close();
    }
    const store = PgStore.open(url);
    try {
      assert.deepEqual(
        store.read((reader) => reader.all<{ id: string }>('SELECT id FROM workers')),
        [{ id: 'ada' }],
      );
    } finally {
      store.close();
    }
    const local = await foremanJson<{ workers: unknown[] }>(repo, ['status']);
    assert.deepEqual(local.workers, [], "the clone's own sql.js store was not written");
  });

  it('the server goes away under a running owner: a write fails naming it and writes nothing; the next write after it returns works', async () => {
    const { url, bare } = database();
    const env = { PGPASSWORD: server.password };
    const repo = makeRepo();
    assert.equal((await foreman(repo, ['init', '--store', bare], { env })).code, 0);
    const owner = await startServe(repo, { env });
    try {
      assert.equal((await foreman(repo, ['task', 'add', 'Before'], { env })).code, 0);
      await server.stopServer();
      const lost = await foreman(repo, ['task', 'add', 'While down'], { env });
      await server.start();
      assert.equal(lost.code, 3, lost.stderr);
      assert.match(lost.stderr, new RegExp(`PostgreSQL at ${escape(`postgres://127.0.0.1:${server.port}/crew`)}`));
      assert.match(lost.stderr, /Nothing of this change was written/);
      assertNoPassword(lost, 'the failure');

      const back = await foreman(repo, ['task', 'add', 'After'], { env });
      assert.equal(back.code, 0, back.stderr);
      const { tasks } = await foremanJson<{ tasks: Array<{ title: string }> }>(repo, ['status', '--all'], { env });
      assert.deepEqual(tasks.map((task) => task.title).sort(), ['After', 'Before']);
      assert.equal(owner.child.exitCode, null, 'the owner kept running');
      assertNoPassword(owner.output(), "the owner's log");
    } finally {
      await owner.stop();
    }
    assert.ok(!Object.keys(sharedMeta(url)).includes('repo_root'));
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
