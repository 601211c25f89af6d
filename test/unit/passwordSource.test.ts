/**
 * Where a password-less store URL's password would come from without asking (issue 29): what
 * `foreman init --store` checks before it prompts. Real files for the password file.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pgpassTargetOf, storedPasswordSource } from '../../src/infra/pg/passwordSource';

test('the server a URL connects to, with libpq’s defaults for what it leaves out', () => {
  assert.deepEqual(pgpassTargetOf('postgres://ada@db.example:6543/crew', {}), {
    host: 'db.example',
    port: 6543,
    database: 'crew',
    user: 'ada',
  });
  assert.deepEqual(pgpassTargetOf('postgres:///?host=/run/postgresql', { PGUSER: 'bob', PGPORT: '5433' }), {
    host: '/run/postgresql',
    port: 5433,
    database: 'bob',
    user: 'bob',
  });
  assert.equal(pgpassTargetOf('not a url', {}), undefined);
});

test('PGPASSWORD first, then a private password file with a line for the server, else nowhere', () => {
  const dir = mkdtempSync(join(tmpdir(), 'foreman-pgpass-'));
  try {
    const url = 'postgres://ada@db.example:5432/crew';
    const file = join(dir, 'pgpass');
    assert.equal(storedPasswordSource(url, { PGPASSWORD: 'x', PGPASSFILE: file }), 'PGPASSWORD');
    assert.equal(storedPasswordSource(url, { PGPASSFILE: file }), undefined, 'no file');
    writeFileSync(file, 'db.example:5432:other:ada:x\n', { mode: 0o600 });
    chmodSync(file, 0o600);
    assert.equal(storedPasswordSource(url, { PGPASSFILE: file }), undefined, 'no line for this database');
    writeFileSync(file, 'db.example:5432:*:ada:x\n');
    assert.equal(storedPasswordSource(url, { PGPASSFILE: file }), 'pgpass');
    chmodSync(file, 0o644);
    assert.equal(storedPasswordSource(url, { PGPASSFILE: file }), undefined, 'a file others can read is ignored, as libpq does');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
