// Creates (or reuses) the demo repository `npm start` opens: a small git project with Foreman
// initialised, two demo workers and a short chain whose prompts the demo agent understands.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';

const cli = (root, dir, ...args) =>
  execFileSync(process.execPath, [join(root, 'dist/cli.js'), ...args, '--dir', dir], { stdio: ['ignore', 'pipe', 'inherit'] }).toString();
const git = (dir, ...args) => execFileSync('git', ['-C', dir, ...args], { stdio: ['ignore', 'pipe', 'inherit'] }).toString();

const checklist = `# Greeting feature

- [ ] Add a greeting module
  write src/greeting.js export const greet = (name) => \`Hello, \${name}!\`;
  progress 0.5
  sleep 1500
  commit Add greeting module
- [ ] Use the greeting in the app
  append src/app.js import { greet } from './greeting.js'; console.log(greet('Foreman'));
  progress 0.6
  sleep 1500
  commit Use greeting
- [ ] Document the greeting
  append README.md The app greets you by name.
  sleep 1000
  commit Document greeting
`;

/**
 * Where `npm start` keeps the demo: in the user's cache, outside this project, so that the editor
 * does not pick up the project's own tsconfig.json and the workers' worktrees (made next to the
 * repository) stay out of the project's `git status`.
 */
export function defaultDemoDir() {
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(cache, 'foreman-demo', 'demo-repo');
}

/**
 * "Delete it to start over" leaves the workers' worktrees beside it (`.foreman-worktrees/<name>/`),
 * and Foreman rightly refuses to reuse a folder that is not a worktree of the repository it serves:
 * the new demo's first task would fail at once. Before a demo is made again, the worktrees that
 * belonged to the deleted demo at this same path go too. Only those: a folder whose `.git` file
 * names `<dir>/.git/worktrees/…`, which no longer exists (`git worktree` makes them so).
 */
export function removeOrphanedWorktrees(dir) {
  const root = join(dirname(dir), '.foreman-worktrees', basename(dir));
  if (!existsSync(root) || existsSync(join(dir, '.git'))) return [];
  // git writes the real path (a symlinked temp folder resolved); either spelling is the demo's.
  const ownWorktrees = [dir, join(realpathSync(dirname(dir)), basename(dir))].map((repo) => join(repo, '.git', 'worktrees') + '/');
  const removed = [];
  for (const entry of readdirSync(root)) {
    const gitFile = join(root, entry, '.git');
    let pointer;
    try {
      pointer = readFileSync(gitFile, 'utf8').trim();
    } catch {
      continue; // not a worktree (a directory with .git inside, or no .git at all): not ours to remove
    }
    const gitdir = pointer.startsWith('gitdir: ') ? pointer.slice('gitdir: '.length) : '';
    if (ownWorktrees.some((prefix) => gitdir.startsWith(prefix)) && !existsSync(gitdir)) {
      rmSync(join(root, entry), { recursive: true, force: true });
      removed.push(join(root, entry));
    }
  }
  return removed;
}

/** Returns the demo repository's path; builds it on first use. */
export function ensureDemoRepo(root, dir = defaultDemoDir()) {
  if (existsSync(join(dir, '.foreman'))) return dir;
  for (const removed of removeOrphanedWorktrees(dir)) console.log(`demo: removed ${removed}, a worktree of the deleted demo`);
  mkdirSync(join(dir, 'src'), { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'Demo User');
  git(dir, 'config', 'user.email', 'demo@foreman.invalid');
  writeFileSync(join(dir, 'README.md'), '# Demo app\n\nA tiny project for trying Foreman.\n');
  writeFileSync(join(dir, 'src', 'app.js'), "console.log('demo app');\n");
  writeFileSync(join(dir, 'greeting-chain.md'), checklist);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'Demo app');
  cli(root, dir, 'init');
  cli(root, dir, 'worker', 'add', 'ada', '--agent', 'demo');
  cli(root, dir, 'worker', 'add', 'grace', '--agent', 'demo');
  cli(root, dir, 'chain', 'add', 'Greeting feature', '--from', join(dir, 'greeting-chain.md'));
  cli(
    root,
    dir,
    'task',
    'add',
    'Add a license file',
    '--id',
    'add-license',
    '--prompt',
    'write LICENSE MIT License — demo\nsleep 2000\ncommit Add license',
    '--manual',
  );
  return dir;
}
