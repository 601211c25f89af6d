/**
 * Secrets stay with Foreman (issue 29), end to end on the real PostgreSQL: `foreman serve` started
 * with PGPASSWORD (and other libpq connection variables) connects with them and runs a real agent;
 * the agent sees none of them (only the one its profile names, with the profile's value), and still
 * reaches the queue through the owner's endpoint with `foreman status`.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { storeConnectionVariables } from '../../../src/infra/agents/storeSecrets';
import { CrewRepo, fastSettings, gitIn, sandboxPath } from '../crew/crewHarness';
import { type TestPostgres, createDatabase, startPostgres } from '../../support/postgres';

let postgres: TestPostgres;
before(async () => {
  postgres = await startPostgres();
});
after(async () => {
  await postgres?.stop();
});

/** What the agent prints: every deny-listed variable it sees, a variable that must pass, and whether `foreman status` answered. */
const probe = `const { spawnSync } = require('node:child_process');
for (const name of ${JSON.stringify(storeConnectionVariables)}) if (process.env[name] !== undefined) console.log('seen ' + name + '=' + process.env[name]);
console.log('TEAM_NOTE=' + process.env.TEAM_NOTE);
const status = spawnSync('foreman', ['status', '--json'], { encoding: 'utf8' });
let tasks = -1;
try { tasks = JSON.parse(status.stdout).tasks.length; } catch {}
console.log('status exit=' + status.status + ' tasks=' + tasks);
`;

test(
  'an agent of a PostgreSQL owner sees no PGPASSWORD nor any other connection variable, and works through the owner',
  { timeout: 90_000 },
  async () => {
    const url = new URL(createDatabase(postgres.url, 'agent_secrets'));
    url.password = '';
    const folder = sandboxPath('agent-secrets');
    mkdirSync(folder);
    const root = join(folder, 'repo');
    mkdirSync(root);
    gitIn(root, ['init', '--quiet', '-b', 'main']);
    gitIn(root, ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', 'commit', '--quiet', '--allow-empty', '-m', 'initial']);
    const script = join(folder, 'probe.js');
    writeFileSync(script, probe);

    // The owner's own environment: the password and more of libpq's variables, as a team member's shell may have.
    const ownerOnly = {
      PGPASSWORD: postgres.password,
      PGPASSFILE: join(folder, 'no-such-pgpass'),
      PGUSER: 'foreman',
      PGAPPNAME: 'the-owner',
      PGCONNECT_TIMEOUT: '10',
    };
    const clone = new CrewRepo(root, join(folder, 'worktrees'), { ...ownerOnly, FOREMAN_HOST: 'machine-a', TEAM_NOTE: 'passed on' });
    await clone.ok(['init', '--store', url.toString()]);
    const settings = {
      ...fastSettings,
      worktreeRoot: clone.worktreeRoot,
      allowEmptyResults: true,
      agents: { probe: { command: process.execPath, args: [script, '{prompt}'], env: { PGAPPNAME: 'named-by-the-profile' } } },
    };
    writeFileSync(join(root, '.foreman', 'settings.json'), JSON.stringify(settings, null, 2));
    await clone.ok(['worker', 'add', 'ada', '--agent', 'probe']);

    const server = await clone.serve();
    try {
      await clone.addTask('look', 'Look around', 'print what you see');
      await clone.waitForLog('look', 1, /status exit=\d+ tasks=-?\d+/, 30_000);
      const log = clone.attemptLog('look', 1);
      const seen = [...log.matchAll(/^seen (\w+)=(.*)$/gm)].map((match) => [match[1], match[2]]);
      assert.deepEqual(seen, [['PGAPPNAME', 'named-by-the-profile']], `the agent saw: ${JSON.stringify(seen)}`);
      assert.ok(!log.includes(postgres.password), 'the password is nowhere in the agent log');
      assert.match(log, /^TEAM_NOTE=passed on$/m, 'the rest of the environment is passed on');
      assert.match(log, /^status exit=0 tasks=1$/m, "the agent's `foreman` reaches the queue through its owner");
      // The owner itself still connects with its password: it keeps answering from the store.
      const status = await clone.status();
      assert.equal(clone.task(status, 'look').title, 'Look around');
    } finally {
      await server.stop();
    }
  },
);
