/**
 * `foreman doctor` (src/infra/workspace/doctor.ts) through the real CLI: on a clone that uses a real
 * PostgreSQL and has a bare repository as `origin`, every check passes with its facts (server
 * version, schema version, clock skew, remote); a missing remote, a server that is down, a schema
 * this Foreman does not know and a folder without Foreman each fail with exit 1 and say why,
 * without the password; on sql.js it checks the store and its schema and needs no remote.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SyncPgClient } from '../../../src/infra/pg/syncClient';
import { migrations } from '../../../src/infra/db';
import { type TestPostgres, createDatabase, startPostgres } from '../../support/postgres';
import { type Run, foreman, makeRepo, tempFolder } from '../cli/harness';

interface Check {
  readonly name: string;
  readonly status: 'pass' | 'warn' | 'fail' | 'skip';
  readonly message: string;
  readonly details?: Record<string, unknown>;
}

let server: TestPostgres;
let databases = 0;

before(async () => {
  server = await startPostgres();
});
after(async () => {
  await server?.stop();
});

/** A clone on its own database of the test server, initialised with `--store`; its `origin` is a bare repository. */
async function pgClone(options: { origin: boolean }): Promise<{ repo: string; database: string }> {
  const url = new URL(createDatabase(server.url, `doctor${++databases}`));
  const database = url.pathname.slice(1);
  url.password = '';
  const repo = makeRepo();
  if (options.origin) {
    const bare = path.join(tempFolder(), 'origin.git');
    execFileSync('git', ['init', '--quiet', '--bare', bare]);
    execFileSync('git', ['remote', 'add', 'origin', bare], { cwd: repo });
    execFileSync('git', ['push', '--quiet', 'origin', 'main'], { cwd: repo });
  }
  const init = await foreman(repo, ['init', '--store', url.toString()], { env: { PGPASSWORD: server.password } });
  assert.equal(init.code, 0, init.stderr);
  return { repo, database };
}

async function doctor(repo: string, env: Record<string, string> = { PGPASSWORD: server.password }): Promise<{ run: Run; checks: Check[] }> {
  const run = await foreman(repo, ['doctor', '--json'], { env });
  assert.ok(!`${run.stdout}${run.stderr}`.includes(server.password), 'the password is never printed');
  const parsed = JSON.parse(run.stdout) as { ok: boolean; checks: Check[] };
  assert.equal(parsed.ok, run.code === 0);
  return { run, checks: parsed.checks };
}

function byName(checks: readonly Check[]): Record<string, Check> {
  return Object.fromEntries(checks.map((check) => [check.name, check]));
}

