/**
 * A launch that only a change of settings can fix (an agent profile nobody defines) is the worker's
 * fault, not the task's: the worker needs setup and claims nothing more, the task goes back to the
 * queue with its attempt unspent; once the profile exists, resetting the worker runs it.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cliPath, makeCrew, reviewUntil } from './crewHarness';

test(
  'an unknown agent profile: the worker needs setup, the task keeps its attempts; defining it and resetting the worker runs it',
  { timeout: 60_000 },
  async () => {
    const crew = await makeCrew();
    const added = await crew.foreman(['worker', 'add', 'w1', '--agent', 'scribe']);
    assert.equal(added.code, 0);
    assert.match(added.stderr, /note: There is no agent profile named 'scribe'/);
    await crew.addTask('notes', 'Notes', 'write notes.txt noted\ncommit Notes');
    let server = await crew.serve();
    try {
      const failed = await crew.waitForWorker('w1', 'FAILED', server);
      assert.match(crew.worker(failed, 'w1').lastError ?? '', /^needs setup: There is no agent profile named 'scribe'.* Reset the worker\.$/);
      const task = crew.task(failed, 'notes');
      assert.equal(task.status, 'queued');
      assert.equal(task.attempt, 0, 'the attempt the worker could not start is not counted');
      const claims = (await crew.transitions()).filter((t) => t.entity_id === 'notes' && t.trigger === 'claim');
      assert.equal(claims.length, 1, 'a worker that needs setup claims nothing more');
    } finally {
      await server.stop();
    }

    // The fix: define the profile (here: the demo agent under another name), then retry.
    const settingsFile = join(crew.root, '.foreman', 'settings.json');
    const settings = JSON.parse(readFileSync(settingsFile, 'utf8')) as Record<string, unknown>;
    const demoAgent = join(cliPath, '..', 'demo-agent.js');
    writeFileSync(
      settingsFile,
      JSON.stringify({ ...settings, agents: { scribe: { command: process.execPath, args: [demoAgent, '{promptFile}'] } } }),
    );
    await crew.ok(['reset', 'w1']);
    server = await crew.serve();
    try {
      await reviewUntil(crew, (status) => crew.task(status, 'notes').status === 'done', { server, timeoutMs: 20_000 });
      assert.equal(crew.git(['show', 'main:notes.txt']), 'noted');
    } finally {
      await server.stop();
    }
  },
);

test('a worker whose agent command is missing needs setup, says what to do, and leaves the chain to a worker that can run it', { timeout: 60_000 }, async () => {
  const crew = await makeCrew({ settings: { agents: { ghost: { command: 'no-such-agent-command-xyz' } } } });
  await crew.ok(['worker', 'add', 'broken', '--agent', 'ghost']);
  await crew.addTask('first', 'First', 'write first.txt one\ncommit First');
  const server = await crew.serve();
  try {
    const failed = await crew.waitForWorker('broken', 'FAILED', server);
    assert.match(
      crew.worker(failed, 'broken').lastError ?? '',
      /^needs setup: The agent command 'no-such-agent-command-xyz' was not found.* Install it, or set the command's full path in the agent profile 'ghost'/,
    );
    assert.equal(crew.task(failed, 'first').status, 'queued');
    assert.equal(crew.task(failed, 'first').attempt, 0);
    // A worker that can run it takes the task, on its first attempt.
    await crew.ok(['worker', 'add', 'able', '--agent', 'demo']);
    await reviewUntil(crew, (status) => crew.task(status, 'first').status === 'done', { server, timeoutMs: 20_000 });
    const claims = (await crew.transitions()).filter((t) => t.entity_id === 'first' && t.trigger === 'claim');
    assert.deepEqual(
      claims.map((claim) => claim.attempt),
      [1, 1],
    );
  } finally {
    await server.stop();
  }
});
