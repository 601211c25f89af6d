// Creates (or reuses) the demo repository `npm start` opens: a small git project with Foreman
// initialised, two demo workers and a short chain whose prompts the demo agent understands.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

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

/** Returns the demo repository's path; builds it on first use. */
export function ensureDemoRepo(root, dir = defaultDemoDir()) {
  if (existsSync(join(dir, '.foreman'))) return dir;
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
