/**
 * The user's uncommitted edits in the main checkout are never overwritten: a merge that would touch
 * them is refused (exit 3, `dirtyCheckout`), their file stays byte for byte, the base does not move
 * and the worker stays APPROVED. Once the user has put their edit away, the same merge goes through.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { makeCrew } from './crewHarness';

test("a merge touching the user's uncommitted edits is refused and keeps them byte for byte", { timeout: 60_000 }, async () => {
  const crew = await makeCrew({ workers: ['w1'], files: { 'config.txt': 'port 80\nhost localhost\n' } });
  await crew.ok([
    'task',
    'add',
    'Change the port',
    '--id',
    'port',
    '--prompt',
    'replace-line config.txt 1 port 8080\ncommit use port 8080',
  ]);
  const server = await crew.serve();
  try {
    await crew.waitForWorker('w1', 'IN_REVIEW', server);
    await crew.ok(['approve', 'w1']);

    // The user edits the same file in the main checkout meanwhile, and leaves it uncommitted.
    const userText = Buffer.from('port 81 \r\nhost example.test\n# mine, not committed\n');
    writeFileSync(join(crew.root, 'config.txt'), userText);
    const before = crew.checkout();

    const refused = await crew.foreman(['merge', 'w1', '--json']);
    assert.equal(refused.code, 3, refused.stdout + refused.stderr);
    const error = (JSON.parse(refused.stdout) as { error: { code: string; message: string } }).error;
    assert.equal(error.code, 'dirtyCheckout');
    assert.match(error.message, /config\.txt|uncommitted/);
    assert.deepEqual(readFileSync(join(crew.root, 'config.txt')), userText, "the user's file is byte-identical");
    assert.deepEqual(crew.checkout(), before, 'HEAD, branch and status of the main checkout are unchanged');
    assert.equal(crew.git(['show', 'main:config.txt']), 'port 80\nhost localhost');
    const status = await crew.status();
    assert.equal(crew.worker(status, 'w1').state, 'APPROVED');
    assert.equal(crew.task(status, 'port').status, 'running');

    // The user puts their edit away; the merge asked for again now lands.
    crew.git(['stash', 'push', '--quiet', '--', 'config.txt']);
    await crew.ok(['merge', 'w1']);
    assert.equal(crew.git(['show', 'main:config.txt']), 'port 8080\nhost localhost');
    assert.equal(readFileSync(join(crew.root, 'config.txt'), 'utf8'), 'port 8080\nhost localhost\n', 'the checkout moved with main');
    assert.equal(crew.task(await crew.status(), 'port').status, 'done');
    assert.equal(crew.git(['stash', 'list']).split('\n').length, 1, "the user's stash is still theirs");
  } finally {
    await server.stop();
  }
});
