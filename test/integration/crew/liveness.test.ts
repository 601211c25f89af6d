/**
 * Silence is not death while Foreman knows the work goes on (ARCHITECTURE §4): an agent whose
 * process lives is heartbeaten for by the supervisor, and a worker whose verify command runs is
 * heartbeaten for by the crew, however short the liveness thresholds are.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { makeCrew, sandboxPath } from './crewHarness';

/** Short on purpose: the agent's silence and the verify each outlast `staleMs`. */
const liveness = { warnMs: 1000, staleMs: 2500, deadMs: 3000 };

test('a silent agent and a slow verify, each longer than staleMs, are neither STALE nor retried', { timeout: 60_000 }, async () => {
  const marker = sandboxPath('verified');
  const verify = `setTimeout(() => require("fs").appendFileSync(process.argv[1], "verified\\n"), ${liveness.staleMs + 700})`;
  const crew = await makeCrew({ workers: ['w1'], settings: { ...liveness, verifyCommand: [process.execPath, '-e', verify, marker] } });
  await crew.ok([
    'task',
    'add',
    'Think long',
    '--id',
    'long',
    '--prompt',
    `write slow.txt slow\nsleep ${liveness.staleMs + 700}\ncommit slow but alive`,
  ]);
  const server = await crew.serve();
  const levels = new Set<string>();
  try {
    await crew.waitFor(
      'review',
      (status) => {
        const worker = crew.worker(status, 'w1');
        if (worker.state === 'WORKING') levels.add(worker.liveness);
        return worker.state === 'IN_REVIEW' || worker.state === 'FAILED' || crew.task(status, 'long').attempt > 1;
      },
      30_000,
      server,
    );
    const status = await crew.status();
    assert.equal(crew.worker(status, 'w1').state, 'IN_REVIEW', server.output());
    assert.equal(crew.task(status, 'long').attempt, 1);
    assert.equal(readFileSync(marker, 'utf8'), 'verified\n', 'the verify command ran to its end');
    const history = await crew.transitions();
    assert.deepEqual(
      history.filter((row) => row.entity_id === 'w1' && row.trigger === 'heartbeatTimeout'),
      [],
    );
    assert.ok(!levels.has('STALE') && !levels.has('DEAD'), `liveness seen while working: ${[...levels].join(', ')}`);
  } finally {
    await server.stop();
  }
});
