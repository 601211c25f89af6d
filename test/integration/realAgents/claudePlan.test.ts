/**
 * Plan first, through the real Claude Code CLI: a plan-first task's agent runs in Claude's plan
 * mode and writes nothing (neither a file tool nor a shell command gets through); its plan
 * (ExitPlanMode) makes the worker wait for a person with the plan in the wait and the transcript; a
 * rejection with a note reaches the model, which plans again; an approval carries the plan out in
 * the same session, same attempt, and the work reaches review. The model is a scripted server.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { conversations, eventsOf, makeRealCrew } from './realCrew';

interface PlanWorker {
  readonly id: string;
  readonly state: string;
  readonly attempt: number;
  readonly summary: string | null;
  readonly needsInput: { message: string } | null;
}
const ada = (status: unknown): PlanWorker => (status as { workers: PlanWorker[] }).workers.find((worker) => worker.id === 'ada')!;

test(
  'a plan-first task waits with its plan, writes nothing before approval, and carries it out in the same session',
  { timeout: 150_000 },
  async () => {
    const { crew, model } = await makeRealCrew('claude');
    const worktree = crew.worktreeOf('ada');
    model.play([
      { write: { path: join(worktree, 'early.txt'), content: 'too early' } },
      { bash: 'echo too early > early-shell.txt' },
      { tool: { name: 'ExitPlanMode', input: { plan: 'Plan v1: write plan.txt' } } },
      { tool: { name: 'ExitPlanMode', input: { plan: 'Plan v2: write plan.txt and say so' } } },
      { write: { path: join(worktree, 'plan.txt'), content: 'planned' } },
      { text: 'Wrote plan.txt as planned.' },
    ]);
    await crew.ok(['task', 'add', 'Plan it', '--id', 'planned', '--prompt', 'Write plan.txt.', '--plan-first']);
    const server = await crew.serve();
    try {
      const first = await crew.waitFor(
        'the first plan waits',
        (status) => /^approve the plan: Plan v1/.test(ada(status).needsInput?.message ?? ''),
        60_000,
        server,
      );
      assert.equal(ada(first).state, 'WORKING');
      assert.ok(!existsSync(join(worktree, 'early.txt')), 'the file tool was refused in plan mode');
      assert.ok(!existsSync(join(worktree, 'early-shell.txt')), 'the shell command was refused in plan mode');
      const planned = eventsOf(crew.root, 'planned', 1);
      assert.ok(
        planned.some((event) => event['type'] === 'message' && String(event['text']).includes('Plan v1: write plan.txt')),
        'the plan is in the transcript',
      );

      const note = 'Also say in your summary that the plan was followed.';
      assert.match(await crew.ok(['answer', 'ada', 'deny', '--note', note]), /deny/);
      await crew.waitFor(
        'the revised plan waits',
        (status) => /^approve the plan: Plan v2/.test(ada(status).needsInput?.message ?? ''),
        60_000,
        server,
      );
      assert.ok(
        conversations(model).some((request) => request.includes(note)),
        'the rejection note reached the model',
      );
      assert.ok(!existsSync(join(worktree, 'plan.txt')), 'nothing written before approval');

      await crew.ok(['answer', 'ada', 'allow']);
      const review = await crew.waitForWorker('ada', 'IN_REVIEW', server, 60_000);
      assert.equal(ada(review).attempt, 1, 'the plan and its execution are one attempt');
      assert.equal(ada(review).summary, 'Wrote plan.txt as planned.');
      assert.equal(crew.git(['show', 'ada/planned:plan.txt']), 'planned');
      const events = eventsOf(crew.root, 'planned', 1);
      assert.equal(events.filter((event) => event['type'] === 'session').length, 1, 'one session planned and executed');
      const stream = readFileSync(join(crew.root, '.foreman', 'logs', 'planned', 'attempt-1.stream.jsonl'), 'utf8');
      assert.match(stream, /"permissionMode":"plan"/, 'it planned in plan mode');
      assert.match(stream, /"permissionMode":"acceptEdits"/, 'the approval moved the same run to acceptEdits');
    } finally {
      await server.stop();
    }
  },
);
