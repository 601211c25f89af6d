/**
 * Worktree setup against real repositories in temp folders, the real commitLeftovers and wip
 * snapshots, and real child processes (`node -e` scripts) as the setup command.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { simpleGit } from 'simple-git';
import { isAlive } from '../../../src/infra/agents/processes';
import { WorktreeSetup, type WorktreeSetupSettings } from '../../../src/infra/agents';
import { excludeBlockEnd, excludeBlockStart } from '../../../src/infra/agents/setupFiles';
import { GitWorkspace, commitLeftovers, snapshotWip } from '../../../src/infra/git';
import { commitAllIn, makeRepo, readFile, statusOf, unwrap, writeFile } from '../git/gitFixtures';
import { pollUntil } from '../../support/pollUntil';

const node = process.execPath;
const noSetup: WorktreeSetupSettings = { setupCommand: [], copyFiles: [] };

/** A repository whose main checkout holds local files a worktree needs, and a worktree for worker w1. */
async function setupRepo(workerId = 'w1') {
  const { root } = await makeRepo();
  writeFile(root, '.gitignore', '.env*\n');
  await commitAllIn(root, 'ignore env files');
  writeFile(root, '.env', 'SECRET=1\n');
  writeFile(root, '.env.local', 'LOCAL=1\n');
  // Not ignored by .gitignore: only Foreman's exclude block keeps it out of commits.
  writeFile(root, 'config/app.local.json', '{"debug":true}\n');
  writeFile(root, 'config/app.json.example', '{}\n');
  writeFile(root, 'notes.txt', 'unrelated\n');
  const foremanDir = join(root, '.foreman');
  writeFile(foremanDir, 'settings.local.json', '{}\n');
  const worktree = unwrap(await new GitWorkspace(root).prepareWorktree({ workerId, taskId: 't1', startPoint: 'main' })).path;
  return { root, foremanDir, worktree, logFile: join(dirname(root), 'logs', 't1', 'attempt-1.log') };
}

function settingsWith(overrides: Partial<WorktreeSetupSettings>): WorktreeSetupSettings {
  return { ...noSetup, copyFiles: ['.env*', 'config/*.local.json', '.foreman/*'], ...overrides };
}

const env = { PATH: process.env['PATH'] ?? '' };

test('copies the matching untracked files of the main checkout, ignored ones included, and nothing else', async () => {
  const { root, foremanDir, worktree, logFile } = await setupRepo();
  symlinkSync('/etc/hostname', join(root, '.env.link'));
  const setup = new WorktreeSetup(root, foremanDir, settingsWith({}));

  const outcome = unwrap(await setup.prepare({ workerId: 'w1', worktree, logFile, env }));
  assert.deepEqual(outcome, { copied: ['.env', '.env.local', 'config/app.local.json'], ranSetup: false });
  assert.equal(readFile(worktree, '.env'), 'SECRET=1\n');
  assert.equal(readFile(worktree, 'config/app.local.json'), '{"debug":true}\n');
  for (const absent of ['.env.link', 'notes.txt', 'config/app.json.example', '.foreman/settings.local.json']) {
    assert.equal(existsSync(join(worktree, absent)), false, absent);
  }
  assert.match(readFileSync(logFile, 'utf8'), /setup did not copy \.env\.link: a symbolic link/);
});

test('a file tracked on the worktree branch is never overwritten, and a glob cannot leave the repository', async () => {
  const { root, foremanDir, worktree, logFile } = await setupRepo();
  writeFile(worktree, 'config/app.local.json', 'committed on the branch\n');
  await commitAllIn(worktree, 'track the local config on this branch');
  const setup = new WorktreeSetup(root, foremanDir, settingsWith({}));
  const outcome = unwrap(await setup.prepare({ workerId: 'w1', worktree, logFile, env }));
  assert.deepEqual(outcome.copied, ['.env', '.env.local']);
  assert.equal(readFile(worktree, 'config/app.local.json'), 'committed on the branch\n');
  assert.equal(await statusOf(worktree), '');

  for (const glob of ['../secrets/*', '/etc/passwd', ':(top)*', 'config/../../x']) {
    const refused = await new WorktreeSetup(root, foremanDir, settingsWith({ copyFiles: [glob] })).prepare({
      workerId: 'w1',
      worktree,
      logFile,
      env,
    });
    assert.equal(refused.ok ? 'ok' : refused.code, 'invalidCopyGlob', glob);
  }
});

