/**
 * The store's connection variables stay with Foreman (issue 29): an agent's environment, built from
 * Foreman's own, has none of libpq's connection variables unless its profile's `env` names one.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { agentEnvironment } from '../../../src/infra/agents/agentEnvironment';
import { isStoreConnectionVariable, storeConnectionVariables, withoutStoreConnection } from '../../../src/infra/agents/storeSecrets';

const run = { workerId: 'ada', taskId: 't1', attempt: 2, branch: 'ada/t1' };
/** Foreman's own environment in the test: every denied variable set, plus some that must pass. */
const owned: Record<string, string> = {
  ...Object.fromEntries(storeConnectionVariables.map((name) => [name, `secret-of-${name}`])),
  PGDATESTYLE: 'ISO, DMY',
  TEAM_NOTE: 'kept',
  GIT_DIR: '/elsewhere/.git',
};

describe("the store's connection variables", () => {
  const saved = new Map<string, string | undefined>();
  beforeEach(() => {
    for (const [name, value] of Object.entries(owned)) {
      saved.set(name, process.env[name]);
      process.env[name] = value;
    }
  });
  afterEach(() => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    saved.clear();
  });

  it('are not in an agent environment, while the rest of Foreman`s environment is', () => {
    const environment = agentEnvironment(run, '/opt/foreman/bin');
    for (const name of storeConnectionVariables) assert.equal(environment[name], undefined, name);
    assert.ok(
      !Object.values(environment).some((value) => value.startsWith('secret-of-')),
      'no value of a denied variable under another name',
    );
    assert.equal(environment['TEAM_NOTE'], 'kept');
    assert.equal(environment['PGDATESTYLE'], 'ISO, DMY', 'a session default says nothing about reaching the store');
    assert.equal(environment['GIT_DIR'], undefined);
    assert.equal(environment['FOREMAN_WORKER_ID'], 'ada');
    assert.equal(environment['FOREMAN_ATTEMPT'], '2');
  });

  it("are set for an agent whose profile's env names them, with the profile's values", () => {
    const environment = agentEnvironment(run, '/opt/foreman/bin', { PGHOST: 'dev-db.local', PGDATABASE: 'app_test' });
    assert.equal(environment['PGHOST'], 'dev-db.local');
    assert.equal(environment['PGDATABASE'], 'app_test');
    assert.equal(environment['PGPASSWORD'], undefined, 'a variable the profile does not name stays out');
  });

  it('cover the password, the password and service files, the user, the host and the TLS key', () => {
    for (const name of ['PGPASSWORD', 'PGPASSFILE', 'PGUSER', 'PGHOST', 'PGSERVICE', 'PGSERVICEFILE', 'PGSSLKEY']) {
      assert.equal(isStoreConnectionVariable(name), true, name);
    }
    assert.equal(isStoreConnectionVariable('PGDATA'), false);
    assert.deepEqual(withoutStoreConnection({ PGPASSWORD: 'x', HOME: '/home/ada', EMPTY: undefined }), { HOME: '/home/ada' });
  });
});
