/**
 * `status --all` through the owner's endpoint is read in pages (issue 34): the requests taken
 * while it is read run between its pages, and the answer is the same text as one read gives.
 * A real engine on a real store, a real EndpointServer on a real socket.
 */
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parseCommand, type CommandInput, type CommandName } from '../../../src/core/requests';
import { ok } from '../../../src/core/result';
import { statusPageTasks } from '../../../src/engine/statusPages';
import { SerializedValue } from '../../../src/engine/serializedValue';
import { EndpointServer, type Executor, readAnnouncement } from '../../../src/infra/endpoint';
import { type EngineHarness, openEngine } from '../../support/engineHarness';
import { pollUntil } from '../../support/pollUntil';

/** Two and a half pages, one task in four done. */
const taskCount = Math.floor(statusPageTasks * 2.5);
let h: EngineHarness;

before(async () => {
  h = await openEngine();
  await h.value('worker.add', { id: 'w1' });
  const rowsPerInsert = 250;
  for (let start = 0; start < taskCount; start += rowsPerInsert) {
    const rows: string[] = [];
    const params: Array<string | number> = [];
    for (let i = start; i < Math.min(taskCount, start + rowsPerInsert); i++) {
      rows.push('(?, ?, ?, ?, ?, ?)');
      // Every tenth pair shares a sort_order: the pages break ties as the one read does.
      params.push(
        `task-${String(i).padStart(5, '0')}`,
        `Task ${i}`,
        `Do step ${i}.`,
        i % 4 === 3 ? 'done' : 'queued',
        i - (i % 10 === 1 ? 1 : 0),
        1_000 + i,
      );
    }
    const inserted = h.store.write((tx) =>
      ok(tx.run(`INSERT INTO tasks (id, title, prompt, status, sort_order, created_at) VALUES ${rows.join(', ')}`, params)),
    );
    assert.ok(inserted.ok);
  }
  await h.value('claim', { worker: 'w1' });
});
after(() => h.close());

function request<C extends CommandName>(command: C, args: CommandInput<C>) {
  const parsed = parseCommand(command, args, {});
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.request;
}

test('status without a limit, read in pages, is the same JSON as one read, filtered or not', async () => {
  for (const args of [{}, { statuses: ['queued'] }, { worker: 'w1' }] as Array<CommandInput<'status'>>) {
    let turns = 0;
    const paged = await h.engine.execute(request('status', args), {
      saving: 'later',
      between: () => Promise.resolve(void turns++),
    });
    assert.ok(paged.ok && paged.value instanceof SerializedValue, 'a paged read answers with its JSON text');
    const whole = h.query('status', args);
    assert.equal(paged.value.json, JSON.stringify(whole));
    if (Object.keys(args).length === 0) {
      assert.equal(whole.tasks.length, taskCount);
      assert.equal(turns, Math.floor(taskCount / statusPageTasks), 'it gave way between its pages');
    }
  }
  // A bounded page is answered in one read, as before.
  const limited = await h.engine.execute(request('status', { limit: 5 }), {
    saving: 'later',
    between: () => Promise.reject(new Error('gave way')),
  });
  assert.ok(limited.ok && !(limited.value instanceof SerializedValue));
});

type Line = { ok: boolean; result: { ok: boolean; value?: unknown } };

/** Sends each request line on `socket` and collects the answer lines in the order they arrive. */
function answersOn(socket: net.Socket, count: number): Promise<Line[]> {
  return new Promise((resolve, reject) => {
    let text = '';
    const lines: Line[] = [];
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n')) {
        lines.push(JSON.parse(text.slice(0, end)) as Line);
        text = text.slice(end + 1);
      }
      if (lines.length === count) resolve(lines);
    });
    socket.on('error', reject);
  });
}

function connect(socketPath: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath, () => resolve(socket));
    socket.once('error', reject);
  });
}

const lineOf = (token: string, command: string, args: object): string =>
  `${JSON.stringify({ token, request: { command, args, actor: 'cli' } })}\n`;

test('a request sent while status --all is read is answered between its pages, on its own connection and pipelined', async () => {
  const events: string[] = [];
  let onFirstPage: (() => Promise<void>) | undefined;
  const execute: Executor = async (req, turns) => {
    if (req.command !== 'status') events.push(`${req.command} ran`);
    let page = 0;
    const answer = await h.engine.execute(req, {
      saving: 'later',
      between: async () => {
        events.push(`status page ${++page}`);
        if (page === 1 && onFirstPage) await onFirstPage();
        await turns.next();
      },
    });
    if (req.command === 'status') events.push('status read');
    return answer;
  };
  const dir = join(h.dir, '.foreman');
  const endpoint = await EndpointServer.start(dir, execute);
  const { token } = readAnnouncement(dir)!;
  const expected = JSON.stringify(h.query('status', {}));
  try {
    // Another client's heartbeat, sent once the listing has read its first page.
    const big = await connect(endpoint.socketPath);
    const small = await connect(endpoint.socketPath);
    onFirstPage = async () => {
      small.write(lineOf(token, 'heartbeat', { worker: 'w1' }));
      await pollUntil(() => endpoint.queued > 0, { what: 'the heartbeat to wait for its turn', intervalMs: 0 });
    };
    const order: string[] = [];
    const bigAnswer = answersOn(big, 1).then((lines) => (order.push('status answered'), lines));
    const smallAnswer = answersOn(small, 1).then((lines) => (order.push('heartbeat answered'), lines));
    big.write(lineOf(token, 'status', {}));
    const [[listing], [beat]] = await Promise.all([bigAnswer, smallAnswer]);
    assert.ok(beat?.ok);
    assert.deepEqual(events.slice(0, 3), ['status page 1', 'heartbeat ran', 'status page 2'], 'the heartbeat ran between pages');
    assert.deepEqual(order, ['heartbeat answered', 'status answered']);
    assert.ok(listing?.ok);
    assert.equal(JSON.stringify(listing.result.value), expected, 'the same listing as one read');
    big.destroy();
    small.destroy();

    // Pipelined on one connection: the metrics run between the pages, the answers keep request order.
    events.length = 0;
    onFirstPage = () =>
      pollUntil(() => endpoint.queued > 0, { what: 'the metrics to wait for its turn', intervalMs: 0 }).then(() => undefined);
    const both = await connect(endpoint.socketPath);
    const answers = answersOn(both, 2);
    both.write(lineOf(token, 'status', {}) + lineOf(token, 'metrics', {}));
    const [first, second] = await answers;
    assert.equal(events.indexOf('metrics ran'), 1, `metrics ran after the first page: ${events.join(', ')}`);
    assert.ok(events.indexOf('status read') > 1);
    assert.ok(Array.isArray((first?.result.value as { tasks?: unknown[] }).tasks), 'the listing is answered first');
    assert.ok(second?.ok && !('tasks' in (second.result.value as object)));
    both.destroy();
  } finally {
    await endpoint.close();
  }
});
