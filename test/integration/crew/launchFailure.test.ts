/**
 * A launch that only a change of settings can fix (an agent profile nobody defines) fails the task
 * for good at once, with the reason, instead of spending its attempts on backoff; once the profile
 * exists, `foreman retry` runs it.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cliPath, makeCrew, reviewUntil } from './crewHarness';

test(
  'an unknown agent profile fails the task for good on its first launch; defining it and retrying runs it',
  { timeout: 60_000 },
  async () => {
    const crew = await makeCrew();
    const added = await crew.foreman(['worker', 'add', 'w1', '--agent', 'scribe']);
    assert.equal(added.code, 0);
    assert.match(added.stderr, /note: There is no agent profile named 'scribe'/);
    await crew.addTask('notes', 'Notes', 'write notes.txt noted\ncommit Notes');
    let server = await crew.serve();
    try {
      await crew.failedForGoodAtOnce('w1', 'notes', /launch failed: There is no agent profile named 'scribe'/, server);
      const claims = (await crew.transitions()).filter((t) => t.entity_id === 'notes' && t.trigger === 'claim');
      assert.equal(claims.length, 1);
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
    await crew.ok(['retry', 'notes']);
    server = await crew.serve();
    try {
      await reviewUntil(crew, (status) => crew.task(status, 'notes').status === 'done', { server, timeoutMs: 20_000 });
      assert.equal(crew.git(['show', 'main:notes.txt']), 'noted');
    } finally {
      await server.stop();
    }
  },
);
