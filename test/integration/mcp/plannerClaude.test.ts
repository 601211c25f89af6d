/**
 * A planner worker: the real Claude Code CLI (devDependency) with the profile's `boardTools`, which
 * gives it `foreman mcp` through `--mcp-config`. Scripted (the model is the only stand-in, offline),
 * it calls the board's `chain_add_markdown` tool to queue a two-step chain, and a demo worker of the
 * same crew runs both steps to review, in order.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { type Status, reviewUntil } from '../crew/crewHarness';
import { pollUntil } from '../../support/pollUntil';
import { conversations, eventsOf, makeRealCrew } from '../realAgents/realCrew';

const epic = [
  '# Greeting',
  '',
  '- [ ] Write the greeting',
  '  write greeting.txt hello',
  '- [ ] Sign the greeting',
  '  append greeting.txt -- the crew',
  '',
].join('\n');

test('a Claude planner queues a two-step chain through foreman MCP tools; the crew runs it to review', { timeout: 180_000 }, async () => {
  // Liveness is not what this test is about: thresholds a loaded machine cannot trip.
  const settings = { warnMs: 30_000, staleMs: 120_000, deadMs: 240_000 };
  const { crew, model } = await makeRealCrew('claude', { profile: { boardTools: true }, settings });
  await crew.ok(['worker', 'add', 'builder', '--agent', 'demo']);
  model.play([
    { tool: { name: 'mcp__foreman__chain_add_markdown', input: { markdown: epic, name: 'greeting' } } },
    { write: { path: 'PLAN.md', content: epic } },
    { text: 'Queued the greeting as a chain of two tasks; the plan is in PLAN.md.' },
  ]);
  const server = await crew.serve();
  try {
    await crew.addTask('plan', 'Plan the greeting', 'Split the greeting epic into tasks and queue them as a chain.', '--manual');
    await crew.ok(['assign', 'ada', 'plan']);

    const reviewed = await crew.waitForWorker('ada', 'IN_REVIEW', server, 90_000);
    const events = eventsOf(crew.root, 'plan', 1);
    const queued = await crew.status();
    const first = queued.tasks.find((task) => task.title === 'Write the greeting');
    const second = queued.tasks.find((task) => task.title === 'Sign the greeting');
    assert.ok(first && second, `no chain on the board; the planner's events: ${JSON.stringify(events)}`);
    assert.equal(second.blockedBy, first.id, 'the second step waits for the first');

    // The tool call and its answer, as Claude's own stream recorded them.
    assert.ok(events.some((event) => event['type'] === 'tool' && event['name'] === 'mcp__foreman__chain_add_markdown'));
    assert.ok(
      events.some((event) => event['type'] === 'toolResult' && event['ok'] === true && String(event['output']).includes(first.id)),
      JSON.stringify(events),
    );
    assert.equal(crew.worker(reviewed, 'ada').state, 'IN_REVIEW');
    // The tool list the model was offered held the board's tools, and the call was allowed without asking.
    const offered = conversations(model)[0] ?? '';
    assert.ok(offered.includes('mcp__foreman__task_add'), 'the board tools are offered to the model');
    const mcpConfig = join(crew.root, '.foreman', 'logs', 'plan', 'attempt-1.mcp.json');
    assert.ok(existsSync(mcpConfig));
    assert.deepEqual(
      (JSON.parse(readFileSync(mcpConfig, 'utf8')) as { mcpServers: { foreman: { args: string[] } } }).mcpServers.foreman.args,
      ['mcp'],
    );

    // The chain runs on the builder: each step to review, approved and merged, in order. The planner
    // stays in review meanwhile (merged, it would be idle and take the second step itself).
    const stepsDone = (status: Status): boolean => [first.id, second.id].every((id) => crew.task(status, id).status === 'done');
    await pollUntil(
      async () => {
        const status = await crew.status();
        if (stepsDone(status)) return status;
        const builder = crew.worker(status, 'builder');
        if (builder.state === 'IN_REVIEW') await crew.ok(['approve', 'builder']);
        if (builder.state === 'IN_REVIEW' || builder.state === 'APPROVED') await crew.ok(['merge', 'builder']);
        return undefined;
      },
      { what: 'both steps merged', timeoutMs: 90_000, intervalMs: 150, detail: () => server.output() },
    );
    assert.equal(crew.git(['show', 'main:greeting.txt']), 'hello\n-- the crew');
    const done = await reviewUntil(crew, (status) => crew.task(status, 'plan').status === 'done', { server, timeoutMs: 30_000 });
    assert.equal(crew.git(['show', 'main:PLAN.md']), epic.trimEnd());
    assert.equal(crew.task(done, first.parentId ?? '').status, 'done', 'the chain parent is done with its steps');
    const submits = (await crew.transitions()).filter((row) => row.entity_id === 'builder' && row.trigger === 'submit');
    assert.equal(submits.length, 2, 'both steps ran on the builder');
  } finally {
    await server.stop();
  }
});
