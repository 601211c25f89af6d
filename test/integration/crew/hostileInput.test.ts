/**
 * Hostile input through the CLI. Ids that a shell or git could read as something else (`$(…)`,
 * `--upload-pack=x`, `a..b`, `x.lock`, 400 characters) are refused with exit 2 and nothing is
 * created: no file, no worker or task, no branch or ref, no worktree. Titles and prompts may say
 * anything: they are stored verbatim and reach agents as single argv elements, never a shell.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { hostileNames } from '../../support/hostileNames';
import { type CrewRepo, type Status, makeCrew, reviewUntil, sandboxPath } from './crewHarness';

const pwned = sandboxPath('pwned');
const hostileIds = [...hostileNames, `$(touch ${pwned})`, 'refs/heads/main', 'HEAD', 'w1;touch /tmp/pwned', 'A'.repeat(400)];

/** Status without the parts that change with the clock. */
function stable(status: Status): unknown {
  return {
    ...status,
    workers: status.workers.map(({ id, state, taskId, branch, attempt, note, lastError }) => ({
      id,
      state,
      taskId,
      branch,
      attempt,
      note,
      lastError,
    })),
  };
}

function snapshot(crew: CrewRepo): { refs: string; checkout: ReturnType<CrewRepo['checkout']>; worktrees: string[]; foreman: string[] } {
  return {
    refs: crew.refs(),
    checkout: crew.checkout(),
    worktrees: existsSync(crew.worktreeRoot) ? readdirSync(crew.worktreeRoot) : [],
    foreman: readdirSync(join(crew.root, '.foreman'))
      .filter((name) => !/^foreman\.(db|journal)/.test(name))
      .sort(),
  };
}

test('hostile ids are refused with exit 2 and create nothing', { timeout: 60_000 }, async () => {
  const tmpPwnedExisted = existsSync('/tmp/pwned');
  const crew = await makeCrew({ workers: ['w1'] });
  await crew.ok(['task', 'add', 'A real task', '--id', 'real', '--manual']);
  const statusBefore = stable(await crew.status());
  const before = snapshot(crew);

  // Every id through the two commands that create things; each other command with two of them in turn.
  const creating = (id: string): string[][] => [
    ['worker', 'add', '--', id],
    ['task', 'add', 'Title', `--id=${id}`],
  ];
  const naming: Array<(id: string) => string[]> = [
    (id) => ['worker', 'add', `--agent=${id}`, '--', 'w2'],
    (id) => ['task', 'add', 'Title', '--id', 'fine-id', `--after=${id}`],
    (id) => ['assign', 'w1', '--', id],
    (id) => ['assign', '--', id, 'real'],
    (id) => ['start', '--', id],
    (id) => ['approve', '--', id],
    (id) => ['merge', '--', id],
    (id) => ['cancel', '--', id],
    (id) => ['reset', '--', id],
    (id) => ['retry', '--', id],
    (id) => ['heartbeat', '--', id],
    (id) => ['plan', 'start', '--', id],
  ];
  const calls = [
    ...hostileIds.flatMap(creating),
    ...naming.flatMap((command, index) => [
      command(hostileIds[index % hostileIds.length]!),
      command(hostileIds[(index + 5) % hostileIds.length]!),
    ]),
  ];
  // Run concurrently in small batches: each call is a node process.
  for (let index = 0; index < calls.length; index += 8) {
    const batch = calls.slice(index, index + 8);
    const runs = await Promise.all(batch.map((args) => crew.foreman(args)));
    runs.forEach((run, offset) => {
      const args = batch[offset]!;
      assert.equal(run.code, 2, `foreman ${args.join(' ')} should exit 2, exited ${run.code}: ${run.stdout}${run.stderr}`);
      assert.match(run.stderr, /\S/, `foreman ${args.join(' ')} says why`);
    });
  }
  const titles400 = await crew.foreman(['task', 'add', 'T'.repeat(400), '--id', 'long-title']);
  assert.equal(titles400.code, 2, titles400.stdout + titles400.stderr);

  assert.equal(existsSync(pwned), false, 'nothing was executed');
  if (!tmpPwnedExisted) assert.equal(existsSync('/tmp/pwned'), false, 'nothing was executed');
  assert.deepEqual(stable(await crew.status()), statusBefore, 'no worker or task was created or changed');
  assert.deepEqual(snapshot(crew), before, 'no branch, ref, worktree or file was created');
  const history = await crew.transitions();
  assert.equal(history.filter((row) => row.entity_id !== 'real').length, 0, 'no transition for anything hostile');
});

