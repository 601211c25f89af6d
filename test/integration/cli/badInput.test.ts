/**
 * Bad input is refused with exit 2 and a message naming the field and the rule, and nothing is
 * written: with and without an owner, and at the endpoint itself (wrong token, oversized line).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as net from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readAnnouncement, sendToEndpoint } from '../../../src/infra/endpoint';
import { type Server, foreman, foremanJson, makeRepo, startServe, tempFolder } from './harness';

const cases: Array<{ args: string[]; message: RegExp }> = [
  { args: ['worker', 'add', '../x'], message: /id: a worker id is lowercase letters/ },
  { args: ['worker', 'add', '$(rm)'], message: /id: a worker id is/ },
  { args: ['worker', 'add', 'a'.repeat(200)], message: /id: a worker id is .*at most 63 characters/ },
  { args: ['worker', 'add', ''], message: /id: a worker id is/ },
  { args: ['task', 'add', 'Fine title', '--id', '../x'], message: /id: a task id is/ },
  { args: ['task', 'add', '   '], message: /title: a title must not be empty/ },
  { args: ['assign', 'w1', '$(rm -rf /)'], message: /task: a task id is/ },
  { args: ['frobnicate'], message: /unknown command 'frobnicate'; run `foreman help`/ },
  { args: ['worker', 'frob'], message: /'worker frob' is not a command; did you mean `foreman worker add`.*foreman help/ },
  { args: ['status', '--bogus'], message: /--bogus: unknown option.*foreman help/ },
  { args: ['status', 'extra'], message: /unexpected argument 'extra'/ },
  { args: ['worker', 'add', 'w2', '--max-attempts', 'abc'], message: /max-attempts: expected an integer/ },
  { args: ['worker', 'add', 'w2', '--max-attempts', '99'], message: /maxAttempts: max attempts is between 1 and 20/ },
  { args: ['heartbeat', 'w1', '--progress', '2'], message: /progress: progress is between 0 and 1/ },
  { args: ['request-changes', 'w1'], message: /note: missing; pass --note/ },
  { args: ['send', '--from', 'w1', '--type', 'note', '--payload', '{bad'], message: /payload: not valid JSON/ },
  {
    args: ['send', '--from', 'w1', '--type', 'note', '--payload-file', 'big.json'],
    message: /payload: \d+ bytes is over the limit of 1048576/,
  },
  { args: ['send', '--from', '../w1', '--type', 'note'], message: /from: an agent id is/ },
  { args: ['chain', 'add', '--from', 'bad.json'], message: /from: bad\.json: tasks\.1\.title: a title must not be empty/ },
  { args: ['task', 'add', 'Fine', '--request-id', 'not ok!'], message: /requestId: a request id is/ },
];

/** What must not change: every state, the audit log, the bus. Times and liveness are left out. */
async function snapshot(repo: string): Promise<unknown> {
  const status = await foremanJson<{ workers: Array<Record<string, unknown>>; tasks: unknown[] }>(repo, ['status']);
  const transitions = await foremanJson<unknown[]>(repo, ['transitions', '--limit', '100000']);
  const poll = await foremanJson<{ messages: unknown[] }>(repo, ['poll', 'observer', '--limit', '1000']);
  return {
    workers: status.workers.map(({ id, state, taskId, attempt }) => ({ id, state, taskId, attempt })),
    tasks: status.tasks,
    transitions: transitions.length,
    messages: poll.messages.length,
  };
}

async function prepare(repo: string): Promise<void> {
  for (const args of [['init'], ['worker', 'add', 'w1'], ['task', 'add', 'Existing', '--id', 'existing']]) {
    const run = await foreman(repo, args);
    assert.equal(run.code, 0, run.stderr);
  }
  writeFileSync(join(repo, 'big.json'), JSON.stringify({ blob: 'x'.repeat(1024 * 1024 + 10) }));
  writeFileSync(join(repo, 'bad.json'), JSON.stringify({ tasks: [{ title: 'ok' }, { title: '' }] }));
}