test('a worktree folder linked out of the worktree is not written through', async () => {
  const { root, foremanDir, worktree, logFile } = await setupRepo();
  const outside = join(dirname(root), 'outside');
  mkdirSync(outside);
  symlinkSync(outside, join(worktree, 'config'));
  const outcome = unwrap(await new WorktreeSetup(root, foremanDir, settingsWith({})).prepare({ workerId: 'w1', worktree, logFile, env }));
  assert.deepEqual(outcome.copied, ['.env', '.env.local']);
  assert.equal(existsSync(join(outside, 'app.local.json')), false);
});

test('copied files are in the shared exclude block, so commitLeftovers and wip snapshots skip them', async () => {
  const { root, foremanDir, worktree, logFile } = await setupRepo();
  const commonDir = join(root, '.git');
  writeFileSync(join(commonDir, 'info', 'exclude'), "# the user's own line\n*.swp\n");
  const setup = new WorktreeSetup(root, foremanDir, settingsWith({}));
  unwrap(await setup.prepare({ workerId: 'w1', worktree, logFile, env }));
  assert.equal((await simpleGit(worktree).raw(['rev-parse', '--git-common-dir'])).trim(), commonDir);

  assert.equal(unwrap(await snapshotWip({ worktreePath: worktree, taskId: 't1', attempt: 1 })), undefined);
  assert.equal(unwrap(await commitLeftovers({ worktreePath: worktree, taskId: 't1', workerId: 'w1', attempt: 1 })), undefined);

  writeFile(worktree, 'feature.txt', 'real work\n');
  const sha = unwrap(await commitLeftovers({ worktreePath: worktree, taskId: 't1', workerId: 'w1', attempt: 1 }));
  assert.ok(sha);
  const committed = await simpleGit(worktree).raw(['show', '--name-only', '--format=', sha]);
  assert.deepEqual(committed.trim().split('\n'), ['feature.txt']);
  assert.equal(readFile(worktree, 'config/app.local.json'), '{"debug":true}\n');

  // A second prepare (another worker, the same files) keeps one block and the user's lines.
  const second = unwrap(await new GitWorkspace(root).prepareWorktree({ workerId: 'w2', taskId: 't2', startPoint: 'main' })).path;
  unwrap(await setup.prepare({ workerId: 'w2', worktree: second, logFile, env }));
  const exclude = readFileSync(join(commonDir, 'info', 'exclude'), 'utf8');
  assert.equal(
    exclude,
    `# the user's own line\n*.swp\n${excludeBlockStart}\n/.env\n/.env.local\n/config/app.local.json\n${excludeBlockEnd}\n`,
  );
});

test('prepare refuses a folder that is not a worktree of its own', async () => {
  const { root, foremanDir, logFile } = await setupRepo();
  const inside = join(root, 'config');
  const result = await new WorktreeSetup(root, foremanDir, settingsWith({})).prepare({ workerId: 'w1', worktree: inside, logFile, env });
  assert.equal(result.ok ? 'ok' : result.code, 'notAWorktree');
});

