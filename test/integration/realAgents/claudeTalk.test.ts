/**
 * Talking to a running Claude Code, the real CLI, through Foreman: `foreman tell` reaches the
 * agent mid-run (the model's next request carries the words) and the run still ends in review;
 * `foreman interrupt` ends the turn without losing the session, the worker waits for a message
 * (WORKING, neither failed nor STALE), and a message then goes on in the same session. The session
 * id is in `status --json`. The model is a scripted server.
 */
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { conversations, eventsOf, makeRealCrew } from './realCrew';

interface TalkWorker {
  readonly id: string;
  readonly state: string;
  readonly liveness: string;
  readonly attempt: number;
  readonly summary: string | null;
  readonly lastHeartbeatMs: number | null;
  readonly activity: { text: string } | null;
  readonly sessionId?: string;
  readonly sessionKind?: string;
}
const ada = (status: unknown): TalkWorker => (status as { workers: TalkWorker[] }).workers.find((worker) => worker.id === 'ada')!;

test(
  'a message sent mid-run reaches the Claude session, the run still ends in review, status has the session id',
  { timeout: 120_000 },
  async () => {
    const { crew, model } = await makeRealCrew('claude');
    // The tool call waits for a file the test writes once `tell` is acknowledged, so the message is
    // always sent while the turn runs, however slow the machine.
    const toolCall = 'until [ -f go ]; do sleep 0.1; done; rm go; echo one > one.txt';
    model.play([{ bash: toolCall }, { text: 'Wrote one.txt; noted your message.' }]);
    await crew.addTask('talk', 'Talk', 'Write one.txt.');
    const server = await crew.serve();
    try {
      const refused = await crew.foreman(['tell', 'ada', 'too early']);
      assert.notEqual(refused.code, 0, 'an IDLE or ASSIGNED worker has no agent to talk to');
      const running = await crew.waitFor(
        'the tool call runs',
        (status) => ada(status).activity?.text === `Bash: ${toolCall}`,
        60_000,
        server,
      );
      assert.equal(ada(running).sessionKind, 'claude');
      const session = eventsOf(crew.root, 'talk', 1).find((event) => event['type'] === 'session');
      assert.ok(session, 'the session event was read');
      assert.equal(ada(running).sessionId, session['sessionId'], 'status --json names the session the agent reported');

      const text = 'Please also mention the weather in your summary.';
      const told = await crew.ok(['tell', 'ada', text]);
      assert.match(told, /^told ada \(talk attempt 1\)/);
      writeFileSync(join(crew.worktreeOf('ada'), 'go'), '');

      const review = await crew.waitForWorker('ada', 'IN_REVIEW', server, 60_000);
      assert.equal(ada(review).attempt, 1);
      const later = conversations(model).slice(1);
      assert.ok(
        later.some((request) => request.includes(text)),
        `a later request carried the message: ${later.join('\n').slice(0, 2000)}`,
      );
      const events = eventsOf(crew.root, 'talk', 1);
      assert.deepEqual(
        events.filter((event) => event['type'] === 'told').map((event) => event['text']),
        [text],
        'the message is in the transcript once, as the agent took it in',
      );
      assert.equal(crew.git(['show', 'ada/talk:one.txt']), 'one');

      const afterwards = await crew.foreman(['tell', 'ada', 'too late']);
      assert.notEqual(afterwards.code, 0);
      assert.match(afterwards.stdout + afterwards.stderr, /only a WORKING worker's agent takes messages/);
    } finally {
      await server.stop();
    }
  },
);

test(
  'interrupt ends the turn and keeps the session: the worker waits, not failed nor STALE, and a message goes on',
  { timeout: 120_000 },
  async () => {
    const { crew, model } = await makeRealCrew('claude', { settings: { agentSilenceMs: 5000 } });
    model.play([{ bash: 'sleep 30 && echo late > late.txt' }]);
    await crew.addTask('halt', 'Halt', 'Write late.txt.');
    const server = await crew.serve();
    try {
      await crew.waitFor(
        'the long tool call runs',
        (status) => ada(status).activity?.text === 'Bash: sleep 30 && echo late > late.txt',
        60_000,
        server,
      );
      assert.match(await crew.ok(['interrupt', 'ada']), /^interrupted ada \(halt attempt 1\); it waits for your message/);
      const waiting = await crew.waitFor(
        'ada waits for a message',
        (status) => /^interrupted: waiting for your message/.test(ada(status).activity?.text ?? ''),
        30_000,
        server,
      );
      const interruptedAt = ada(waiting).lastHeartbeatMs ?? 0;
      // A heartbeat past the silence bound, with the worker still WORKING: quiet on purpose is not a stall.
      const quiet = await crew.waitFor(
        'a beat past the silence bound',
        (status) => (ada(status).lastHeartbeatMs ?? 0) > interruptedAt + 5500,
        30_000,
        server,
      );
      assert.equal(ada(quiet).state, 'WORKING');
      assert.equal(ada(quiet).attempt, 1);
      const events = eventsOf(crew.root, 'halt', 1);
      assert.ok(events.some((event) => event['type'] === 'interrupted'));
      assert.ok(events.some((event) => event['type'] === 'result' && event['summary'] === 'interrupted by a person'));

      model.play([{ write: { path: 'after.txt', content: 'after' } }, { text: 'Wrote after.txt instead, as you asked.' }]);
      const before = conversations(model).length;
      const text = 'Skip late.txt; write after.txt instead.';
      assert.match(await crew.ok(['tell', 'ada', text]), /goes on from its interrupt/);
      const review = await crew.waitForWorker('ada', 'IN_REVIEW', server, 60_000);
      assert.equal(ada(review).summary, 'Wrote after.txt instead, as you asked.');
      assert.equal(ada(review).attempt, 1, 'the interrupt spent no attempt');
      const resumed = conversations(model).slice(before);
      assert.ok(
        resumed[0]?.includes(text) && resumed[0].includes('sleep 30'),
        'the message went on in the same session, its earlier turns included',
      );
      assert.equal(crew.git(['show', 'ada/halt:after.txt']), 'after');
      assert.ok(!existsSync(join(crew.worktreeOf('ada'), 'late.txt')), 'the interrupted command was stopped');
    } finally {
      await server.stop();
    }
  },
);
