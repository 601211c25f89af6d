/**
 * Worktree setup with real git and real processes: files copied from the main checkout (and never
 * committed), the setup command run in each new worktree with the worker's own port, its output in
 * the attempt's log; a setup command that fails fails the attempt with what it said; a folder in the
 * way of a worktree fails the task for good at once.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { makeCrew, reviewUntil } from './crewHarness';

const printPort = [process.execPath, '-e', 'console.log(`setup ran with port ${process.env.FOREMAN_PORT}`)'];

test('copied files, the setup command and a port per worker; the copies never reach a commit', { timeout: 90_000 }, async () => {
  const crew = await makeCrew({
    workers: ['w1', 'w2'],
    files: { '.gitignore': '.env*\n' },
    settings: { setupCommand: printPort, copyFiles: ['.env*'], portRange: { from: 4100, to: 4109 } },
  });
  writeFileSync(join(crew.root, '.env'), 'SECRET=local\n');
  writeFileSync(join(crew.root, '.env.test'), 'SECRET=test\n');
  await crew.addTask('one', 'One', 'write one.txt 1\ncommit one');
  await crew.addTask('two', 'Two', 'write two.txt 2');
  const server = await crew.serve();
  try {
    await crew.waitFor('both in review', (status) => status.workers.every((worker) => worker.state === 'IN_REVIEW'), 60_000, server);
    const ports = new Set<string>();
    for (const worker of ['w1', 'w2']) {
      const worktree = crew.worktreeOf(worker);
      assert.equal(readFileSync(join(worktree, '.env'), 'utf8'), 'SECRET=local\n');
      assert.equal(readFileSync(join(worktree, '.env.test'), 'utf8'), 'SECRET=test\n');
      const task = crew.git(['rev-parse', '--abbrev-ref', 'HEAD'], worktree).split('/')[1]!;
      const port = /setup ran with port (\d+)/.exec(crew.attemptLog(task, 1))?.[1];
      assert.ok(port && Number(port) >= 4100 && Number(port) <= 4109, crew.attemptLog(task, 1));
      ports.add(port);
      assert.equal(crew.tryGit(['cat-file', '-e', `${worker}/${task}:.env`]), undefined, 'the copy is not committed');
    }
    assert.equal(ports.size, 2, 'no two workers share a port');
    const stored = JSON.parse(readFileSync(join(crew.root, '.foreman', 'ports.json'), 'utf8')) as { ports: Record<string, number> };
    assert.deepEqual(Object.keys(stored.ports).sort(), ['w1', 'w2']);
    await reviewUntil(crew, (status) => status.tasks.every((task) => task.status === 'done'), { server, timeoutMs: 30_000 });
    assert.equal(crew.tryGit(['cat-file', '-e', 'main:.env']), undefined);
    assert.ok(existsSync(join(crew.root, '.env')), "the user's own file stays");
  } finally {
    await server.stop();
  }
});

test('a setup command that fails fails the attempt with the end of its output; the agent never starts', { timeout: 60_000 }, async () => {
  const crew = await makeCrew({
    workers: ['w1'],
    settings: {
      setupCommand: [process.execPath, '-e', 'console.error("npm ERR! missing lockfile"); process.exit(3)'],
      defaultMaxAttempts: 1,
    },
  });
  await crew.addTask('build', 'Build', 'write built.txt yes');
  const server = await crew.serve();
  try {
    const failed = await crew.waitFor('the task failed', (status) => crew.task(status, 'build').status === 'failed', 30_000, server);
    const worker = crew.worker(failed, 'w1');
    assert.match(worker.lastError ?? '', /^setup failed: .*exited 3.*npm ERR! missing lockfile/s);
    assert.ok(!existsSync(join(crew.worktreeOf('w1'), 'built.txt')), 'the agent did not run');
    assert.match(crew.attemptLog('build', 1), /npm ERR! missing lockfile/);
  } finally {
    await server.stop();
  }
});

test(
  'a folder in the way of a worktree fails the task for good at once, and is left alone; moved away, a retry runs',
  { timeout: 60_000 },
  async () => {
    const crew = await makeCrew({ workers: ['w1'], settings: { defaultMaxAttempts: 3 } });
    const inTheWay = crew.worktreeOf('w1');
    mkdirSync(inTheWay, { recursive: true });
    writeFileSync(join(inTheWay, 'notes.txt'), 'mine');
    await crew.addTask('build', 'Build', 'write built.txt yes\ncommit Build');
    let server = await crew.serve();
    try {
      await crew.failedForGoodAtOnce(
        'w1',
        'build',
        /^setup failed: .*already exists and is not a worktree of this repository; move it away/,
        server,
      );
      assert.equal(readFileSync(join(inTheWay, 'notes.txt'), 'utf8'), 'mine', 'a folder Foreman does not own is never touched');
    } finally {
      await server.stop();
    }

    renameSync(inTheWay, `${inTheWay}-moved`);
    await crew.ok(['retry', 'build']);
    server = await crew.serve();
    try {
      await reviewUntil(crew, (status) => crew.task(status, 'build').status === 'done', { server, timeoutMs: 30_000 });
      assert.equal(crew.git(['show', 'main:built.txt']), 'yes');
    } finally {
      await server.stop();
    }
  },
);
