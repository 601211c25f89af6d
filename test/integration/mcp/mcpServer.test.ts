/**
 * `foreman mcp` driven by the MCP SDK's own Client over its StdioClientTransport: the real built CLI
 * (dist/cli.js) in a real git repository with Foreman initialised on real sql.js. Without an owner
 * each call opens the workspace as a CLI call does; with `foreman serve` running, calls go to its
 * endpoint, and a chain queued through MCP is run by the crew's demo agents to review.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, TextResourceContents } from '@modelcontextprotocol/sdk/types.js';
import { type CrewRepo, type Status, cliPath, makeCrew, reviewUntil } from '../crew/crewHarness';

const clients: Client[] = [];
after(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
});

/** An MCP client of `foreman mcp` run in the crew's repository, as Claude Code or VS Code would start it. */
async function connect(crew: CrewRepo): Promise<{ client: Client; stderr: () => string }> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined && !entry[0].startsWith('FOREMAN_')),
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliPath, 'mcp'],
    cwd: crew.root,
    env: { ...env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'foreman-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return { client, stderr: () => stderr };
}

/** The text of a tool's answer. */
function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  const content = (result as CallToolResult).content;
  return content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const result = await client.callTool({ name, arguments: args });
  return { text: textOf(result), isError: result.isError === true };
}

/** A successful call's JSON answer. */
async function callOk<T>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const { text, isError } = await call(client, name, args);
  assert.equal(isError, false, `${name} was refused: ${text}`);
  return JSON.parse(text) as T;
}

const twoSteps = [
  '# Greeting',
  '',
  '- [ ] Write the greeting',
  '  write greeting.txt hello',
  '- [ ] Sign the greeting',
  '  append greeting.txt -- the crew',
  '',
].join('\n');

describe('foreman mcp', () => {
  test('the SDK is inside the CLI bundle: the .vsix ships no node_modules for it', () => {
    const bundle = readFileSync(join(dirname(cliPath), 'cli-local.js'), 'utf8');
    const packages = [...bundle.matchAll(/\brequire\("(@modelcontextprotocol\/[^"]+|ajv[^"]*|zod[^"]*)"\)/g)].map((match) => match[1]);
    // ajv's generated code names its runtime in strings (`'require("ajv/dist/runtime/equal")'`), which are not loads.
    const loads = packages.filter((name) => !bundle.includes(`'require("${name}")`) && !bundle.includes(`\`require("${name}")`));
    assert.deepEqual(loads, []);
  });

  test('lists the board tools, each with the engine schema as its input', async () => {
    const crew = await makeCrew();
    const { client } = await connect(crew);
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    for (const name of [
      'status',
      'task_add',
      'chain_add',
      'chain_add_markdown',
      'plan_start',
      'plan_add',
      'plan_finalize',
      'assign',
      'history',
      'answer',
    ]) {
      assert.ok(names.includes(name), `no tool ${name} in ${names.join(', ')}`);
    }
    const taskAdd = tools.find((tool) => tool.name === 'task_add');
    assert.deepEqual(taskAdd?.inputSchema.required, ['title']);
    const properties = taskAdd?.inputSchema.properties as Record<string, { pattern?: string }>;
    assert.equal(properties['id']?.pattern, '^[a-z0-9][a-z0-9-]{0,62}$', "the id's rule is the engine's");
    assert.ok(properties['requestId'], 'a state-changing tool takes an idempotency key');
    const status = tools.find((tool) => tool.name === 'status');
    assert.equal((status?.inputSchema.properties as Record<string, unknown>)['requestId'], undefined);
    assert.equal(status?.annotations?.readOnlyHint, true);
  });

  test('status, task_add, a markdown chain and refusals in the engine words, with no owner running', async () => {
    const crew = await makeCrew({ workers: ['w1'] });
    const { client } = await connect(crew);

    const empty = await callOk<Status>(client, 'status', { limit: 10 });
    assert.deepEqual(
      empty.workers.map((worker) => worker.id),
      ['w1'],
    );
    assert.equal(empty.tasks.length, 0);

    const added = await callOk<{ id: string; status: string }>(client, 'task_add', { title: 'Add a README', id: 'readme', manual: true });
    assert.equal(added.id, 'readme');
    // The same request id applies once and answers as the first did.
    await callOk(client, 'task_add', { title: 'Only once', id: 'once', manual: true, requestId: 'mcp-once-1' });
    const again = await callOk<{ id: string }>(client, 'task_add', {
      title: 'Only once',
      id: 'once',
      manual: true,
      requestId: 'mcp-once-1',
    });
    assert.equal(again.id, 'once');

    const chain = await callOk<{ parent: { id: string; title: string }; children: { id: string; title: string }[] }>(
      client,
      'chain_add_markdown',
      { markdown: twoSteps },
    );
    assert.equal(chain.parent.title, 'Greeting');
    assert.deepEqual(
      chain.children.map((child) => child.title),
      ['Write the greeting', 'Sign the greeting'],
    );

    const status = await crew.status();
    const [first, second] = chain.children.map((child) => status.tasks.find((task) => task.id === child.id));
    assert.equal(first?.status, 'queued');
    assert.equal(second?.blockedBy, first?.id, 'the second step waits for the first');

    // A bad id: the request contract's own words, as a tool result that failed.
    const badId = await call(client, 'task_add', { title: 'x', id: 'Not An Id!' });
    assert.equal(badId.isError, true);
    assert.match(badId.text, /^task\.add: id: a task id is /);
    const cli = await crew.foreman(['task', 'add', 'x', '--id', 'Not An Id!']);
    assert.ok(cli.stdout.concat(cli.stderr).includes(badId.text), `the CLI says the same: ${cli.stderr}`);

    // A refusal by the engine: a task that does not exist.
    const unknown = await call(client, 'assign', { worker: 'w1', task: 'no-such-task' });
    assert.equal(unknown.isError, true);
    assert.match(unknown.text, /no-such-task/);

    const firstId = chain.children[0]?.id ?? '';
    const history = await callOk<{ entity_id: string }[]>(client, 'history', { entity: firstId });
    assert.ok(history.length > 0 && history.every((event) => event.entity_id === firstId), JSON.stringify(history));

    const board = await client.readResource({ uri: 'foreman://board' });
    const boardText = (board.contents[0] as TextResourceContents).text;
    assert.ok((JSON.parse(boardText) as Status).tasks.some((task) => task.id === 'readme'));
  });

  test('through a running owner: a chain queued over MCP runs to review, and its transcript reads back', async () => {
    const crew = await makeCrew({ workers: ['w1'] });
    const server = await crew.serve();
    try {
      const { client } = await connect(crew);
      const chain = await callOk<{ children: { id: string }[] }>(client, 'chain_add_markdown', { markdown: twoSteps, name: 'greet' });
      const ids = chain.children.map((child) => child.id);
      const done = (status: Status): boolean => ids.every((id) => status.tasks.find((task) => task.id === id)?.status === 'done');
      await reviewUntil(crew, done, { server });
      assert.equal(crew.git(['show', 'main:greeting.txt']), 'hello\n-- the crew');

      const { resources } = await client.listResources();
      assert.ok(resources.some((resource) => resource.uri === `foreman://tasks/${ids[0]}/transcript`));
      const transcript = await client.readResource({ uri: `foreman://tasks/${ids[0]}/transcript` });
      assert.match((transcript.contents[0] as TextResourceContents).text, new RegExp(`^# ${ids[0]} · Write the greeting · attempt 1`));
    } finally {
      await server.stop();
    }
  });
});