test('a branch template git would refuse makes serve and the CLI exit 2 before anything is created', { timeout: 30_000 }, async () => {
  const crew = await makeCrew({ workers: ['w1'] });
  await crew.ok(['task', 'add', 'A task', '--id', 'one']);
  const refsBefore = crew.refs();
  const settingsFile = join(crew.root, '.foreman', 'settings.json');
  const settings = JSON.parse(readFileSync(settingsFile, 'utf8')) as Record<string, unknown>;
  for (const template of ['{worker}..{task}', '{task}.lock', '-{task}', '{worker}/.{task}']) {
    writeFileSync(settingsFile, JSON.stringify({ ...settings, branchTemplate: template }));
    const serve = await crew.foreman(['serve']);
    assert.equal(serve.code, 2, `serve with branchTemplate ${template}: ${serve.stdout}${serve.stderr}`);
    assert.match(serve.stderr, /branchTemplate/);
  }
  assert.equal(crew.refs(), refsBefore, 'no branch was created');
  assert.equal(existsSync(crew.worktreeRoot), false, 'no worktree was created');
});

test('titles and prompts that look like shell code are stored verbatim and never executed', { timeout: 60_000 }, async () => {
  const marker = sandboxPath('pwned-by-title');
  const title = `$(touch ${marker}) \`touch ${marker}\`; touch ${marker} --upload-pack=x a..b x.lock`;
  const prompt = `$(touch ${marker})\n\`touch ${marker}\`\nwrite safe.txt $(touch ${marker})\ncommit $(touch ${marker})`;
  // A second agent gets the prompt as one argv element (`{prompt}`) and records its argv.
  const recorder = 'require("fs").writeFileSync("argv.json", JSON.stringify(process.argv.slice(1)))';
  const crew = await makeCrew({
    workers: ['w1'],
    settings: { agents: { recorder: { command: process.execPath, args: ['-e', recorder, '{prompt}'] } } },
  });
  await crew.ok(['worker', 'add', 'w2', '--agent', 'recorder']);
  await crew.ok(['task', 'add', title, '--id', 'shell-title', '--prompt', prompt, '--manual']);
  await crew.ok(['task', 'add', title, '--id', 'argv-title', '--prompt', prompt, '--manual']);
  const stored = await crew.status();
  assert.equal(crew.task(stored, 'shell-title').title, title);

  await crew.ok(['assign', 'w1', 'shell-title']);
  await crew.ok(['assign', 'w2', 'argv-title']);
  const server = await crew.serve();
  try {
    await reviewUntil(crew, (s) => ['shell-title', 'argv-title'].every((id) => crew.task(s, id).status === 'done'), {
      server,
      timeoutMs: 30_000,
    });
  } finally {
    await server.stop();
  }
  assert.equal(existsSync(marker), false, 'no title or prompt was run by a shell');
  assert.equal(crew.git(['show', 'main:safe.txt']), `$(touch ${marker})`);
  // The agent's own commit, and Foreman's for what it left, titled by the task: verbatim, never run.
  const subjects = crew.git(['log', '--format=%s', '--grep=^\\$(touch', 'main']).split('\n');
  assert.ok(subjects.includes(`$(touch ${marker})`), subjects.join('\n'));
  assert.ok(subjects.every((subject) => subject.startsWith(`$(touch ${marker})`)), subjects.join('\n'));
  assert.deepEqual(
    JSON.parse(crew.git(['show', 'main:argv.json'])),
    [`${title}\n\n${prompt}`],
    'the prompt reached the agent as one argv element',
  );
  assert.deepEqual(crew.git(['for-each-ref', '--format=%(refname:short)', 'refs/heads']).split('\n').sort(), [
    'main',
    'w1/shell-title',
    'w2/argv-title',
  ]);
});
