/**
 * A signal during `foreman serve`'s start-up (issue 10, item 5): whenever SIGTERM or SIGINT
 * arrives, serve either has not created anything yet or unwinds what it created, so no owner.lock,
 * socket, endpoint.json or endpoint.token is left to make the next owner think someone owns the
 * workspace, and the next `foreman status` works at once. The signal is sent at fixed delays after
 * the spawn and at the moments the lock and the token appear.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { test } from 'node:test';
import { pollUntil } from '../../support/pollUntil';
import { spawnServe as spawnServeOf } from '../../support/serve';
import { foreman, makeRepo } from './harness';

const leftovers = ['owner.lock', 'endpoint.json', 'endpoint.token'];

interface Outcome {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly output: string;
  /** Whether it had printed its ready line before it exited. */
  readonly ready: boolean;
}

function spawnServe(repo: string): { child: ChildProcess; exited: Promise<Outcome> } {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('FOREMAN_')));
  const serve = spawnServeOf(repo, { env });
  const exited = serve.exited.then(({ code, signal }) => ({ code, signal, output: serve.output(), ready: serve.isReady() }));
  return { child: serve.child, exited };
}

/** Looks (without sleeping between looks) until `file` exists or the child has exited: whether the file appeared. */
async function whenExists(file: string, child: ChildProcess, timeoutMs = 20_000): Promise<boolean> {
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const outcome = await pollUntil(() => (existsSync(file) ? 'seen' : exited() ? 'exited' : undefined), {
    what: `${file} to appear`,
    timeoutMs,
    intervalMs: 0,
  }).catch(() => 'timed out');
  return outcome === 'seen';
}

/** Nothing an owner leaves is left, and a one-shot `foreman status` answers at once, as its own owner. */
async function assertUnowned(repo: string, what: string, outcome: Outcome): Promise<void> {
  const foremanDir = join(repo, '.foreman');
  const left = leftovers.filter((name) => existsSync(join(foremanDir, name)));
  const sockets = readdirSync(foremanDir).filter((name) => name.endsWith('.sock'));
  assert.deepEqual([...left, ...sockets], [], `${what}: left behind after serve exited (${JSON.stringify(outcome)})`);
  const status = await foreman(repo, ['status']);
  assert.equal(status.code, 0, `${what}: status exited ${status.code}: ${status.stdout}${status.stderr}`);
  // "At once": it neither took a leftover lock over nor waited for one (the CLI says either).
  assert.doesNotMatch(status.stderr, /stale|taking over|owned by|waiting/i, `${what}: status met a leftover owner`);
}

/**
 * Exit 0 when serve got far enough to handle the signal; killed by it only when the signal came
 * before serve's first line (node still loading), when nothing has been created yet.
 */
function assertCleanExit(what: string, outcome: Outcome, signal: NodeJS.Signals): void {
  if (outcome.signal !== null) {
    assert.equal(outcome.signal, signal, `${what}: ${JSON.stringify(outcome)}`);
    return;
  }
  assert.equal(outcome.code, 0, `${what}: exited ${outcome.code}: ${outcome.output}`);
  if (!outcome.ready && outcome.output.includes('while starting'))
    assert.match(outcome.output, new RegExp(`${signal} during start-up: closing`));
}

async function initialised(): Promise<string> {
  const repo = makeRepo();
  const init = await foreman(repo, ['init']);
  assert.equal(init.code, 0, init.stderr);
  const worker = await foreman(repo, ['worker', 'add', 'w1', '--agent', 'demo']);
  assert.equal(worker.code, 0, worker.stderr);
  return repo;
}

/** Every 25 ms up to 300, then coarser: node alone takes a few hundred ms to load on a busy machine. */
const delays = [...Array.from({ length: 13 }, (_, index) => index * 25), 400, 500, 600, 700, 800, 1000];

test('SIGTERM at delays of 0 to 1000 ms after spawning serve leaves no owner behind', { timeout: 240_000 }, async (t) => {
  const repo = await initialised();
  const outcomes: string[] = [];
  for (const delayMs of delays) {
    const { child, exited } = spawnServe(repo);
    if (delayMs > 0) await delay(delayMs);
    child.kill('SIGTERM');
    const outcome = await exited;
    const what = `SIGTERM ${delayMs} ms after spawn`;
    assertCleanExit(what, outcome, 'SIGTERM');
    await assertUnowned(repo, what, outcome);
    outcomes.push(`${delayMs}:${outcome.signal ?? outcome.code}${outcome.ready ? '/ready' : ''}`);
  }
  // Which stages the delays reached depends on the machine; the record helps read a failure.
  t.diagnostic(`outcomes: ${outcomes.join(' ')}`);
});

for (const [stage, file] of [
  ['the lock is taken', 'owner.lock'],
  ['the endpoint token is written', 'endpoint.token'],
  ['the endpoint is announced', 'endpoint.json'],
] as const) {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    test(`${signal} the moment ${stage}: start-up is unwound, the next status works`, { timeout: 60_000 }, async () => {
      const repo = await initialised();
      const { child, exited } = spawnServe(repo);
      const seen = await whenExists(join(repo, '.foreman', file), child);
      child.kill(signal);
      const outcome = await exited;
      assert.ok(seen, `${file} never appeared: ${outcome.output}`);
      const what = `${signal} once ${file} existed`;
      assert.equal(outcome.signal, null, `${what}: serve was killed by the signal instead of handling it: ${outcome.output}`);
      assert.equal(outcome.code, 0, `${what}: exited ${outcome.code}: ${outcome.output}`);
      assert.match(outcome.output, new RegExp(`${signal}( during start-up)?: closing`));
      await assertUnowned(repo, what, outcome);
    });
  }
}

test('SIGTERM twice during start-up: the second changes nothing, start-up is still unwound', { timeout: 60_000 }, async () => {
  const repo = await initialised();
  const { child, exited } = spawnServe(repo);
  assert.ok(await whenExists(join(repo, '.foreman', 'owner.lock'), child));
  child.kill('SIGTERM');
  child.kill('SIGTERM');
  const outcome = await exited;
  assert.equal(outcome.code, 0, outcome.output);
  await assertUnowned(repo, 'two SIGTERMs', outcome);
});

test('SIGTERM after serve is ready: it closes cleanly and the next status works', { timeout: 60_000 }, async () => {
  const repo = await initialised();
  const { child, exited } = spawnServe(repo);
  let output = '';
  child.stdout?.on('data', (chunk: string) => (output += chunk));
  try {
    await pollUntil(() => /foreman serve: owner of /.test(output) || child.exitCode !== null, {
      what: 'serve to become the owner',
      timeoutMs: 20_000,
      intervalMs: 20,
      detail: () => output,
    });
  } finally {
    child.kill('SIGTERM');
  }
  const outcome = await exited;
  assert.ok(outcome.ready, outcome.output);
  assert.equal(outcome.code, 0, outcome.output);
  assert.match(outcome.output, /SIGTERM: closing/);
  await assertUnowned(repo, 'SIGTERM when ready', outcome);
});
