/**
 * What a write tells the other owners of a shared store, and what they do about it (issue 29): a
 * heartbeat names nothing; a change says whether work may have become runnable, which workers'
 * liveness to read again, and whether only views care; the payload carries it both ways; a view
 * reads what is not announced (beats, transitions) on a timer, only while it is watched.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ExternalChanges, type ExternalReads, remoteChangesPollMs } from '../../src/engine/externalChanges';
import type { ChangedRows } from '../../src/engine/ports';
import { type EngineEvent, changedRowsOf } from '../../src/engine/unit';
import { decodeNotice, encodeNotice } from '../../src/infra/pg/notice';
import { ManualClock } from '../support/manualClock';

describe('what a commit tells the other owners', () => {
  it('a heartbeat, even one that may end a wait, names nothing', () => {
    const beats: EngineEvent[] = [
      { kind: 'heartbeat', workerId: 'ada', mayEndWait: false },
      { kind: 'heartbeat', workerId: 'bob', mayEndWait: true },
    ];
    assert.deepEqual(changedRowsOf(beats), { workers: [], tasks: [], mayHaveWork: false, liveness: [], onlyForViews: true });
  });

  it('a claim makes no work runnable and starts no deadline; a queued task or a freed worker may', () => {
    const claim: EngineEvent[] = [
      { kind: 'task', id: 't1', from: 'queued', to: 'running', trigger: 'claim' },
      { kind: 'worker', id: 'ada', from: 'IDLE', to: 'ASSIGNED', trigger: 'assign' },
    ];
    assert.deepEqual(changedRowsOf(claim), { workers: ['ada'], tasks: ['t1'], mayHaveWork: false, liveness: [], onlyForViews: true });
    const queued = changedRowsOf([{ kind: 'task', id: 't2', from: 'idle', to: 'queued', trigger: 'queue' }]);
    assert.equal(queued.mayHaveWork, true);
    assert.equal(queued.onlyForViews, false, 'the others act on it: always announced');
    assert.equal(changedRowsOf([{ kind: 'created', entity: 'task', id: 't3' }]).onlyForViews, false, 'a new row is in no transition');
    assert.equal(changedRowsOf([{ kind: 'worker', id: 'ada', from: 'COMPLETED', to: 'IDLE', trigger: 'recycle' }]).mayHaveWork, true);
  });

  it('names the workers moved into a state the monitor watches', () => {
    const moves: EngineEvent[] = [
      { kind: 'worker', id: 'ada', from: 'ASSIGNED', to: 'WORKING', trigger: 'start' },
      { kind: 'worker', id: 'bob', from: 'WORKING', to: 'IN_REVIEW', trigger: 'submit' },
      { kind: 'worker', id: 'cy', from: 'WORKING', to: 'FAILED', trigger: 'workFailed' },
    ];
    assert.deepEqual(changedRowsOf(moves).liveness, ['ada', 'bob']);
  });
});

describe('the NOTIFY payload, with what the others must do', () => {
  it('carries whether work may be runnable, the workers to watch and (added by the server) their hosts', () => {
    const changed: ChangedRows = { workers: ['ada'], tasks: ['t1'], mayHaveWork: false, liveness: ['ada'] };
    const payload = encodeNotice('owner-a', changed);
    assert.deepEqual(decodeNotice(payload), { owner: 'owner-a', changed });
    // notice.ts `notifySql` appends the hosts before the closing brace.
    const withHosts = `${payload.slice(0, -1)},"h":["machine-a",null]}`;
    assert.deepEqual(decodeNotice(withHosts).changed?.hosts, ['machine-a', null]);
  });

  it('reads a payload of an owner that says nothing of them as "not known"', () => {
    assert.deepEqual(decodeNotice('{"o":"old","w":["ada"],"t":[]}'), { owner: 'old', changed: { workers: ['ada'], tasks: [] } });
    assert.deepEqual(decodeNotice('{"o":"x","w":["ada"],"t":[],"d":2}'), { owner: '' }, 'a field out of range is no payload of ours');
  });
});

describe('a view of what the other machines do and do not announce', () => {
  /** A shared store as the view's timer reads it: beats, and transitions by seq. */
  function store() {
    const state = {
      beats: new Map([
        ['ada', '1'],
        ['bob', '1'],
      ]),
      transitions: [] as Array<{ seq: number; entity_type: 'worker' | 'task'; entity_id: string }>,
      reads: 0,
    };
    const reads: ExternalReads = {
      beats: () => {
        state.reads++;
        return state.beats;
      },
      lastSeq: () => state.transitions.reduce((last, row) => Math.max(last, row.seq), 0),
      transitionsAfter: (seq, limit) =>
        state.transitions
          .filter((row) => row.seq > seq)
          .sort((a, b) => a.seq - b.seq)
          .slice(0, limit),
    };
    return { state, reads };
  }

  it('reads them on a timer only while watched, and names the workers and tasks that moved', () => {
    const clock = new ManualClock(1_000);
    const { state, reads } = store();
    state.transitions.push({ seq: 1, entity_type: 'task', entity_id: 'old' });
    const changes = new ExternalChanges(reads, clock);
    clock.advance(remoteChangesPollMs * 3);
    assert.equal(state.reads, 0, 'nobody watching: nothing read');

    const seen: Array<ChangedRows | undefined> = [];
    const watching = changes.event((changed) => seen.push(changed));
    clock.advance(remoteChangesPollMs);
    assert.equal(state.reads, 1);
    assert.equal(seen.length, 0, 'the first look is the baseline');
    state.beats = new Map([
      ['ada', '2'],
      ['bob', '1'],
      ['cy', '1'],
    ]);
    // Committed out of seq order: 3 is seen first, 2 a look later, each once.
    state.transitions.push({ seq: 3, entity_type: 'worker', entity_id: 'dee' });
    clock.advance(remoteChangesPollMs);
    state.transitions.push({ seq: 2, entity_type: 'task', entity_id: 't2' });
    clock.advance(remoteChangesPollMs);
    assert.deepEqual(
      seen.map((changed) => [changed?.workers, changed?.tasks]),
      [
        [['ada', 'cy', 'dee'], []],
        [[], ['t2']],
      ],
    );
    assert.equal(seen[0]?.mayHaveWork, false, 'what the timer finds runs no dispatcher');
    clock.advance(remoteChangesPollMs);
    assert.equal(seen.length, 2, 'nothing moved: nothing said');

    changes.fire({ workers: ['eve'], tasks: [] });
    assert.deepEqual(seen.at(-1), { workers: ['eve'], tasks: [] }, "the others' notifications pass through");
    watching.dispose();
    const before = state.reads;
    clock.advance(remoteChangesPollMs * 3);
    assert.equal(state.reads, before, 'no longer watched: no longer read');
    changes.dispose();
  });

  it('reads nothing with one owner (no other machine)', () => {
    const clock = new ManualClock(1_000);
    const changes = new ExternalChanges(undefined, clock);
    changes.event(() => undefined);
    assert.equal(clock.pendingTimers(), 0);
    changes.dispose();
  });
});
