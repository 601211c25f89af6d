/**
 * The setup and verify commands' time limits run on the clock they are given: a real child that
 * would run for a minute is stopped the moment the manual clock passes the limit, with no wait.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runSetupCommand } from '../../../src/infra/agents/setupCommand';
import { verifyRunner } from '../../../src/infra/agents/verify';
import { ManualClock } from '../../support/manualClock';
import { pollUntil } from '../../support/pollUntil';

const dir = mkdtempSync(join(tmpdir(), 'foreman-timeouts-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A child that prints a line, then idles for a minute. */
const idleMinute = [process.execPath, '-e', "console.log('started'); setTimeout(() => undefined, 60_000)"];

test('a setup command past its time limit on the clock is stopped and says so', async () => {
  const clock = new ManualClock();
  const lines: string[] = [];
  const logFile = join(dir, 'setup.log');
  const running = runSetupCommand({
    argv: idleMinute,
    cwd: dir,
    env: { PATH: process.env['PATH'] ?? '' },
    logFile,
    timeoutMs: 600_000,
    onLine: (line) => lines.push(line),
    clock,
  });
  await pollUntil(() => lines.includes('started'), { what: 'the setup command runs' });
  clock.advance(599_999);
  assert.equal(clock.pendingTimers(), 1, 'not yet: only the time limit waits');
  clock.advance(1);
  const result = await running;
  assert.equal(result.ok, false);
  assert.equal(result.ok ? '' : result.code, 'setupTimedOut');
  assert.match(result.ok ? '' : result.message, /did not finish within 10 min and was stopped; last output: started/);
  assert.match(readFileSync(logFile, 'utf8'), /setup timed out after/);
  assert.equal(clock.pendingTimers(), 0, 'its timers end with it');
});

test('a verify command past its time limit on the clock is killed and fails the check', async () => {
  const clock = new ManualClock();
  const verify = verifyRunner(idleMinute, 60_000, clock);
  assert.ok(verify);
  const checking = verify(dir);
  clock.advance(60_000);
  const result = await checking;
  assert.equal(result.ok, false);
  assert.match(result.ok ? '' : result.message, /was killed by SIGKILL/);
});
