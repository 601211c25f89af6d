/**
 * Per-connection limits of the owner's endpoint (issue 10, item 9), against a real EndpointServer
 * on a real socket with a stand-in executor: a client that pipelines without reading gets only a
 * bounded number of requests run until it reads; a half-sent line is closed after the idle timeout
 * (short here); a request that runs longer than that timeout is still answered.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { after, test } from 'node:test';
import { ok } from '../../../src/core/result';
import { EndpointServer, type Executor, readAnnouncement } from '../../../src/infra/endpoint';

const sandbox = mkdtempSync(join(tmpdir(), 'foreman-endpoint-'));
after(() => rmSync(sandbox, { recursive: true, force: true }));
let counter = 0;

async function serveWith(execute: Executor, limits: { maxInFlight?: number; idleTimeoutMs?: number }) {
  const dir = join(sandbox, `owner-${++counter}`);
  mkdirSync(dir, { mode: 0o700 });
  const logged: string[] = [];
  const endpoint = await EndpointServer.start(dir, execute, { limits, log: (line) => logged.push(line) });
  const { token } = readAnnouncement(dir)!;
  return { endpoint, token, logged };
}

function connect(socketPath: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath, () => resolve(socket));
    socket.once('error', reject);
  });
}

function closed(socket: net.Socket): Promise<void> {
  return new Promise((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));
}

const statusLine = (token: string): string => `${JSON.stringify({ token, request: { command: 'status', args: {}, actor: 'cli' } })}\n`;

test(
  'a client that pipelines without reading gets a bounded number of requests run, then all answers in order once it reads',
  { timeout: 60_000 },
  async (t) => {
    let executed = 0;
    // Large answers fill the socket's buffers quickly, as a long listing would.
    const { endpoint, token } = await serveWith(() => ok({ n: ++executed, padding: 'x'.repeat(100_000) }), { maxInFlight: 4 });
    const client = await connect(endpoint.socketPath);
    try {
      const requests = 300;
      client.write(statusLine(token).repeat(requests));
      await delay(1_000);
      // Kernel buffers hold a few answers; the owner holds at most maxInFlight more. Never all 300.
      const whileNotReading = executed;
      t.diagnostic(`requests run while the client read nothing: ${whileNotReading}`);
      assert.ok(whileNotReading < 60, `${whileNotReading} requests ran for a client that reads nothing`);

      const chunks: Buffer[] = [];
      let answers = 0;
      await new Promise<void>((resolve, reject) => {
        client.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          for (let at = chunk.indexOf(0x0a); at >= 0; at = chunk.indexOf(0x0a, at + 1)) answers++;
          if (answers >= requests) resolve();
        });
        client.once('close', () => reject(new Error(`closed after ${answers} answers`)));
      });
      const numbers = Buffer.concat(chunks)
        .toString('utf8')
        .trimEnd()
        .split('\n')
        .map((line) => (JSON.parse(line) as { result: { value: { n: number } } }).result.value.n);
      assert.deepEqual(
        numbers,
        Array.from({ length: requests }, (_, index) => index + 1),
      );
    } finally {
      client.destroy();
      await endpoint.close();
    }
  },
);

test('a half-sent request line is closed after the idle timeout; a complete one is answered', { timeout: 30_000 }, async () => {
  const { endpoint, token, logged } = await serveWith(() => ok('fine'), { idleTimeoutMs: 300 });
  try {
    const halfSent = await connect(endpoint.socketPath);
    const started = Date.now();
    halfSent.write(statusLine(token).slice(0, 20));
    await closed(halfSent);
    const took = Date.now() - started;
    assert.ok(took >= 250 && took < 5_000, `closed after ${took} ms`);
    assert.ok(
      logged.some((line) => /idle for 300 ms with a half-sent request/.test(line)),
      logged.join('\n'),
    );

    // Silence, then the rest of a line in pieces slower than nothing but faster than the timeout: kept.
    const slow = await connect(endpoint.socketPath);
    const line = statusLine(token);
    for (let at = 0; at < line.length; at += 40) {
      slow.write(line.slice(at, at + 40));
      await delay(100);
    }
    const answer = await new Promise<string>((resolve) => slow.once('data', (chunk) => resolve(String(chunk))));
    assert.match(answer, /"value":"fine"/);
    slow.destroy();
  } finally {
    await endpoint.close();
  }
});

test('a request that runs longer than the idle timeout is answered, not cut off', { timeout: 30_000 }, async () => {
  const { endpoint, token } = await serveWith(
    async () => {
      await delay(1_000);
      return ok('slow but sure');
    },
    { idleTimeoutMs: 200 },
  );
  try {
    const client = await connect(endpoint.socketPath);
    client.write(statusLine(token));
    const answer = await new Promise<string>((resolve, reject) => {
      client.once('data', (chunk) => resolve(String(chunk)));
      client.once('close', () => reject(new Error('closed before the answer')));
    });
    assert.match(answer, /slow but sure/);
    client.destroy();
  } finally {
    await endpoint.close();
  }
});
