import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keptErrors, validateTransitionLog } from '../../src/core/transitionLog';

const event = (seq: number, over: Record<string, unknown>) =>
  JSON.stringify({
    seq,
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(),
    event_type: 'worker_state_transition',
    severity: 'info',
    entity_id: 'w1',
    actor: 'cli',
    ...over,
  });

describe('transitions log validator', () => {
  it('accepts a legal history', () => {
    const log = [
      event(1, { from_state: 'IDLE', to_state: 'ASSIGNED', trigger: 'assign' }),
      event(2, { from_state: 'ASSIGNED', to_state: 'WORKING', trigger: 'start' }),
      event(3, { event_type: 'task_state_transition', entity_id: 't1', from_state: 'idle', to_state: 'queued', trigger: 'enqueue' }),
    ].join('\n');
    assert.deepEqual(validateTransitionLog(log), { ok: true, count: 3, errors: [] });
  });

  it("takes lines that name their store, and names a line of another store (two stores' exports in one file)", () => {
    const log = [
      event(1, { from_state: 'IDLE', to_state: 'ASSIGNED', trigger: 'assign', store: 'aaaa' }),
      event(2, { from_state: 'ASSIGNED', to_state: 'WORKING', trigger: 'start', store: 'aaaa' }),
    ];
    assert.deepEqual(validateTransitionLog(log.join('\n')), { ok: true, count: 2, errors: [] });
    const mixed = [...log, event(3, { from_state: 'WORKING', to_state: 'IN_REVIEW', trigger: 'submit', store: 'bbbb' })].join('\n');
    assert.deepEqual(validateTransitionLog(mixed).errors, [
      { line: 3, message: "this line is store bbbb's, the lines before it store aaaa's" },
    ]);
  });

  it('names illegal transitions, broken continuity, time going back and bad lines', () => {
    const log = [
      event(1, { from_state: 'IDLE', to_state: 'WORKING', trigger: 'assign' }),
      event(2, { from_state: 'ASSIGNED', to_state: 'WORKING', trigger: 'start' }),
      JSON.stringify({
        ...JSON.parse(event(3, { from_state: 'WORKING', to_state: 'IN_REVIEW', trigger: 'submit' })),
        timestamp: '2025-01-01T00:00:00.000Z',
      }),
      '{not json',
      event(5, { from_state: 'IN_REVIEW', to_state: 'APPROVED' }),
    ].join('\n');
    const report = validateTransitionLog(log);
    assert.equal(report.ok, false);
    const messages = report.errors.map((e) => `${e.line}: ${e.message}`);
    assert.ok(messages.includes('1: w1: IDLE --assign--> WORKING is not a legal transition'), messages.join('\n'));
    assert.ok(messages.some((m) => m.startsWith('2: w1: starts from ASSIGNED but its last state was WORKING')));
    assert.ok(messages.some((m) => m.startsWith('3: timestamp 2025-01-01T00:00:00.000Z goes back in time')));
    assert.ok(messages.includes('4: not valid JSON'));
    assert.ok(messages.some((m) => m.startsWith('5: trigger:')));
  });

  it('lists the first thousand problems of a trail broken throughout and counts the rest', () => {
    const log = Array.from({ length: keptErrors + 250 }, () => '{not json').join('\n');
    const report = validateTransitionLog(log);
    assert.equal(report.ok, false);
    assert.equal(report.errors.length, keptErrors);
    assert.equal(report.moreErrors, 250);
    assert.deepEqual(report.errors.at(-1), { line: keptErrors, message: 'not valid JSON' });
  });
});
