import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { workerPhases } from '../../../src/core/actions';
import { branchTemplateLiteral, branchTemplateParts, fillBranchTemplate } from '../../../src/core/branchTemplate';

/**
 * The lists the engine's SQL binds (core/actions.ts `workerPhases`), checked against the states the
 * statements spelled out before they were derived from the transition table: a change to the
 * machine that moves one of them shows here, not as a silent change of concurrency or lease release.
 */
describe('agent phases', () => {
  it('an attempt is under way while ASSIGNED, WORKING or STALE (what counts under concurrency)', () =>
    assert.deepEqual(workerPhases.attemptUnderWay, ['ASSIGNED', 'WORKING', 'STALE']));
  it('an agent is expected to run while ASSIGNED or WORKING (relaunched after an owner restart)', () =>
    assert.deepEqual(workerPhases.agentExpected, ['ASSIGNED', 'WORKING']));
  it('an agent must not run while IDLE, STALE or FAILED', () => assert.deepEqual(workerPhases.agentStopped, ['IDLE', 'STALE', 'FAILED']));
  it('the monitor keeps a deadline while WORKING, IN_REVIEW, STALE or PAUSED', () =>
    assert.deepEqual(workerPhases.onTimer, ['WORKING', 'IN_REVIEW', 'STALE', 'PAUSED']));
});

describe('branch template', () => {
  it('fills both placeholders wherever they stand, as often as they occur', () => {
    assert.equal(fillBranchTemplate('{worker}/{task}', 'ada', 't-1'), 'ada/t-1');
    assert.equal(fillBranchTemplate('ai/{task}-{worker}-{task}', 'ada', 't-1'), 'ai/t-1-ada-t-1');
    assert.equal(fillBranchTemplate('fixed', 'ada', 't-1'), 'fixed');
  });
  it('splits a template into its pieces, leaving out empty text between placeholders', () =>
    assert.deepEqual(branchTemplateParts('foreman/{worker}{task}'), [
      { kind: 'literal', text: 'foreman/' },
      { kind: 'worker' },
      { kind: 'task' },
    ]));
  it('reads a lookalike of a placeholder as text', () => {
    assert.deepEqual(branchTemplateParts('{Task}'), [{ kind: 'literal', text: '{Task}' }]);
    assert.equal(branchTemplateLiteral('x/{worker}/{tasks}'), 'x//{tasks}');
  });
});
