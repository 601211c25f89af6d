/**
 * `status` with a limit (issue 13): a page of the work in hand, active tasks first in queue order,
 * then the most recently finished, with counts of every status; filters by status, worker and
 * time. Without a limit (what the views ask for) every task comes back in queue order, as before.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type CommandInput, parseRequest } from '../../../src/core/requests';
import type { StatusSnapshot } from '../../../src/engine/statusView';
import { type EngineHarness, openEngine } from '../../support/engineHarness';

let harness: EngineHarness;
before(async () => {
  harness = await openEngine();
  await harness.value('worker.add', { id: 'ada' });
  for (let n = 0; n < 8; n++) {
    harness.clock.advance(1000);
    await harness.value('task.add', { title: `Task ${n}`, id: `t${n}` });
  }
  // t0, t1, t2 are cancelled one after another (t2 last); t3 runs on ada; the rest wait.
  for (const id of ['t0', 't1', 't2']) {
    harness.clock.advance(1000);
    await harness.value('cancel', { target: id });
  }
  await harness.value('assign', { worker: 'ada', task: 't3' });
});
after(() => harness.close());

const status = (args: CommandInput<'status'>): StatusSnapshot => harness.query('status', args);
const ids = (snapshot: StatusSnapshot): string[] => snapshot.tasks.map((task) => task.id);

describe('status pages', () => {
  it('without a limit: every task in queue order and no page', () => {
    const all = status({});
    assert.deepEqual(ids(all), ['t0', 't1', 't2', 't3', 't4', 't5', 't6', 't7']);
    assert.equal(all.page, undefined);
  });

  it('a limit that holds every task keeps queue order, and says so', () => {
    const page = status({ limit: 8 });
    assert.deepEqual(ids(page), ['t0', 't1', 't2', 't3', 't4', 't5', 't6', 't7']);
    assert.deepEqual(page.page, {
      limit: 8,
      total: 8,
      matching: 8,
      shown: 8,
      counts: { cancelled: 3, queued: 4, running: 1 },
      archived: 0,
    });
  });

  it('a smaller limit shows the active tasks first, then the latest finished', () => {
    assert.deepEqual(ids(status({ limit: 3 })), ['t3', 't4', 't5']);
    const page = status({ limit: 6 });
    assert.deepEqual(ids(page), ['t3', 't4', 't5', 't6', 't7', 't2']);
    assert.deepEqual(page.page && { total: page.page.total, matching: page.page.matching, shown: page.page.shown }, {
      total: 8,
      matching: 8,
      shown: 6,
    });
  });

  it('by ids: exactly those rows as the full read shows them, and nothing for ids that are gone', () => {
    const full = status({});
    const some = status({ ids: { workers: ['ada', 'nobody'], tasks: ['t5', 't3', 'missing'] } });
    assert.deepEqual(ids(some), ['t3', 't5'], 'queue order, missing ids left out');
    assert.deepEqual(
      some.tasks,
      full.tasks.filter((task) => task.id === 't3' || task.id === 't5'),
    );
    assert.deepEqual(
      some.workers.map(({ heartbeatAgeMs: _age, ...worker }) => worker),
      full.workers.map(({ heartbeatAgeMs: _age, ...worker }) => worker),
    );
    assert.deepEqual(some.usage, full.usage, 'the usage total is always the whole');
    assert.deepEqual(status({ ids: { workers: [], tasks: [] } }).tasks, []);
  });

  it('filters by status, worker and time, counting what matched', () => {
    const cancelled = status({ limit: 2, statuses: ['cancelled'] });
    assert.deepEqual(ids(cancelled), ['t2', 't1']);
    assert.equal(cancelled.page?.matching, 3);
    assert.deepEqual(ids(status({ limit: 10, worker: 'ada' })), ['t3']);
    // t5, t6 and t7 were added within the last 5.5 s (t3 was started, t0–t2 cancelled since); t4 was not touched.
    const since = harness.clock.now() - 5_500;
    assert.deepEqual(ids(status({ limit: 10, since })), ['t0', 't1', 't2', 't3', 't5', 't6', 't7']);
    assert.deepEqual(ids(status({ limit: 10, statuses: ['done'] })), []);
  });

  it('refuses a bad query with what is allowed', () => {
    const bad = parseRequest({ command: 'status', args: { limit: 0 } });
    assert.ok(!bad.ok && /limit: must be at least 1/.test(bad.message), JSON.stringify(bad));
    const unknown = parseRequest({ command: 'status', args: { statuses: ['finished'] } });
    assert.ok(!unknown.ok && /a task status is one of idle, queued, running, done, failed, cancelled/.test(unknown.message));
  });
});

describe('progress in status', () => {
  it('belongs to the task it was reported for: a new task starts with none', async () => {
    const crew = await openEngine();
    try {
      await crew.value('worker.add', { id: 'bo' });
      await crew.value('task.add', { title: 'First', id: 'first' });
      await crew.value('task.add', { title: 'Second', id: 'second' });
      await crew.value('assign', { worker: 'bo', task: 'first' });
      await crew.value('start', { worker: 'bo' });
      await crew.value('heartbeat', { worker: 'bo', progress: 0.5, attempt: 1 });
      await crew.value('heartbeat', { worker: 'bo', attempt: 1 });
      const progress = (): number | null | undefined => crew.query('status', {}).workers.find((worker) => worker.id === 'bo')?.progress;
      assert.equal(progress(), 0.5, 'a heartbeat without progress keeps the last one said for this task');
      await crew.value('submit', { worker: 'bo', attempt: 1 });
      await crew.value('approve', { worker: 'bo' });
      await crew.value('merge', { worker: 'bo' });
      await crew.value('assign', { worker: 'bo', task: 'second' });
      assert.equal(progress(), null, 'nothing said yet about the second task');
      await crew.value('start', { worker: 'bo' });
      await crew.value('heartbeat', { worker: 'bo', attempt: 1 });
      assert.equal(progress(), null);
    } finally {
      crew.close();
    }
  });
});