async function expectRefusals(repo: string): Promise<void> {
  const before = await snapshot(repo);
  for (const { args, message } of cases) {
    const run = await foreman(repo, args);
    assert.equal(run.code, 2, `foreman ${args.join(' ')}: exit ${run.code}: ${run.stdout}${run.stderr}`);
    assert.match(run.stderr, message, `foreman ${args.join(' ')}`);
    assert.match(run.stderr, /^foreman: /);
  }
  const json = await foreman(repo, ['worker', 'add', '../x', '--json']);
  assert.equal(json.code, 2);
  const error = (JSON.parse(json.stdout) as { error: { kind: string; code: string; message: string } }).error;
  assert.equal(error.kind, 'invalid');
  assert.match(error.message, /id: a worker id is/);
  assert.deepEqual(await snapshot(repo), before);
}

describe('foreman CLI: bad input', { timeout: 120_000 }, () => {
  it('is refused with exit 2 and changes nothing, without an owner', async () => {
    const repo = makeRepo();
    const uninitialised = await foreman(repo, ['status']);
    assert.equal(uninitialised.code, 2);
    assert.match(uninitialised.stderr, /No Foreman here .*run `foreman init`/);
    const notARepository = await foreman(tempFolder(), ['init']);
    assert.equal(notARepository.code, 2);
    assert.match(notARepository.stderr, /not a git repository/);
    await prepare(repo);
    await expectRefusals(repo);
    // A bad settings file stops every engine command with the field and the rule, until it is fixed.
    writeFileSync(join(repo, '.foreman', 'settings.json'), JSON.stringify({ staleMs: 'soon' }));
    const badSettings = await foreman(repo, ['status']);
    assert.equal(badSettings.code, 2);
    assert.match(badSettings.stderr, /settings\.json: staleMs: /);
    writeFileSync(join(repo, '.foreman', 'settings.json'), JSON.stringify({ staleMs: 200_000 }));
    assert.equal((await foreman(repo, ['status'])).code, 0);
  });

  it('is refused with exit 2 and changes nothing, through foreman serve and at its endpoint', async () => {
    const repo = makeRepo();
    await prepare(repo);
    let server: Server | undefined;
    try {
      server = await startServe(repo);
      await expectRefusals(repo);
      const before = await snapshot(repo);
      const announced = readAnnouncement(join(repo, '.foreman'))!;
      assert.equal(announced.info.pid, server.pid);
      const request = { command: 'worker.add', args: { id: 'intruder' }, actor: 'cli' };
      for (const token of ['0'.repeat(64), '', announced.token.slice(1)]) {
        const sent = await sendToEndpoint({ socketPath: announced.info.socketPath, token }, request, { timeoutMs: 10_000 });
        assert.equal(sent.kind, 'response');
        assert.ok(sent.kind === 'response');
        assert.equal(sent.response.exitCode, 2);
        assert.ok(!sent.response.result.ok && sent.response.result.message === 'bad endpoint token');
      }
      const unknown = await sendToEndpoint(
        { socketPath: announced.info.socketPath, token: announced.token },
        { command: 'drop.tables', args: {} },
        { timeoutMs: 10_000 },
      );
      assert.ok(unknown.kind === 'response' && unknown.response.exitCode === 2 && !unknown.response.result.ok);
      assert.match(unknown.response.result.ok ? '' : unknown.response.result.message, /command: unknown command/);
      assert.match(
        await rawExchange(announced.info.socketPath, `{"token":"${announced.token}","request":"${'x'.repeat(1024 * 1024 + 1)}"}\n`),
        /"code":"lineTooLong"/,
      );
      assert.match(await rawExchange(announced.info.socketPath, 'not json\n'), /"code":"badLine"/);
      assert.deepEqual(await snapshot(repo), before);
    } finally {
      assert.equal(await server?.stop(), 0);
    }
  });
});

/** Writes raw bytes to the socket and returns everything it answers before closing. */
function rawExchange(socketPath: string, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath, () => socket.write(text));
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      answer += chunk;
      if (answer.endsWith('\n')) socket.end();
    });
    socket.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EPIPE' || error.code === 'ECONNRESET' ? resolve(answer) : reject(error),
    );
    socket.on('close', () => resolve(answer));
  });
}
