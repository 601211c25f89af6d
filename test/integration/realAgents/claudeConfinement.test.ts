/**
 * A Claude Code worker is confined by default (issue 27): the real CLI against a scripted model,
 * with Claude Code's own sandbox (bubblewrap here) or, where a profile asks for it, the allow-list
 * without bare Bash; the gate takes the tools that only read or plan from the CLI's init event,
 * reads the user's own rules, and matches compound commands part by part.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import type { Status } from '../crew/crewHarness';
import { eventsOf, makeRealCrew } from './realCrew';

interface GateWorker {
  readonly state: string;
  readonly needsInput: { message: string } | null;
}
const ada = (status: Status): GateWorker => (status as unknown as { workers: GateWorker[] }).workers[0] as GateWorker;

test(
  'by default: rm -rf outside the worktree and a write into the main checkout are blocked, TaskCreate runs without asking',
  { timeout: 90_000 },
  async () => {
    const { crew, model } = await makeRealCrew('claude');
    const outside = join(dirname(crew.root), `outside-${Date.now()}`);
    mkdirSync(outside);
    writeFileSync(join(outside, 'keep.txt'), 'keep');
    const intruder = join(crew.root, 'intruder.txt');
    model.play([
      { tool: { name: 'TaskCreate', input: { subject: 'Check the tests', description: 'Run the tests and read the output' } } },
      { bash: `rm -rf ${outside}` },
      { write: { path: intruder, content: 'written from a worktree' } },
      { bash: `echo intruder > ${intruder}` },
      { bash: 'echo inside > inside.txt' },
      { text: 'Tried everything.' },
    ]);
    await crew.addTask('confined', 'Stay inside', 'Try to leave the worktree.');
    const server = await crew.serve();
    try {
      let askedForInput = false;
      await crew.waitFor(
        'ada in review',
        (status) => {
          askedForInput ||= ada(status).needsInput !== null;
          return ada(status).state === 'IN_REVIEW';
        },
        60_000,
        server,
      );
      assert.equal(askedForInput, false, 'nothing waited for a person: TaskCreate only plans, the rest was confined or refused');
      assert.ok(existsSync(join(outside, 'keep.txt')), 'the folder outside the worktree survived rm -rf');
      assert.ok(!existsSync(intruder), 'nothing was written into the main checkout');
      assert.equal(crew.git(['show', 'ada/confined:inside.txt']), 'inside', 'commands inside the worktree ran');
      const settings = JSON.parse(readFileSync(join(crew.root, '.foreman', 'logs', 'confined', 'attempt-1.claude-settings.json'), 'utf8')) as {
        sandbox?: { enabled: boolean; allowUnsandboxedCommands: boolean };
        permissions: { allow: string[] };
      };
      assert.deepEqual({ enabled: settings.sandbox?.enabled, escape: settings.sandbox?.allowUnsandboxedCommands }, { enabled: true, escape: false });
      assert.ok(!settings.permissions.allow.includes('Bash'), 'no bare Bash in the allow-list');
      const events = eventsOf(crew.root, 'confined', 1);
      const tools = events.filter((event) => event['type'] === 'tool').map((event) => event['name']);
      assert.ok(tools.includes('TaskCreate'), JSON.stringify(tools));
      const results = events.filter((event) => event['type'] === 'toolResult').map((event) => String(event['output']));
      assert.ok(results.some((output) => /Read-only file system/.test(output)), `the sandbox stopped the commands: ${JSON.stringify(results)}`);
    } finally {
      await server.stop();
    }
  },
);

test("the allow-list: the user's own Bash(curl:*) lets curl run without asking", { timeout: 90_000 }, async () => {
  const { crew, model, home } = await makeRealCrew('claude', { profile: { permissions: 'allowList' } });
  mkdirSync(join(home, '.claude'), { recursive: true });
  writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify({ permissions: { allow: ['Bash(curl:*)'] } }));
  model.play([{ bash: `curl -sS -m 5 -o fetched.json ${model.url}/user-rule` }, { text: 'Fetched it.' }]);
  await crew.addTask('fetch', 'Fetch', 'Fetch the page.');
  const server = await crew.serve();
  try {
    let askedForInput = false;
    await crew.waitFor(
      'ada in review',
      (status) => {
        askedForInput ||= ada(status).needsInput !== null;
        return ada(status).state === 'IN_REVIEW';
      },
      60_000,
      server,
    );
    assert.equal(askedForInput, false);
    assert.ok(model.requests.some((request) => request.path === '/user-rule'), 'curl reached the server');
    assert.equal(crew.git(['show', 'ada/fetch:fetched.json']), '{}');
  } finally {
    await server.stop();
  }
});

test('a compound command is allowed only if every part is: npm test && curl asks a person', { timeout: 90_000 }, async () => {
  const { crew, model } = await makeRealCrew('claude', { profile: { permissions: 'allowList', allowedTools: ['Bash(npm test:*)'] } });
  model.play([{ bash: `npm test && curl -sS -m 5 ${model.url}/compound` }, { text: 'Gave up on it.' }]);
  await crew.addTask('compound', 'Compound', 'Test then fetch.');
  const server = await crew.serve();
  try {
    const waiting = await crew.waitFor('ada waits for a person', (status) => ada(status).needsInput !== null, 60_000, server);
    assert.match(ada(waiting).needsInput?.message ?? '', /^permission to use Bash: npm test && curl/);
    await crew.ok(['answer', 'ada', 'deny']);
    await crew.waitFor('ada done', (status) => ada(status).state !== 'WORKING', 60_000, server);
    assert.ok(!model.requests.some((request) => request.path === '/compound'), 'the denied command never ran');
  } finally {
    await server.stop();
  }
});
