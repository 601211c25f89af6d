// Retention on a real engine, store and git repository: finished work moves to sealed segments in
// .foreman/archive/, the live tables shrink, the metrics stay whole, and a crash between writing a
// segment and deleting its rows loses nothing and duplicates nothing.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { segmentFilePattern } from '../../../src/core/archiveSegment';
import { parseArchiveLine } from '../../../src/engine/archiver';
import type { Metrics } from '../../../src/engine/metrics';
import type { ArchiveSink } from '../../../src/engine/ports';
import { validateTransitionLog } from '../../../src/core/transitionLog';
import { FileArchiveSink } from '../../../src/infra/fs';
import { type EngineHarness, openEngine } from '../../support/engineHarness';
import { pollUntil } from '../../support/pollUntil';

const hour = 3600_000;

/** A sink that is the real one except for the methods given. */
function delegating(files: FileArchiveSink, overrides: Partial<ArchiveSink>): ArchiveSink {
  return {
    write: (draft) => files.write(draft),
    writeInBackground: (draft) => files.writeInBackground(draft),
    discard: (batch) => files.discard(batch),
    index: (batch, store, hash, tasks) => files.index(batch, store, hash, tasks),
    read: (batch) => files.read(batch),
    batches: () => files.batches(),
    fileOf: (batch) => files.fileOf(batch),
    problem: () => files.problem(),
    ...overrides,
  };
}
const harnesses: EngineHarness[] = [];
after(() => harnesses.forEach((h) => h.close()));

async function open(archive?: (dir: string) => ArchiveSink): Promise<EngineHarness> {
  const harness = await openEngine({}, archive ? { archive } : {});
  harnesses.push(harness);
  return harness;
}

/** One task through the whole worker path (with usage reported), the rest cancelled, a chain done. */
async function history(harness: EngineHarness): Promise<void> {
  await harness.value('worker.add', { id: 'w1' });
  await harness.value('task.add', { title: 'Fix login', id: 'login' });
  await harness.value('claim', { worker: 'w1' });
  await harness.value('start', { worker: 'w1' });
  await harness.value('usage', {
    worker: 'w1',
    inputTokens: 1200,
    outputTokens: 300,
    cacheReadTokens: 700,
    cacheWriteTokens: 90,
    costUsd: 0.25,
  });
  await harness.value('submit', { worker: 'w1', summary: 'fixed' });
  await harness.value('approve', { worker: 'w1' });
  await harness.value('merge', { worker: 'w1' });
  for (let i = 1; i <= 5; i++) {
    await harness.value('task.add', { title: `Old idea ${i}`, id: `idea-${i}`, manual: true });
    await harness.value('task.add', { title: `Dropped ${i}`, id: `dropped-${i}` });
    await harness.value('cancel', { target: `dropped-${i}` });
  }
  await harness.value('send', { from: 'w1', type: 'note', payload: { text: 'hello' } });
}

const ids = (harness: EngineHarness) => harness.query('status', {}).tasks.map((task) => task.id);
/** What retention must leave unchanged; pairs in a fixed order (equal counts may come either way). */
const comparable = (metrics: Metrics) => ({
  transitions: [...metrics.transitions].sort((a, b) => `${a.entity}${a.from}${a.to}`.localeCompare(`${b.entity}${b.from}${b.to}`)),
  timeInState: metrics.timeInState,
  usage: metrics.usage,
});

function segmentLines(harness: EngineHarness): ReturnType<typeof parseArchiveLine>[] {
  const dir = join(harness.dir, '.foreman', 'archive');
  return readdirSync(dir)
    .filter((name) => segmentFilePattern.test(name))
    .sort()
    .flatMap((name) => readFileSync(join(dir, name), 'utf8').split('\n').filter(Boolean).map(parseArchiveLine));
}

