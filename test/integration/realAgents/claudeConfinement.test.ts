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
import type { CrewRepo, Server, Status } from '../crew/crewHarness';
import { eventsOf, makeRealCrew } from './realCrew';

interface GateWorker {
  readonly state: string;
  readonly needsInput: { message: string } | null;
}
const ada = (status: Status): GateWorker => (status as unknown as { workers: GateWorker[] }).workers[0] as GateWorker;

/** The fields of `status --json` these tests read beyond the harness's own. */
interface LiveStatus {
  readonly workers: ReadonlyArray<{ readonly state: string; readonly progress: number | null; readonly confinement: string | null }>;
  readonly tasks: ReadonlyArray<{ readonly status: string; readonly lastError: string | null }>;
}
const live = (status: Status): LiveStatus => status as unknown as LiveStatus;

/** Waits for ada in review; returns whether she waited for a person on the way. */
async function reviewedAskingNobody(crew: CrewRepo, server: Server): Promise<boolean> {
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
  return askedForInput;
}

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
      const askedForInput = await reviewedAskingNobody(crew, server);
      assert.equal(askedForInput, false, 'nothing waited for a person: TaskCreate only plans, the rest was confined or refused');
      assert.ok(existsSync(join(outside, 'keep.txt')), 'the folder outside the worktree survived rm -rf');
      assert.ok(!existsSync(intruder), 'nothing was written into the main checkout');
      assert.equal(crew.git(['show', 'ada/confined:inside.txt']), 'inside', 'commands inside the worktree ran');
      const settings = JSON.parse(
        readFileSync(join(crew.root, '.foreman', 'logs', 'confined', 'attempt-1.claude-settings.json'), 'utf8'),
      ) as {
        sandbox?: { enabled: boolean; allowUnsandboxedCommands: boolean };
        permissions: { allow: string[] };
      };
      assert.deepEqual(
        { enabled: settings.sandbox?.enabled, escape: settings.sandbox?.allowUnsandboxedCommands },
        { enabled: true, escape: false },
      );
      assert.ok(!settings.permissions.allow.includes('Bash'), 'no bare Bash in the allow-list');
      const events = eventsOf(crew.root, 'confined', 1);
      const tools = events.filter((event) => event['type'] === 'tool').map((event) => event['name']);
      assert.ok(tools.includes('TaskCreate'), JSON.stringify(tools));
      const results = events.filter((event) => event['type'] === 'toolResult').map((event) => String(event['output']));
      assert.ok(
        results.some((output) => /Read-only file system/.test(output)),
        `the sandbox stopped the commands: ${JSON.stringify(results)}`,
      );
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
    assert.equal(await reviewedAskingNobody(crew, server), false);
    assert.equal(live(await crew.status()).workers[0]?.confinement, 'allowList', 'the card says the allow-list is in force');
    assert.ok(
      model.requests.some((request) => request.path === '/user-rule'),
      'curl reached the server',
    );
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

test(
  'inside the sandbox the agent still reaches its owner: foreman heartbeat and fail alone, never part of a longer line',
  { timeout: 90_000 },
  async () => {
    const { crew, model } = await makeRealCrew('claude');
    const release = join(crew.worktreeOf('ada'), 'release.flag');
    const escaped = join(dirname(crew.root), `escaped-${Date.now()}`);
    const reason = 'the build needs a tool this machine lacks';
    model.play([
      { bash: 'foreman heartbeat --progress 0.5' },
      // Holds the turn until the test has seen the progress: the fail that follows ends the run.
      { bash: 'while [ ! -e release.flag ]; do sleep 0.2; done; rm -f release.flag' },
      // Claude would run the whole line outside the sandbox for its foreman part: the gate refuses it.
      { bash: `foreman heartbeat --progress 0.9 && echo escaped > ${escaped}` },
      { bash: `foreman fail --reason '${reason}'` },
      { text: 'Reported the missing tool.' },
    ]);
    await crew.addTask('report', 'Report', 'Say how far you got, then give up.', '--max-attempts', '1');
    const server = await crew.serve();
    try {
      const working = live(
        await crew.waitFor('progress 0.5 from inside the sandbox', (status) => live(status).workers[0]?.progress === 0.5, 60_000, server),
      );
      assert.equal(working.workers[0]?.state, 'WORKING');
      assert.equal(working.workers[0]?.confinement, 'sandbox', 'the card says the sandbox is in force');
      writeFileSync(release, '');
      const failed = live(
        await crew.waitFor(
          "the task failed with the agent's reason",
          (status) => live(status).tasks[0]?.status === 'failed',
          60_000,
          server,
        ),
      );
      assert.match(failed.tasks[0]?.lastError ?? '', new RegExp(reason));
      assert.ok(!existsSync(escaped), 'the line that joined foreman to another command never ran');
      const results = eventsOf(crew.root, 'report', 1)
        .filter((event) => event['type'] === 'toolResult')
        .map((event) => String(event['output']));
      assert.ok(
        results.some((output) => /must run on its own/.test(output)),
        JSON.stringify(results),
      );
      const settings = JSON.parse(
        readFileSync(join(crew.root, '.foreman', 'logs', 'report', 'attempt-1.claude-settings.json'), 'utf8'),
      ) as {
        sandbox?: { enabled: boolean; excludedCommands: string[] };
      };
      assert.equal(settings.sandbox?.enabled, true, 'the sandbox was on');
      assert.ok(settings.sandbox.excludedCommands.includes('foreman heartbeat:*'));
    } finally {
      await server.stop();
    }
  },
);
