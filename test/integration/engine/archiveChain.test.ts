// Issue 28 on a real engine and store: archive segments and export lines name their store, each
// segment seals the previous one's hash, and a segment file past the recorded chain that does not
// continue it (another store's, a stray) is refused with what to do, never deleted nor applied;
// once it is moved aside, retention goes on after the chain, and the owner says so.
import assert from 'node:assert/strict';
import { readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { SegmentDraft } from '../../../src/core/archiveSegment';
import { FileArchiveSink } from '../../../src/infra/fs';
import { type EngineHarness, openEngine } from '../../support/engineHarness';
import { pollUntil } from '../../support/pollUntil';

const hour = 3600_000;
const harnesses: EngineHarness[] = [];
after(() => harnesses.forEach((h) => h.close()));

async function open(): Promise<EngineHarness> {
  const harness = await openEngine();
  harnesses.push(harness);
  return harness;
}

async function dropped(harness: EngineHarness, id: string): Promise<void> {
  await harness.value('task.add', { title: `Dropped ${id}`, id });
  await harness.value('cancel', { target: id });
}

const sinkOf = (harness: EngineHarness) => new FileArchiveSink(join(harness.dir, '.foreman'));
const ids = (harness: EngineHarness) => harness.query('status', {}).tasks.map((task) => task.id);

/** A sealed segment of another store, holding one task of its own. */
function foreignDraft(batch: number): SegmentDraft {
  const task = { kind: 'task', id: 'theirs', status: 'cancelled', title: 'Not ours', finished_at: 1 };
  return { batch, lines: [JSON.stringify(task)], store: 'ffffffffffffffff', previous: null, firstSeq: null, tasks: ['theirs'] };
}

describe("the archive is one store's chain", () => {
  it("seals each segment with its store and the previous segment's hash, as the store records them", async () => {
    const harness = await open();
    await dropped(harness, 'one');
    harness.clock.advance(2 * hour);
    assert.equal((await harness.value<{ batch: number }>('archive', { olderThanMs: hour })).batch, 1);
    await dropped(harness, 'two');
    harness.clock.advance(2 * hour);
    assert.equal((await harness.value<{ batch: number }>('archive', { olderThanMs: hour })).batch, 2);

    const state = harness.query('archive.state', {});
    assert.match(state.store ?? '', /^[0-9a-f]{16}$/);
    const sink = sinkOf(harness);
    const [first, second] = [sink.read(1), sink.read(2)];
    assert.ok(first.state === 'sealed' && second.state === 'sealed');
    assert.deepEqual(
      [first.end.store, first.end.previous, second.end.store, second.end.previous],
      [state.store, null, state.store, first.hash],
    );
    assert.deepEqual([state.batch, state.hash], [2, second.hash]);
    // Every export line names the store too.
    const lines = readFileSync(join(harness.dir, '.foreman', 'transitions.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean);
    assert.ok(lines.length >= 4);
    assert.deepEqual(new Set(lines.map((line) => (JSON.parse(line) as { store: string }).store)), new Set([state.store]));
  });

  it("refuses another store's segment where its next one goes: never applied, never deleted, until moved aside", async () => {
    const harness = await open();
    await dropped(harness, 'mine');
    const sink = sinkOf(harness);
    // The old failure: a new store took the old store's segment 1 for a stale one of its own and deleted it.
    sink.write(foreignDraft(1));
    const before = readFileSync(sink.fileOf(1), 'utf8');
    harness.clock.advance(2 * hour);
    const refused = await harness.run('archive', { olderThanMs: hour });
    assert.equal(refused.ok, false);
    assert.ok(!refused.ok && refused.kind === 'refused' && refused.code === 'archiveStraySegment');
    assert.match(
      refused.message,
      /000001\.jsonl belongs to another store \(ffffffffffffffff; this store is [0-9a-f]{16}\); this store has archived nothing yet.*Move that file aside/,
    );
    assert.equal(readFileSync(sink.fileOf(1), 'utf8'), before, "the other store's segment is left as it was");
    assert.deepEqual(ids(harness), ['mine'], 'nothing left the live tables');
    assert.equal(harness.query('archive.state', {}).batch, 0);

    renameSync(sink.fileOf(1), `${sink.fileOf(1)}.stray`);
    const report = await harness.value<{ batch: number; tasks: number }>('archive', { olderThanMs: hour });
    assert.deepEqual([report.batch, report.tasks], [1, 1]);
    assert.deepEqual(ids(harness), []);
    assert.equal(readFileSync(`${sink.fileOf(1)}.stray`, 'utf8'), before);
  });

  it('an owner told of a stray says so once, keeps exporting, and goes on after the chain once it is moved aside', async () => {
    const harness = await open();
    const heard: string[] = [];
    harness.engine.onDidFailInBackground((error) => heard.push(error instanceof Error ? error.message : String(error)));
    await dropped(harness, 'early');
    const sink = sinkOf(harness);
    sink.write(foreignDraft(7));
    harness.clock.advance(8 * 24 * hour);
    harness.engine.startBackground();
    harness.clock.advance(5_000);
    await pollUntil(() => heard.length > 0, { what: 'the refusal told', intervalMs: 0 });
    assert.match(
      heard[0] ?? '',
      /000007\.jsonl is numbered past segment 1, the next this store would write.*retention then goes on after segment 0/,
    );
    assert.deepEqual(ids(harness), ['early']);
    // The exports go on while retention waits for a person.
    const exported = () =>
      readFileSync(join(harness.dir, '.foreman', 'transitions.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean).length;
    assert.equal(exported(), 2);

    // Tried again a minute later, still there: not said again.
    harness.clock.advance(61_000);
    await dropped(harness, 'later');
    harness.clock.advance(0);
    await pollUntil(() => exported() === 4, { what: 'the new rows exported', intervalMs: 0, detail: () => String(exported()) });
    assert.equal(heard.length, 1);

    renameSync(sink.fileOf(7), `${sink.fileOf(7)}.stray`);
    harness.clock.advance(61_000);
    await harness.value('task.add', { title: 'New work', id: 'new', manual: true });
    harness.clock.advance(0);
    await pollUntil(() => !ids(harness).includes('early'), {
      what: 'the early task archived',
      intervalMs: 0,
      detail: () => ids(harness).join(),
    });
    await pollUntil(() => heard.length === 2, { what: 'the owner saying retention goes on', intervalMs: 0 });
    assert.match(heard[1] ?? '', /archive: retention goes on \(segment 1 written\)/);
    assert.equal(sink.read(1).state, 'sealed');
  });
});