describe('foreman doctor', () => {
  it('on PostgreSQL with a reachable origin: every check passes, with the facts', async () => {
    const { repo, database } = await pgClone({ origin: true });
    const { run, checks } = await doctor(repo);
    assert.equal(run.code, 0, run.stdout);
    assert.deepEqual(
      checks.map((check) => check.name),
      ['workspace', 'store', 'schema', 'clock', 'remote'],
    );
    const found = byName(checks);
    assert.ok(
      checks.every((check) => check.status === 'pass' || (check.name === 'clock' && check.status === 'warn')),
      run.stdout,
    );
    assert.match(
      found['store']!.message,
      new RegExp(`^PostgreSQL \\d+.* at postgres://127\\.0\\.0\\.1:${server.port}/${database} \\(password from PGPASSWORD\\)`),
    );
    assert.equal(found['schema']!.details?.['schemaVersion'], migrations.at(-1)?.version);
    assert.equal(typeof found['clock']!.details?.['skewMs'], 'number');
    assert.ok(Math.abs(found['clock']!.details?.['skewMs'] as number) < 1_000, 'one machine: the same clock');
    assert.match(found['remote']!.message, /^origin \(.*origin\.git\) answers: 1 branch$/, 'one branch, not "1 branches"');
    assert.match(
      run.stderr,
      /foreman: connecting to postgres:\/\/.*\nforeman: measuring the clock.*\nforeman: reaching the git remote origin/,
    );

    const human = await foreman(repo, ['doctor'], { env: { PGPASSWORD: server.password } });
    assert.equal(human.code, 0);
    assert.deepEqual(
      human.stdout
        .trim()
        .split('\n')
        .map((line) => line.split(/\s+/).slice(0, 2).join(' ')),
      ['ok workspace', 'ok store', 'ok schema', `${found['clock']!.status === 'pass' ? 'ok' : 'warn'} clock`, 'ok remote'],
    );
  });

  it('fails, saying why, without a remote, with the server down, with a schema from a newer Foreman', async () => {
    const { repo, database } = await pgClone({ origin: false });
    const noRemote = await doctor(repo);
    assert.equal(noRemote.run.code, 1);
    const remote = byName(noRemote.checks)['remote']!;
    assert.equal(remote.status, 'fail');
    assert.match(remote.message, /there is no git remote 'origin'.*git remote add origin/);

    const noPassword = await doctor(repo, {});
    assert.equal(noPassword.run.code, 1);
    assert.match(byName(noPassword.checks)['store']!.message, /asks for a password, and none was given.*PGPASSWORD or ~\/\.pgpass/);

    const newer = (migrations.at(-1)?.version ?? 0) + 1;
    const url = new URL(server.url);
    url.pathname = `/${database}`;
    const direct = new SyncPgClient(url.toString());
    try {
      direct.query(`UPDATE meta SET value = $1 WHERE key = 'schema_version'`, [String(newer)]);
      const schema = byName((await doctor(repo)).checks)['schema']!;
      assert.equal(schema.status, 'fail');
      assert.match(schema.message, new RegExp(`schema version ${newer} is newer than this Foreman's .*update Foreman`));
      direct.query(`UPDATE meta SET value = $1 WHERE key = 'schema_version'`, [String(newer - 1)]);
    } finally {
      direct.close();
    }

    await server.stopServer();
    try {
      const down = await doctor(repo);
      assert.equal(down.run.code, 1);
      const found = byName(down.checks);
      assert.equal(found['store']!.status, 'fail');
      assert.match(
        found['store']!.message,
        new RegExp(`Cannot connect to PostgreSQL at postgres://127\\.0\\.0\\.1:${server.port}/${database}`),
      );
      assert.deepEqual([found['schema']!.status, found['clock']!.status], ['skip', 'skip']);
    } finally {
      await server.start();
    }
  });

  it('says in words why no password was found: a password file others can read is ignored', async () => {
    const { repo } = await pgClone({ origin: true });
    const home = tempFolder();
    const passfile = path.join(home, '.pgpass');
    writeFileSync(passfile, `127.0.0.1:${server.port}:*:foreman:${server.password}\n`, { mode: 0o644 });
    chmodSync(passfile, 0o644);
    const human = await foreman(repo, ['doctor'], { env: { PGPASSFILE: passfile } });
    assert.equal(human.code, 1);
    assert.ok(!`${human.stdout}${human.stderr}`.includes(server.password), 'the password is never printed');
    const store = human.stdout.split('\n').find((line) => /^FAIL\s+store\s/.test(line)) ?? '';
    assert.match(store, /the server asks for a password, and none was given/);
    assert.ok(
      store.endsWith(
        `No password was found: PGPASSWORD is not set and ${passfile} can be read by others, so it is ignored (chmod 600 '${passfile}')`,
      ),
      store,
    );
    // Made private, the same file is used, and the line says where the password came from.
    chmodSync(passfile, 0o600);
    const fixed = await foreman(repo, ['doctor'], { env: { PGPASSFILE: passfile } });
    assert.equal(fixed.code, 0, fixed.stdout);
    assert.match(
      fixed.stdout,
      new RegExp(`^ok\\s+store\\s+PostgreSQL .* \\(password from ${passfile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)$`, 'm'),
    );
  });

  it('on sql.js: the store opens at this schema version, and no remote is needed', async () => {
    const repo = makeRepo();
    assert.equal((await foreman(repo, ['init'])).code, 0);
    const { run, checks } = await doctor(repo, {});
    assert.equal(run.code, 0, run.stdout);
    assert.deepEqual(
      checks.map((check) => [check.name, check.status]),
      [
        ['workspace', 'pass'],
        ['store', 'pass'],
        ['schema', 'pass'],
      ],
    );
  });

  it('in a folder without Foreman: fails and says to run init', async () => {
    const folder = makeRepo();
    const { run, checks } = await doctor(folder, {});
    assert.equal(run.code, 1);
    assert.equal(checks[0]?.status, 'fail');
    assert.match(checks[0]?.message ?? '', /foreman init/);
  });
});
