/**
 * Talking to a running agent, the pure parts: what Foreman writes to Claude Code's stdin (one JSON
 * line per message or interrupt), how the echoes and interrupts in its stream-json read as events,
 * and when the conversation keeps stdin open or closes it. The real CLI runs in
 * test/integration/realAgents/claudeTalk.test.ts.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import type { AgentEvent } from '../../../src/core/agentEvents';
import { AgentConversation } from '../../../src/infra/agents/agentConversation';
import { claudeParser } from '../../../src/infra/agents/kinds/claudeStream';
import { claudeInput } from '../../../src/infra/agents/kinds/claudeInput';

const line = (value: unknown) => JSON.stringify(value);

describe("Claude Code's stdin messages", () => {
  it('encodes a message as one user message line, whatever the text holds', () => {
    const text = 'line one\nline "two" — ünïcode \u2028 and a \\ backslash';
    const encoded = claudeInput.message(text);
    assert.ok(encoded.endsWith('\n'));
    assert.equal(encoded.indexOf('\n'), encoded.length - 1, 'exactly one line');
    assert.deepEqual(JSON.parse(encoded), { type: 'user', message: { role: 'user', content: text } });
  });

  it('encodes an interrupt as a control request with its id', () => {
    const encoded = claudeInput.interrupt('req-7');
    assert.equal(encoded.indexOf('\n'), encoded.length - 1);
    assert.deepEqual(JSON.parse(encoded), { type: 'control_request', request_id: 'req-7', request: { subtype: 'interrupt' } });
  });
});

describe("Claude Code's echoes and interrupts", () => {
  it('reads echoed messages after the prompt as told, and an interrupted turn in words', () => {
    const parser = claudeParser(false);
    const events = [
      line({ type: 'user', message: { role: 'user', content: 'The task prompt' }, isReplay: true }),
      line({ type: 'user', message: { role: 'user', content: 'Also do X' }, isReplay: true }),
      line({ type: 'control_response', response: { subtype: 'success', request_id: 'r1' } }),
      line({ type: 'user', message: { content: [{ type: 'tool_result', content: "The user doesn't want to proceed", is_error: true }] } }),
      line({ type: 'user', message: { content: [{ type: 'text', text: '[Request interrupted by user for tool use]' }] } }),
      line({ type: 'result', subtype: 'error_during_execution', is_error: true, total_cost_usd: 0 }),
      line({ type: 'result', subtype: 'error_during_execution', is_error: true, total_cost_usd: 0 }),
    ].flatMap((text) => parser.line(text));
    assert.deepEqual(events, [
      { type: 'told', text: 'Also do X' },
      { type: 'toolResult', ok: false, output: "The user doesn't want to proceed" },
      { type: 'interrupted' },
      { type: 'result', summary: 'interrupted by a person', isError: true },
      // A failed turn that no interrupt ended keeps its own words.
      { type: 'result', summary: 'error_during_execution', isError: true },
    ]);
  });
});

/** A conversation over an in-memory stdin, with what was written to it and whether it was closed. */
function conversation() {
  const stdin = new PassThrough();
  const written: unknown[] = [];
  let ended = false;
  stdin.on('data', (chunk: Buffer) =>
    chunk
      .toString()
      .split('\n')
      .filter(Boolean)
      .forEach((text) => written.push(JSON.parse(text))),
  );
  stdin.on('finish', () => (ended = true));
  const talk = new AgentConversation(stdin, claudeInput, 'the agent of ada', () => undefined);
  return { talk, written, ended: () => ended };
}
const at = 1;
const result: AgentEvent = { type: 'result', at, summary: 'done', isError: false };
const told = (text: string): AgentEvent => ({ type: 'told', at, text });
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('a conversation with a running agent', () => {
  it('sends the prompt first and closes stdin after the turn when nothing is on its way', async () => {
    const { talk, written, ended } = conversation();
    talk.start('Do the task.');
    talk.events([{ type: 'tool', at, name: 'Bash', detail: 'ls' }]);
    await settle();
    assert.equal(ended(), false, 'open while the turn runs');
    talk.events([result]);
    await settle();
    assert.deepEqual(written, [{ type: 'user', message: { role: 'user', content: 'Do the task.' } }]);
    assert.equal(ended(), true);
    const late = talk.tell('too late');
    assert.equal(late.ok, false);
    assert.equal(!late.ok && late.code, 'agentFinishing');
  });

  it('keeps stdin open past a turn while a message has not been taken in, and closes after the turn it starts', async () => {
    const { talk, ended } = conversation();
    talk.start('Do the task.');
    assert.deepEqual(talk.tell('Also X'), { ok: true, value: { waited: false } });
    talk.events([result]);
    await settle();
    assert.equal(ended(), false, 'the message starts the next turn');
    talk.events([told('Also X'), result]);
    await settle();
    assert.equal(ended(), true);
  });

  it('after an interrupt waits for a message, then goes on from it', async () => {
    const { talk, written, ended } = conversation();
    talk.start('Do the task.');
    assert.equal(talk.interrupt().ok, true);
    assert.equal(talk.waitingForMessage, false, 'not before the turn ended');
    talk.events([
      { type: 'interrupted', at },
      { type: 'result', at, summary: 'interrupted by a person', isError: true },
    ]);
    await settle();
    assert.equal(talk.waitingForMessage, true);
    assert.equal(ended(), false, 'stdin stays open for the message');
    const again = talk.interrupt();
    assert.equal(!again.ok && again.code, 'agentWaiting');
    assert.deepEqual(talk.tell('Do Y instead'), { ok: true, value: { waited: true } });
    assert.equal(talk.waitingForMessage, false);
    talk.events([told('Do Y instead'), result]);
    await settle();
    assert.equal(ended(), true);
    assert.deepEqual(
      written.map((message) => (message as { type: string }).type),
      ['user', 'control_request', 'user'],
    );
  });
});