test('ports: none without a range; stable per worker, unique, persisted across instances and restarts', async () => {
  const { root, foremanDir } = await setupRepo();
  assert.equal(unwrap(new WorktreeSetup(root, foremanDir, noSetup).portFor('w1')), undefined);
  assert.equal(existsSync(join(foremanDir, 'ports.json')), false);

  const range = { from: 3000, to: 3002 };
  const setup = new WorktreeSetup(root, foremanDir, { ...noSetup, portRange: range });
  assert.equal(unwrap(setup.portFor('w1')), 3000);
  assert.equal(unwrap(setup.portFor('w2')), 3001);
  assert.equal(unwrap(setup.portFor('w1')), 3000);
  const restarted = new WorktreeSetup(root, foremanDir, { ...noSetup, portRange: range });
  assert.equal(unwrap(restarted.portFor('w2')), 3001);
  assert.equal(unwrap(restarted.portFor('w3')), 3002);

  const full = restarted.portFor('w4');
  assert.equal(full.ok ? 'ok' : full.code, 'portRangeFull');
  assert.match(full.ok ? '' : full.message, /3000-3002/);

  unwrap(restarted.releasePort('w2'));
  assert.equal(unwrap(restarted.portFor('w4')), 3001, 'the first free port goes to the new worker');
  assert.deepEqual(JSON.parse(readFileSync(join(foremanDir, 'ports.json'), 'utf8')), {
    version: 1,
    ports: { w1: 3000, w3: 3002, w4: 3001 },
  });

  // A narrowed range moves only the workers whose port fell outside it.
  const narrowed = new WorktreeSetup(root, foremanDir, { ...noSetup, portRange: { from: 3001, to: 3005 } });
  assert.equal(unwrap(narrowed.portFor('w4')), 3001);
  assert.equal(unwrap(narrowed.portFor('w1')), 3003);
  assert.equal(narrowed.portFor('Bad Id').ok, false);
});

test('ports: a damaged ports.json is reported and left as it is, never reset', async () => {
  const { root, foremanDir } = await setupRepo();
  const setup = new WorktreeSetup(root, foremanDir, { ...noSetup, portRange: { from: 4000, to: 4010 } });
  const file = join(foremanDir, 'ports.json');
  for (const damaged of [
    '{"version":1,"ports":{"w1":40',
    '{"version":1,"ports":{"w1":4000,"w2":4000}}',
    '{"version":1,"ports":{"w1":"x"}}',
  ]) {
    writeFileSync(file, damaged);
    const result = setup.portFor('w3');
    assert.equal(result.ok ? 'ok' : result.code, 'portsFileDamaged', damaged);
    assert.match(result.ok ? '' : result.message, /ports\.json is damaged/);
    assert.equal(readFileSync(file, 'utf8'), damaged);
  }
});