describe('retention: finished work to the archive', () => {
  it('moves done and cancelled tasks, their transitions and old messages out, and keeps the metrics whole', async () => {
    const harness = await open();
    await history(harness);
    const before = harness.query('metrics', {});
    const transitionsBefore = harness.query('transitions', { limit: 10_000 });
    harness.clock.advance(2 * hour);
    await harness.value('task.add', { title: 'Fresh work', id: 'fresh', manual: true });

    const report = await harness.value<{ batch: number; tasks: number; more: boolean; live?: { tasks: number } }>('archive', {
      olderThanMs: hour,
    });
    assert.equal(report.batch, 1);
    assert.equal(report.tasks, 6, 'login and the five cancelled tasks');
    assert.equal(report.more, false);
    assert.deepEqual(ids(harness).sort(), ['fresh', 'idea-1', 'idea-2', 'idea-3', 'idea-4', 'idea-5']);
    assert.equal(report.live?.tasks, 6);

    // The metrics count the archived rows through rollups: nothing moved, apart from the new task.
    const afterMetrics = harness.query('metrics', {});
    assert.deepEqual(afterMetrics.archived, { done: 1, cancelled: 5 });
    assert.deepEqual(comparable(afterMetrics), comparable(before));
    assert.deepEqual(afterMetrics.usage, {
      inputTokens: 1200,
      outputTokens: 300,
      cacheReadTokens: 700,
      cacheWriteTokens: 90,
      costUsd: 0.25,
    });

    // Every archived transition is in the segment once; segment + live log is the whole trail.
    const lines = segmentLines(harness);
    const archived = lines.flatMap((line) => (line.kind === 'transition' ? [line] : []));
    const live = harness.query('transitions', { limit: 10_000 });
    const bySeq = new Map([...archived, ...live].map((event) => [event.seq, event]));
    assert.equal(archived.length + live.length, bySeq.size, 'a transition is both archived and live');
    assert.deepEqual(
      [...bySeq.keys()].sort((a, b) => a - b).filter((seq) => seq <= (transitionsBefore.at(-1)?.seq ?? 0)),
      transitionsBefore.map((event) => event.seq),
    );
    const merged = [...bySeq.values()].sort((a, b) => a.seq - b.seq).map((event) => JSON.stringify({ ...event, kind: undefined }));
    const check = validateTransitionLog(merged.join('\n'));
    assert.ok(check.ok, JSON.stringify(check.errors.slice(0, 3)));
    assert.ok(
      lines.some((line) => line.kind === 'message' && line.type === 'note'),
      'the old message is in the archive',
    );
    assert.equal(harness.query('poll', { agent: 'w2' }).messages.length, 0, 'archived messages left the live bus');

    // Nothing more is due: a second run writes no segment.
    const again = await harness.value<{ batch: number | null }>('archive', { olderThanMs: hour });
    assert.equal(again.batch, null);
  });

  it('takes a chain only whole, its steps before their parent', async () => {
    const harness = await open();
    await harness.value('worker.add', { id: 'w1' });
    await harness.value('chain.add', { name: 'Release', steps: [{ title: 'one' }, { title: 'two' }] });
    const finish = async () => {
      await harness.value('claim', { worker: 'w1' });
      await harness.value('start', { worker: 'w1' });
      await harness.value('submit', { worker: 'w1' });
      await harness.value('approve', { worker: 'w1' });
      await harness.value('merge', { worker: 'w1' });
    };
    await finish();
    // The first step is done, the second still runs: the chain stays whole in the live tables.
    harness.clock.advance(2 * hour);
    const partial = await harness.value<{ tasks: number }>('archive', { olderThanMs: hour });
    assert.equal(partial.tasks, 0);
    assert.deepEqual(ids(harness).sort(), ['release', 'release-1', 'release-2']);
    await finish();
    assert.equal(harness.query('status', {}).tasks.find((task) => task.id === 'release')?.status, 'done');
    harness.clock.advance(2 * hour);
    const whole = await harness.value<{ tasks: number }>('archive', { olderThanMs: hour });
    assert.equal(whole.tasks, 3);
    assert.deepEqual(ids(harness), []);
    const order = segmentLines(harness).flatMap((line) => (line.kind === 'task' ? [line.id] : []));
    assert.equal(order.at(-1), 'release', 'the parent is deleted after its steps');
  });

  it('a crash after the segment is written and before its rows are deleted: applied once on the next run, never written twice', async () => {
    let crash = true;
    const harness = await open((dir) => {
      const files = new FileArchiveSink(dir);
      return delegating(files, {
        write(draft) {
          const hash = files.write(draft);
          if (crash) throw new Error('simulated crash after the segment reached the disk');
          return hash;
        },
      });
    });
    await history(harness);
    const before = harness.query('metrics', {});
    harness.clock.advance(2 * hour);

    // A promise that rejects, not a throw at the call: callers listening with `.catch` hear it.
    await assert.rejects(harness.run('archive', { olderThanMs: hour }), /simulated crash/);
    // The transaction rolled back: every row is still live, the segment is on disk, unapplied.
    assert.equal(ids(harness).length, 11);
    assert.deepEqual(comparable(harness.query('metrics', {})), comparable(before));

    crash = false;
    const report = await harness.value<{ recovered: number; batch: number | null }>('archive', { olderThanMs: hour });
    assert.equal(report.recovered, 1);
    assert.equal(report.batch, null, 'the recovered segment held everything due: nothing new to write');
    assert.deepEqual(ids(harness).sort(), ['idea-1', 'idea-2', 'idea-3', 'idea-4', 'idea-5']);
    const tasks = segmentLines(harness).filter((line) => line.kind === 'task');
    assert.equal(tasks.length, 6);
    assert.equal(new Set(tasks.map((line) => line.id)).size, 6, 'a task is archived twice');
    assert.deepEqual(comparable(harness.query('metrics', {})), comparable(before), 'rollups counted once');
  });

  it('an owner archives by itself: soon after it starts, then after a commit once the oldest row is due, with no timer while idle', async () => {
    const harness = await open();
    await harness.value('task.add', { title: 'Dropped early', id: 'early' });
    await harness.value('cancel', { target: 'early' });
    harness.clock.advance(8 * 24 * hour);
    harness.engine.startBackground();
    harness.clock.advance(5_000);
    // The segment is written on the thread pool, between the batch's two transactions.
    await pollUntil(() => ids(harness).length === 0, { what: 'the early task archived', intervalMs: 0 });
    // Nothing is due for a week: no timer waits for it.
    await harness.value('task.add', { title: 'Dropped later', id: 'later' });
    await harness.value('cancel', { target: 'later' });
    assert.equal(harness.clock.pendingTimers(), 0);
    harness.clock.advance(8 * 24 * hour);
    await harness.value('task.add', { title: 'New work', id: 'new', manual: true });
    harness.clock.advance(0);
    await pollUntil(() => ids(harness).join() === 'new', {
      what: 'only the new task live',
      intervalMs: 0,
      detail: () => ids(harness).join(),
    });
  });

  it('brings a backlog into the exports a step at a time, and keeps them at most an hour behind a working crew', async () => {
    const harness = await open();
    for (let i = 0; i < 600; i++) await harness.value('task.add', { title: `Task ${i}`, id: `t-${i}` });
    const file = join(harness.dir, '.foreman', 'transitions.jsonl');
    const exported = () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0);
    harness.engine.startBackground();
    harness.clock.advance(5_000);
    // One step writes 500 rows of each stream and archives nothing: the owner answers in between.
    assert.equal(exported(), 500);
    await new Promise((resolve) => setImmediate(resolve));
    harness.clock.advance(50);
    await pollUntil(() => exported() === 600, {
      what: 'the rest exported by the next step',
      intervalMs: 0,
      detail: () => String(exported()),
    });
    // With nothing to archive for a week, a commit an hour later still brings the exports up to date.
    await harness.value('task.add', { title: 'Later', id: 'later' });
    harness.clock.advance(hour);
    await harness.value('task.add', { title: 'Even later', id: 'even-later' });
    harness.clock.advance(0);
    await pollUntil(() => exported() === 602, { what: 'the rows of the hour exported', intervalMs: 0, detail: () => String(exported()) });
  });

  it('a task reset while its segment is being written stays live, and the stale segment is removed', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let writing = false;
    const harness = await open((dir) => {
      const files = new FileArchiveSink(dir);
      return delegating(files, {
        async writeInBackground(draft) {
          writing = true;
          const written = await files.writeInBackground(draft);
          await gate;
          return written;
        },
      });
    });
    await harness.value('task.add', { title: 'Dropped', id: 'dropped' });
    await harness.value('cancel', { target: 'dropped' });
    harness.clock.advance(8 * 24 * hour);
    harness.engine.startBackground();
    harness.clock.advance(5_000);
    await pollUntil(() => writing, { what: 'the segment being written', intervalMs: 0 });
    // Between the two transactions: the person takes the cancelled task back.
    await harness.value('retry', { task: 'dropped' });
    release();
    const segments = join(harness.dir, '.foreman', 'archive');
    await pollUntil(() => readdirSync(segments).filter((name) => segmentFilePattern.test(name)).length === 0, {
      what: 'the stale segment removed',
      intervalMs: 0,
    });
    assert.deepEqual(ids(harness), ['dropped'], 'the task taken back stays live, with its history');
    const trail = harness.query('transitions', { entity: 'dropped', limit: 100 }).map((row) => row.to_state);
    assert.deepEqual(trail, ['queued', 'cancelled', 'queued'], 'its transitions are all live');
  });

  it('a torn segment (no seal) is never applied, and a sealed one is read back exactly', async () => {
    const harness = await open();
    const sink = new FileArchiveSink(join(harness.dir, '.foreman'));
    const draft = { batch: 1, lines: ['{"kind":"rollup"}'], store: 'a1b2', previous: null, firstSeq: null, tasks: [] };
    const hash = sink.write(draft);
    const read = sink.read(1);
    assert.equal(read.state, 'sealed');
    assert.deepEqual(read.state === 'sealed' ? [read.lines, read.hash, read.end.store] : [], [['{"kind":"rollup"}'], hash, 'a1b2']);
    assert.equal(sink.lastBatch(), 1);
    assert.throws(() => sink.write({ ...draft, lines: ['again'] }), /never written twice/);
    assert.deepEqual(sink.read(2), { state: 'missing' });
    // A torn segment: the seal no longer holds.
    writeFileSync(sink.fileOf(1), readFileSync(sink.fileOf(1), 'utf8').slice(0, -20));
    assert.deepEqual(sink.read(1), { state: 'unsealed' });
  });
});
