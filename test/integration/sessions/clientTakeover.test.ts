/**
 * A read-only window (ClientSession) follows a real `foreman serve`, and learns when that owner goes
 * away: after a clean stop (the lock is released) and after a kill -9 (the lock stays, its process
 * is gone, and the next request finds no endpoint). Then the window can take over.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { ClientSession } from '../../../src/extension/sessions/clientSession';
import { pollUntil } from '../../support/pollUntil';
import { makeCrew } from '../crew/crewHarness';

for (const ending of ['stop', 'kill'] as const) {
  test(`a read-only session sees the owner's changes, and hears when the owner is gone (${ending})`, { timeout: 60_000 }, async () => {
    const crew = await makeCrew({ workers: ['w1'] });
    const server = await crew.serve();
    let gone = 0;
    const client = new ClientSession(crew.root, 'repo', 'read-only', crew.worktreeRoot, () => gone++);
    try {
      await pollUntil(() => client.snapshot().workers.length === 1, { what: 'the first snapshot' });
      // A change made through the owner reaches the client through the journal, not by polling.
      await crew.ok(['worker', 'add', 'w2']);
      await pollUntil(() => client.snapshot().workers.some((worker) => worker.id === 'w2'), { what: 'the new worker' });
      assert.equal(gone, 0);

      if (ending === 'stop') {
        await server.stop();
      } else {
        await server.kill();
        const answer = await client.execute({ command: 'status', args: {}, actor: 'vscode' });
        assert.equal(answer.ok, false);
        assert.match((answer as { message: string }).message, /did not answer/);
      }
      await pollUntil(() => gone > 0, { what: 'the owner to be reported gone' });
      await delay(500);
      assert.equal(gone, 1, 'reported once');
    } finally {
      await client.close();
      if (gone === 0) await server.kill(); // the test failed before the owner went away
    }
  });
}
