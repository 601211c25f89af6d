/**
 * The team database's password and address stay with Foreman (issue 29), seen from real child
 * processes: an agent launched by the supervisor, and the verify command (which runs code an agent
 * wrote), find none of libpq's connection variables that Foreman itself was started with; an agent
 * whose profile names one gets the profile's value.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, beforeEach, describe, it } from 'node:test';
import { AgentSupervisor } from '../../../src/infra/agents/agentSupervisor';
import { storeConnectionVariables } from '../../../src/infra/agents/storeSecrets';
import { verifyRunner } from '../../../src/infra/agents/verify';
import { fakeForemanCli, readText, scriptProfile, tempDir } from './agentFixtures';

const supervisors: AgentSupervisor[] = [];
after(() => Promise.all(supervisors.map((supervisor) => supervisor.dispose())));

/** A child that prints every variable of the deny list it can see, one `NAME=value` a line. */
const printStoreVariables = `for (const name of ${JSON.stringify(storeConnectionVariables)}) if (process.env[name] !== undefined) console.log(name + '=' + process.env[name]);
console.log('TEAM_NOTE=' + process.env.TEAM_NOTE);`;

describe("Foreman's store connection variables and the processes it runs", () => {
  const saved = new Map<string, string | undefined>();
  beforeEach(() => {
    for (const name of [...storeConnectionVariables, 'TEAM_NOTE']) {
      saved.set(name, process.env[name]);
      process.env[name] = name === 'TEAM_NOTE' ? 'passed on' : `owner-only-${name}`;
    }
  });
  afterEach(() => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    saved.clear();
  });

  it('an agent sees none of them, except one its profile names', async () => {
    const supervisor = new AgentSupervisor({ logDir: tempDir('logs'), cliBinDir: fakeForemanCli().binDir });
    supervisors.push(supervisor);
    const profile = scriptProfile(printStoreVariables, ['{prompt}'], { env: { PGAPPNAME: 'from-the-profile' } });
    const launched = supervisor.launch({
      workerId: 'w-1',
      taskId: 't-1',
      attempt: 1,
      branch: 'w-1/t-1',
      worktree: tempDir('worktree'),
      prompt: 'print your environment',
      profile,
    });
    assert.ok(launched.ok, launched.ok ? '' : launched.message);
    const exit = await launched.value.exited;
    assert.equal(exit.code, 0);
    const log = readText(launched.value.logFile);
    assert.match(log, /^TEAM_NOTE=passed on$/m, 'the rest of the environment is passed on');
    assert.match(log, /^PGAPPNAME=from-the-profile$/m);
    assert.doesNotMatch(log, /owner-only-/, 'no connection variable of the owner reached the agent');
  });

  it('the verify command sees none of them', async () => {
    const worktree = tempDir('verify');
    const script = join(worktree, 'verify.js');
    writeFileSync(
      script,
      `${printStoreVariables}
if (${JSON.stringify(storeConnectionVariables)}.some((name) => process.env[name] !== undefined)) process.exit(1);
if (process.env.TEAM_NOTE !== 'passed on') process.exit(2);`,
    );
    const verify = verifyRunner([process.execPath, script]);
    assert.ok(verify);
    const verdict = await verify(worktree);
    assert.ok(verdict.ok, verdict.ok ? '' : verdict.message);
  });
});
