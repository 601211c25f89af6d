/**
 * Choosing the store (src/infra/workspace/storeConfig.ts) and the password file (src/infra/pg/pgpass.ts):
 * a password never survives into what is written, TLS parameters do, a bad `store.json` is refused
 * naming the file and the field, and `.pgpass` follows libpq's rules.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { pgpassPassword } from '../../src/infra/pg/pgpass';
import {
  parseStoreArgument,
  readStoreConfig,
  storeFileName,
  storeSettingConfig,
  withPassword,
  writeStoreConfig,
} from '../../src/infra/workspace/storeConfig';

const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'foreman-store-config-'));
after(() => fs.rmSync(folder, { recursive: true, force: true }));
let counter = 0;
function dirWith(content: string | undefined): string {
  const dir = path.join(folder, `w${++counter}`);
  fs.mkdirSync(dir);
  if (content !== undefined) fs.writeFileSync(path.join(dir, storeFileName), content);
  return dir;
}

describe('parseStoreArgument', () => {
  it('cuts the password out of the URL and its parameters, keeps TLS parameters, and hands the password back for one connection', () => {
    const parsed = parseStoreArgument('postgres://ada:s%3Acret@db.example:5433/crew?sslmode=verify-full&sslrootcert=/etc/ca.pem');
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.value.config, {
      kind: 'postgres',
      url: 'postgres://ada@db.example:5433/crew?sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem',
    });
    assert.equal(parsed.value.passwordRemoved, true);
    assert.equal(parsed.value.password, 's:cret');
    assert.equal(new URL(withPassword('postgres://ada@db.example:5433/crew', 's:cret')).password, 's%3Acret');

    const inQuery = parseStoreArgument('postgresql://ada@db.example/crew?password=hunter2&sslpassword=x&application_name=f');
    assert.ok(inQuery.ok);
    assert.equal(
      inQuery.value.config.kind === 'postgres' && inQuery.value.config.url,
      'postgresql://ada@db.example/crew?application_name=f',
    );
    assert.equal(inQuery.value.password, 'hunter2');
  });

  it('takes sqljs, leaves a URL without a password as it is, and refuses anything else', () => {
    const sqljs = parseStoreArgument('sqljs');
    assert.ok(sqljs.ok);
    assert.deepEqual(sqljs.value, { config: { kind: 'sqljs' }, passwordRemoved: false });
    const plain = parseStoreArgument('postgres://ada@db.example/crew');
    assert.ok(plain.ok);
    assert.deepEqual(plain.value, { config: { kind: 'postgres', url: 'postgres://ada@db.example/crew' }, passwordRemoved: false });
    for (const bad of ['mysql://x@y/z', 'db.example', '']) {
      const refused = parseStoreArgument(bad);
      assert.equal(refused.ok, false, bad);
      assert.equal(!refused.ok && refused.code, 'badStore');
    }
  });
});

describe('store.json', () => {
  it('absent means sql.js; written for PostgreSQL and read back the same; sql.js removes it', () => {
    const dir = dirWith(undefined);
    assert.deepEqual(readStoreConfig(dir), { ok: true, value: { kind: 'sqljs' } });
    const config = {
      kind: 'postgres' as const,
      url: 'postgres://ada@db.example/crew',
      ssl: { caFile: '/etc/ca.pem', rejectUnauthorized: true },
    };
    writeStoreConfig(dir, config);
    assert.deepEqual(readStoreConfig(dir), { ok: true, value: config });
    assert.equal(fs.statSync(path.join(dir, storeFileName)).mode & 0o777, 0o600);
    writeStoreConfig(dir, { kind: 'sqljs' });
    assert.equal(fs.existsSync(path.join(dir, storeFileName)), false);
  });

  it('refuses to write a URL with a password', () => {
    assert.throws(() => writeStoreConfig(dirWith(undefined), { kind: 'postgres', url: 'postgres://ada:pw@db.example/crew' }));
  });

  it('refuses a bad file, naming the file and the field', () => {
    const cases: Array<[string, RegExp]> = [
      ['{"kind":"postgres","url":"postgres://ada:pw@db.example/crew"}', /url: holds a password .*PGPASSWORD or ~\/\.pgpass/],
      ['{"kind":"postgres","url":"postgres://ada@db.example/crew?password=pw"}', /url: holds a password \(the password parameter\)/],
      ['{"kind":"postgres","url":"http://db.example/crew"}', /url: must start with postgres:\/\//],
      ['{"kind":"postgres","url":"postgres://db.example/crew","ssl":{"caFile":"ca.pem"}}', /ssl/],
      ['{"kind":"postgres","url":"postgres://db.example/crew","user":"ada"}', /user/],
      ['{"kind":"mysql"}', /kind/],
      ['{"kind":', /is not valid JSON/],
    ];
    for (const [content, message] of cases) {
      const dir = dirWith(content);
      const read = readStoreConfig(dir);
      assert.equal(read.ok, false, content);
      assert.ok(!read.ok && read.code === 'badStoreConfig');
      assert.ok(read.message.startsWith(path.join(dir, storeFileName)), read.message);
      assert.match(read.message, message);
      assert.ok(!read.message.includes('pw@') && !read.message.includes('password=pw'), `no password in: ${read.message}`);
    }
  });
});

describe('the foreman.store setting', () => {
  it('empty follows store.json; sqljs and a URL without a password are taken; a password is refused', () => {
    assert.deepEqual(storeSettingConfig(''), { ok: true, value: undefined });
    assert.deepEqual(storeSettingConfig('sqljs'), { ok: true, value: { kind: 'sqljs' } });
    assert.deepEqual(storeSettingConfig('postgres://ada@db.example/crew?sslmode=require'), {
      ok: true,
      value: { kind: 'postgres', url: 'postgres://ada@db.example/crew?sslmode=require' },
    });
    const withSecret = storeSettingConfig('postgres://ada:pw@db.example/crew');
    assert.equal(withSecret.ok, false);
    assert.match(!withSecret.ok ? withSecret.message : '', /holds a password/);
  });
});

describe('pgpassPassword', () => {
  const file = path.join(folder, 'pgpass');
  const env = { PGPASSFILE: file };
  const target = { host: 'db.example', port: 5433, database: 'crew', user: 'ada' };

  it('takes the first matching line, with wildcards and escapes, and matches a socket as localhost', () => {
    fs.writeFileSync(
      file,
      [
        '# a comment',
        'db.example:5432:crew:ada:wrong-port',
        'db.example:5433:other:ada:wrong-db',
        'db.example:*:crew:ada:pa\\:ss\\\\word',
        '*:*:*:*:fallback',
      ].join('\n'),
      { mode: 0o600 },
    );
    fs.chmodSync(file, 0o600);
    assert.equal(pgpassPassword(target, env), 'pa:ss\\word');
    assert.equal(pgpassPassword({ ...target, user: 'bob' }, env), 'fallback');
    fs.writeFileSync(file, 'localhost:5432:crew:ada:local\n');
    assert.equal(pgpassPassword({ host: '/var/run/postgresql', port: undefined, database: 'crew', user: 'ada' }, env), 'local');
    assert.equal(pgpassPassword(target, env), undefined);
  });

  it('ignores a file others can read, and a missing one', () => {
    fs.writeFileSync(file, '*:*:*:*:secret\n');
    fs.chmodSync(file, 0o644);
    assert.equal(pgpassPassword(target, env), undefined);
    fs.chmodSync(file, 0o600);
    assert.equal(pgpassPassword(target, env), 'secret');
    assert.equal(pgpassPassword(target, { PGPASSFILE: path.join(folder, 'none') }), undefined);
  });
});
