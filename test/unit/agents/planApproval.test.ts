/**
 * A plan's approval on Claude Code's own permission prompts (`can_use_tool` on stdout, a
 * `control_response` on stdin): the plan waits with its text; other requests are refused at once;
 * an approval allows it with the move to acceptEdits; a rejection hands the person's note over.
 * The protocol lines are the ones measured against claude-code 2.1.197 (claudePermissionPrompts.ts);
 * the real CLI is exercised in test/integration/realAgents/claudePlan.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pollUntil } from '../../support/pollUntil';
import { claudePermissionPrompts } from '../../../src/infra/agents/kinds/claudePermissionPrompts';
import { PlanApproval, type PlanAnswer } from '../../../src/infra/agents/planApproval';
import { ManualClock } from '../../support/manualClock';

const request = (id: string, tool: string, input: Record<string, unknown>) =>
  JSON.stringify({
    type: 'control_request',
    request_id: id,
    request: { subtype: 'can_use_tool', tool_name: tool, display_name: tool, input, tool_use_id: 't' },
  });

function approval(answers: Array<PlanAnswer | undefined>) {
  const written: Array<Record<string, unknown>> = [];
  const gate = new PlanApproval(
    claudePermissionPrompts,
    (line) => written.push(JSON.parse(line) as Record<string, unknown>),
    () => Promise.resolve(answers.shift()),
    (line) => assert.fail(`unexpected log: ${line}`),
  );
  return { gate, written };
}

const answerOf = (line: Record<string, unknown> | undefined) => (line?.['response'] as { response: Record<string, unknown> }).response;

describe('PlanApproval', () => {
  it('refuses a change before approval, waits with the plan, and approves into acceptEdits', async () => {
    const { gate, written } = approval([undefined, { decision: 'allow' }]);
    const refused = gate.line(request('r1', 'Write', { file_path: '/w/a.txt', content: 'x' }));
    assert.match(
      String(refused[0] && 'message' in refused[0] ? refused[0].message : ''),
      /^permission denied: Write: \/w\/a.txt \(plan mode/,
    );
    assert.deepEqual(answerOf(written[0]), {
      behavior: 'deny',
      message: 'plan mode: change nothing until the plan is approved; present the plan with ExitPlanMode',
    });
    assert.deepEqual(gate.line('{"type":"assistant","message":{"content":[]}}'), [], 'other lines are left to the parser');

    const events = gate.line(request('r2', 'ExitPlanMode', { plan: 'Step 1.\nStep 2.' }));
    assert.deepEqual(events, [
      { type: 'message', text: 'Plan for approval:\n\nStep 1.\nStep 2.' },
      { type: 'needsInput', message: 'approve the plan: Step 1. Step 2. — answer allow to carry it out, or deny --note <what to change>' },
    ]);
    assert.equal(gate.waiting, true);
    await pollUntil(() => (written.length === 2 ? true : undefined), { what: 'the approval is written', timeoutMs: 5000 });
    assert.equal(gate.waiting, false);
    assert.deepEqual(written[1], {
      type: 'control_response',
      response: {
        subtype: 'success',
        request_id: 'r2',
        response: {
          behavior: 'allow',
          updatedInput: { plan: 'Step 1.\nStep 2.' },
          updatedPermissions: [{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }],
        },
      },
    });
    gate.dispose();
  });

  it("hands a rejection's note to the agent and keeps it planning", async () => {
    const { gate, written } = approval([{ decision: 'deny', note: 'Add a test.' }]);
    gate.line(request('r3', 'ExitPlanMode', { plan: 'Just do it.' }));
    await pollUntil(() => (written.length === 1 ? true : undefined), { what: 'the rejection is written', timeoutMs: 5000 });
    assert.deepEqual(answerOf(written[0]), {
      behavior: 'deny',
      message:
        'A person rejected this plan. Their note: Add a test. Stay in plan mode, revise the plan and present it again with ExitPlanMode.',
    });
    assert.equal(gate.waiting, false);
    gate.dispose();
  });

  it('looks for the answer on its clock every half second while the plan waits, and no more once answered', async () => {
    const clock = new ManualClock();
    const answers: Array<PlanAnswer | undefined> = [undefined, undefined, { decision: 'allow' }];
    let asked = 0;
    const written: string[] = [];
    const gate = new PlanApproval(
      claudePermissionPrompts,
      (line) => written.push(line),
      () => {
        asked++;
        return Promise.resolve(answers.shift());
      },
      (line) => assert.fail(`unexpected log: ${line}`),
      clock,
    );
    gate.line(request('r4', 'ExitPlanMode', { plan: 'Plan.' }));
    gate.line(request('r5', 'ExitPlanMode', { plan: 'Plan again.' }));
    assert.equal(clock.pendingTimers(), 1, 'one look-up timer, however many plans came');
    clock.advance(499);
    assert.equal(asked, 0);
    for (let tick = 1; tick <= 3; tick++) {
      clock.advance(500);
      await pollUntil(() => (asked === tick ? true : undefined), { what: `look ${tick}`, intervalMs: 0 });
    }
    await pollUntil(() => (written.length === 1 ? true : undefined), { what: 'the approval is written', intervalMs: 0 });
    assert.equal(gate.waiting, false);
    assert.equal(clock.pendingTimers(), 0, 'answered: the timer is gone');
    clock.advance(5_000);
    assert.equal(asked, 3);
    gate.dispose();
  });
});
