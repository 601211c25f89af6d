/**
 * One contract per command (issue 31): every command group runs through a real engine (real store,
 * real git repository) and each answer is parsed with its command's answer schema
 * (`src/core/requests/<group>.ts`), which is strict: a field the engine answers and the schema does
 * not name fails here, as does one the schema names and the engine leaves out.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type CommandInput, type CommandName, type ResultOf, answerSchemaOf, commandNames } from '../../../src/core/requests';
import { describeIssues } from '../../../src/core/zodIssues';
import { type EngineHarness, openEngine } from '../../support/engineHarness';

let h: EngineHarness;
before(async () => {
  h = await openEngine();
});
after(() => h.close());

const answered = new Set<CommandName>();

/** Runs one request, which must succeed, and parses its answer with its command's answer schema. */
async function checked<C extends CommandName>(command: C, args: CommandInput<C>): Promise<ResultOf<C>> {
  const result = await h.run(command, args);
  assert.ok(result.ok, `${command} was refused: ${result.ok ? '' : `${result.code}: ${result.message}`}`);
  const parsed = answerSchemaOf(command).safeParse(result.value);
  assert.ok(parsed.success, `${command}'s answer breaks its schema: ${parsed.success ? '' : describeIssues(parsed.error, 'answer')}`);
  answered.add(command);
  return result.value;
}

test('workers and tasks: each answer parses with its schema', async () => {
  await checked('worker.add', { id: 'w1' });
  await checked('worker.add', { id: 'w2' });
  await checked('task.add', { id: 't1', title: 'first', paths: ['src/a.ts'] });
  await checked('task.add', { id: 't2', title: 'second', manual: true });
  await checked('chain.add', { name: 'chained', steps: [{ title: 'one' }, { title: 'two', prompt: 'then' }] });
  const parent = await checked('task.add', { id: 'p1', title: 'a plan', manual: true });
  await checked('plan.start', { parent: parent.id });
  await checked('plan.add', { parent: parent.id, title: 'planned step' });
  await checked('plan.finalize', { parent: parent.id });
  await checked('assign', { worker: 'w1', task: 't1' });
  await checked('claim', { worker: 'w2' });
  await checked('worker.list', {});
  await checked('dispatch', {});
});

test('a worker through its agent reports, review and merge: each answer parses with its schema', async () => {
  await checked('start', { worker: 'w1' });
  await checked('heartbeat', { worker: 'w1', activity: 'Bash: npm test', touched: ['src/a.ts'] });
  await checked('usage', { worker: 'w1', kind: 'claude', sessionId: 'session-1', inputTokens: 10, run: true, confinement: 'sandbox' });
  await checked('stall', { worker: 'w1', attempt: 1, reason: 'no event for a while' });
  await checked('heartbeat', { worker: 'w1', needsInput: 'permission to run Bash: ls' });
  await checked('answer', { worker: 'w1', decision: 'allow', note: 'go ahead' });
  await checked('submit', { worker: 'w1', summary: 'did it' });
  await checked('request-changes', { worker: 'w1', note: 'one more thing' });
  await checked('submit', { worker: 'w1', summary: 'did it again' });
  await checked('approve', { worker: 'w1' });
  await checked('merge', { worker: 'w1' });
  await checked('start', { worker: 'w2' });
  await checked('fail', { worker: 'w2', reason: 'it broke', final: true });
  await checked('reset', { worker: 'w2' });
  const failed = (await checked('status', { worker: 'w2' })).tasks[0];
  assert.equal(failed?.status, 'failed', 'the task w2 failed for good is failed');
  await checked('retry', { task: failed.id });
  const again = await checked('assign', { worker: 'w2', task: failed.id });
  await checked('start', { worker: 'w2' });
  await checked('pause', { worker: 'w2', attempt: again.attempt, reason: 'usage limit', until: h.clock.now() + 60_000 });
  await checked('cancel', { target: 'w2' });
});

test('decisions about overlapping tasks: each answer parses with its schema', async () => {
  for (const [worker, task] of [
    ['w3', 'o1'],
    ['w4', 'o2'],
    ['w5', 'o3'],
  ] as const) {
    await checked('worker.add', { id: worker });
    await checked('task.add', { id: task, title: `Overlapping ${task}`, manual: true });
    await checked('assign', { worker, task });
    await checked('start', { worker });
    await checked('heartbeat', { worker, attempt: 1, touched: ['src/shared.ts'] });
  }
  await checked('overlap.ignore', { task: 'o1', other: 'o3' });
  await checked('overlap.rebase-when-merged', { task: 'o2', other: 'o1' });
  await checked('overlap.run-after', { task: 'o3', other: 'o2' });
});

test('messages, reads and retention: each answer parses with its schema', async () => {
  const sent = await checked('send', { from: 'w1', to: 'w2', type: 'note', payload: { text: 'hello' } });
  await checked('poll', { agent: 'w2' });
  await checked('ack', { agent: 'w2', seq: sent.seq });
  await checked('compact', {});
  await checked('status', {});
  await checked('status', { limit: 2 });
  await checked('transitions', { limit: 1000 });
  await checked('metrics', {});
  await checked('export', {});
  await checked('archive', { olderThanMs: 0 });
  await checked('archive.state', {});
});

test('every command group was answered', () => {
  // `tell` and `interrupt` reach a running agent (the harness launches none: crew tests cover them);
  // `send-failure` and `send-review` need a forge (test/integration/crew/pullRequests.test.ts).
  const elsewhere = new Set<CommandName>(['tell', 'interrupt', 'send-failure', 'send-review']);
  assert.deepEqual(
    commandNames.filter((command) => !answered.has(command) && !elsewhere.has(command)),
    [],
  );
});
