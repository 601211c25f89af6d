import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type PendingSource, type TrailEntry, arrayCursor, mergeBySeq, pagedCursor } from '../../../src/cli/commands/auditTrail';

const entry = (seq: number, text = `t${seq}`): TrailEntry => ({ seq, event: { seq, text }, line: JSON.stringify({ seq, text }) });
const seqs = (entries: TrailEntry[]) => entries.map((e) => e.seq);

async function collect(lines: AsyncGenerator<TrailEntry>): Promise<TrailEntry[]> {
  const out: TrailEntry[] = [];
  for await (const line of lines) out.push(line);
  return out;
}

/** A segment whose entries are handed over only when opened, and which says when that was. */
function segment(entries: TrailEntry[], opened: number[], name: number): PendingSource {
  return {
    firstSeq: Math.min(...entries.map((e) => e.seq)),
    open: () => {
      opened.push(name);
      return Promise.resolve(arrayCursor([...entries]));
    },
  };
}

describe('the audit trail merged by seq', () => {
  it('merges overlapping segments and a paged live log in seq order, opening each segment only when the merge reaches it', async () => {
    const opened: number[] = [];
    // Segment 2 holds a task created before segment 1's last (a long-queued one): their ranges overlap.
    const segments = [
      segment([entry(1), entry(4), entry(2)], opened, 1),
      segment([entry(3), entry(9)], opened, 2),
      segment([entry(20)], opened, 3),
    ];
    const live = [entry(10), entry(11), entry(21), entry(22), entry(23)];
    const pages: number[] = [];
    const cursor = await pagedCursor((afterSeq) => {
      pages.push(afterSeq);
      return Promise.resolve(live.filter((e) => e.seq > afterSeq).slice(0, 2));
    });
    const order: number[] = [];
    for await (const merged of mergeBySeq([cursor], segments)) {
      order.push(merged.seq);
      // Segment 3 (first seq 20) is not read while the merge is still below it.
      if (order.at(-1)! < 20) assert.ok(!opened.includes(3), `segment 3 opened at seq ${order.at(-1)}`);
    }
    assert.deepEqual(order, [1, 2, 3, 4, 9, 10, 11, 20, 21, 22, 23]);
    assert.deepEqual(opened, [1, 2, 3]);
    assert.deepEqual(pages, [0, 11, 22, 23], 'the live log is read a page at a time');
  });

  it('gives a seq found in two sources once when the copies agree, and refuses it when they differ', async () => {
    // A segment a crash left unapplied: its rows are still live too.
    const same = await collect(mergeBySeq([arrayCursor([entry(5), entry(6)])], [segment([entry(5), entry(6)], [], 1)]));
    assert.deepEqual(seqs(same), [5, 6]);
    await assert.rejects(
      collect(mergeBySeq([arrayCursor([entry(5), entry(6, 'edited')])], [segment([entry(6)], [], 1)])),
      /seq 6 differs between two sources/,
    );
  });
});