test('the setup command runs in the worktree with the env, FOREMAN_PORT and stdin closed; output goes to the log and to progress', async () => {
  const { root, foremanDir, worktree, logFile } = await setupRepo();
  const script = [
    "const fs = require('fs');",
    "const stdin = fs.readFileSync(0, 'utf8');",
    "fs.writeFileSync('installed.txt', [process.cwd(), process.env.FOREMAN_PORT, process.env.EXTRA, fs.readFileSync('.env', 'utf8').trim(), stdin.length].join('|'));",
    "console.log('step one'); console.error('step two'); process.stdout.write('progress 50%\\rprogress 100%\\nno newline at the end');",
  ].join('\n');
  const settings = settingsWith({ setupCommand: [node, '-e', script], portRange: { from: 5000, to: 5001 } });
  const lines: string[] = [];
  const outcome = unwrap(
    await new WorktreeSetup(root, foremanDir, settings).prepare({
      workerId: 'w1',
      worktree,
      logFile,
      env: { ...env, EXTRA: 'x' },
      onProgress: (line) => lines.push(line),
    }),
  );
  assert.equal(outcome.ranSetup, true);
  assert.equal(readFile(worktree, 'installed.txt'), `${worktree}|5000|x|SECRET=1|0`);
  assert.deepEqual(lines.sort(), ['no newline at the end', 'progress 100%', 'progress 50%', 'step one', 'step two']);
  const log = readFileSync(logFile, 'utf8');
  assert.match(log, /# foreman \S+ setup argv=\[.*"-e".*\] cwd=".*" FOREMAN_PORT=5000\n/);
  assert.match(log, /step one\n/);
  assert.match(log, /# foreman \S+ setup exited 0 after/);
  // The setup command's own files are the work's business; only the copied ones are excluded.
  assert.equal(await statusOf(worktree), '?? installed.txt\n');
});

test('a failing setup command is refused with its argv, its exit code and its last lines of output', async () => {
  const { root, foremanDir, worktree, logFile } = await setupRepo();
  const script = "for (let i = 1; i <= 20; i++) console.log('line ' + i); console.error('npm ERR! missing'); process.exit(3)";
  const result = await new WorktreeSetup(root, foremanDir, { ...noSetup, setupCommand: [node, '-e', script] }).prepare({
    workerId: 'w1',
    worktree,
    logFile,
    env,
  });
  assert.equal(result.ok, false);
  if (result.ok) return;
  assert.equal(result.code, 'setupFailed');
  assert.equal(result.kind, 'refused');
  assert.ok(result.message.includes(JSON.stringify(node)), result.message);
  assert.match(result.message, /exited 3/);
  assert.match(result.message, /line 20/);
  assert.match(result.message, /npm ERR! missing/);
  assert.doesNotMatch(result.message, /line 1 /);
  assert.match(readFileSync(logFile, 'utf8'), /line 1\n[\s\S]*setup exited 3 after/);
});

test('a missing setup executable is refused naming it', async () => {
  const { root, foremanDir, worktree, logFile } = await setupRepo();
  const result = await new WorktreeSetup(root, foremanDir, { ...noSetup, setupCommand: ['no-such-setup-tool-xyz', 'install'] }).prepare({
    workerId: 'w1',
    worktree,
    logFile,
    env,
  });
  assert.equal(result.ok ? 'ok' : result.code, 'setupNotStarted');
  assert.match(result.ok ? '' : result.message, /no-such-setup-tool-xyz.*was not found/);
});

test('a setup command that outlives its timeout is stopped with everything it started', async () => {
  const { root, foremanDir, worktree, logFile } = await setupRepo();
  const pidFile = join(worktree, 'grandchild.pid');
  const script = [
    "const { spawn } = require('child_process');",
    "const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });",
    `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(child.pid));`,
    "console.log('installing forever'); setInterval(() => {}, 1000);",
  ].join('\n');
  const started = Date.now();
  const setup = new WorktreeSetup(root, foremanDir, { ...noSetup, setupCommand: [node, '-e', script], timeoutMs: 1500 });
  const result = await setup.prepare({ workerId: 'w1', worktree, logFile, env });
  assert.equal(result.ok ? 'ok' : result.code, 'setupTimedOut');
  assert.match(result.ok ? '' : result.message, /did not finish within 1\.5 s.*installing forever/);
  assert.ok(Date.now() - started < 10_000);
  const grandchild = Number(readFileSync(pidFile, 'utf8'));
  await pollUntil(() => !isAlive(grandchild), { what: `grandchild ${grandchild} to be stopped` });
  assert.match(readFileSync(logFile, 'utf8'), /setup timed out after/);
});

test('a setup command that leaves a background process behind succeeds, and the leftover is stopped', async () => {
  const { root, foremanDir, worktree, logFile } = await setupRepo();
  const pidFile = join(worktree, 'daemon.pid');
  const script = [
    "const { spawn } = require('child_process');",
    "const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'inherit' });",
    `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(child.pid)); child.unref(); process.exit(0);`,
  ].join('\n');
  const started = Date.now();
  const outcome = unwrap(
    await new WorktreeSetup(root, foremanDir, { ...noSetup, setupCommand: [node, '-e', script] }).prepare({
      workerId: 'w1',
      worktree,
      logFile,
      env,
    }),
  );
  assert.equal(outcome.ranSetup, true);
  assert.ok(Date.now() - started < 10_000);
  const daemon = Number(readFileSync(pidFile, 'utf8'));
  await pollUntil(() => !isAlive(daemon), { what: `leftover ${daemon} to be stopped` });
});
