/**
 * Foreman's deterministic demo agent: `node demo-agent.js <promptFile>` in a worktree. It follows
 * the directives in its prompt (see demoDirectives.ts) so demos and tests can make an agent edit,
 * commit, report progress, fail, crash, hang or stay silent on cue. With no directive it makes one
 * small change and commits it. It talks to Foreman only through the `foreman` CLI on its PATH, like
 * any agent. Node builtins only, so it runs bundled (dist/demo-agent.js) or from source with tsx.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
// Raw timers (eslint.config.mjs rawTimerFiles): a child process of its own, Node built-ins only, with no engine clock.
import { setTimeout as sleep } from 'node:timers/promises';
import { type Directive, firstPromptLine, mentionsMergeConflict, parsePrompt, remainingDirectives } from './demoDirectives';
import { DemoGit } from './demoGit';

const environment = process.env;
const taskId = environment['FOREMAN_TASK_ID'] ?? 'task';
const workerId = environment['FOREMAN_WORKER_ID'];
const attempt = environment['FOREMAN_ATTEMPT'];
const worktree = process.cwd();

function say(line: string): void {
  process.stdout.write(`demo-agent: ${line}\n`);
}

const git = new DemoGit(worktree, say);

/** Heartbeats are best effort: Foreman may be restarting, and the supervisor also beats for us. */
function heartbeat(progress?: number, edited?: string): void {
  if (!workerId) {
    say('heartbeat skipped: FOREMAN_WORKER_ID is not set');
    return;
  }
  const args = ['heartbeat', workerId];
  if (progress !== undefined) args.push('--progress', String(progress));
  if (attempt) args.push('--attempt', attempt);
  // What it edited, as Claude's and Codex's edit events say it: the overlap check counts it at once.
  if (edited !== undefined) args.push('--activity', `Edit: ${edited}`, '--touched', edited);
  const result = spawnSync('foreman', args, { encoding: 'utf8', shell: false, timeout: 10_000, stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.error) say(`heartbeat failed: ${result.error.message}`);
  else if (result.status !== 0) say(`heartbeat failed (exit ${result.status}): ${(result.stderr || result.stdout).trim()}`);
}

/** Paths come from the prompt: they must stay inside the worktree and out of git's own files. */
function worktreeFile(path: string): string {
  const file = resolve(worktree, path);
  const inside = relative(worktree, file);
  const escapes = inside === '' || inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside);
  if (escapes || inside.split(sep)[0] === '.git') {
    throw new Error(`refusing to write '${path}': it is not a file inside the worktree`);
  }
  mkdirSync(dirname(file), { recursive: true });
  return file;
}

/** Lines are numbered from 1; a missing file or line is created, padded with empty lines. */
function replaceLine(path: string, lineNumber: number, text: string): void {
  const file = worktreeFile(path);
  const content = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const endsWithNewline = content === '' || content.endsWith('\n');
  const lines = (content.endsWith('\n') ? content.slice(0, -1) : content).split('\n');
  while (lines.length < lineNumber) lines.push('');
  lines[lineNumber - 1] = text;
  writeFileSync(file, lines.join('\n') + (endsWithNewline ? '\n' : ''));
}

/** How often `wait-for` looks for its file. */
const waitPollMs = 100;

function forever(): Promise<never> {
  // A pending promise alone would let node exit; the timer keeps the process (and its silence) alive.
  setInterval(() => undefined, 1 << 30);
  return new Promise<never>(() => undefined);
}

/** Runs one directive, then heartbeats (progress heartbeats itself; leaving directives never return). */
async function perform(directive: Directive): Promise<void> {
  switch (directive.kind) {
    case 'write':
      say(`write ${directive.path}`);
      writeFileSync(worktreeFile(directive.path), `${directive.text}\n`);
      heartbeat(undefined, directive.path);
      return;
    case 'append':
      say(`append to ${directive.path}`);
      appendFileSync(worktreeFile(directive.path), `${directive.text}\n`);
      heartbeat(undefined, directive.path);
      return;
    case 'replace-line':
      say(`replace line ${directive.line} of ${directive.path}`);
      replaceLine(directive.path, directive.line, directive.text);
      heartbeat(undefined, directive.path);
      return;
    case 'commit':
      git.commitAll(directive.message);
      break;
    case 'sleep':
      say(`sleep ${directive.ms} ms`);
      await sleep(directive.ms);
      break;
    case 'wait-for': {
      say(`waiting for ${directive.path}`);
      // A heartbeat every 2 s, as a working agent gives, so a long wait is not taken for a stall.
      for (let waited = 0; !existsSync(resolve(directive.path)); waited += waitPollMs) {
        if (waited % 2000 === 0) heartbeat();
        await sleep(waitPollMs);
      }
      break;
    }
    case 'progress':
      say(`progress ${directive.value}`);
      heartbeat(directive.value);
      return;
    case 'fail':
      say(`failing: ${directive.reason}`);
      process.stderr.write(`demo-agent: failed: ${directive.reason}\n`);
      return process.exit(1);
    case 'crash':
      say('crashing now (SIGKILL), leaving the worktree as it is');
      process.kill(process.pid, 'SIGKILL');
      return forever();
    case 'hang':
      say('hanging: heartbeats every 2 s, no progress, forever');
      for (;;) {
        heartbeat();
        await sleep(2000);
      }
    case 'silent':
      say('going silent: no output, no heartbeats, forever');
      return forever();
    case 'exit':
      say(`exiting with ${directive.code}`);
      return process.exit(directive.code);
  }
  heartbeat();
}

/** No directives: one small, task-specific change, so every task of a demo crew produces a commit. */
function defaultChange(prompt: string): void {
  const path = `demo/${taskId}.md`;
  say(`no directives: writing ${path}`);
  writeFileSync(worktreeFile(path), `# ${taskId}\n\n${firstPromptLine(prompt)}\n`);
  git.commitAll(`demo: ${taskId}`);
  heartbeat();
}

async function main(): Promise<void> {
  const promptFile = process.argv[2];
  if (!promptFile) {
    process.stderr.write('usage: demo-agent <promptFile>  (run in the worktree)\n');
    process.exit(2);
  }
  const prompt = readFileSync(promptFile, 'utf8');
  say(`task ${taskId}, attempt ${attempt ?? '?'}, worker ${workerId ?? '?'}, in ${worktree}`);
  heartbeat();

  const base = environment['FOREMAN_BASE'];
  const onto = environment['FOREMAN_REBASE_ONTO'] || base;
  if (mentionsMergeConflict(prompt) || environment['FOREMAN_REBASE_ONTO']) {
    if (!onto) throw new Error('asked to resolve a merge conflict, but neither FOREMAN_REBASE_ONTO nor FOREMAN_BASE names the base');
    git.rebaseKeepingBoth(onto);
    heartbeat();
  }

  const { directives, unreadable } = parsePrompt(prompt);
  for (const line of unreadable) say(`ignoring unreadable directive: ${line}`);
  if (directives.length === 0) {
    defaultChange(prompt);
  } else {
    const { remaining, skipped } = remainingDirectives(directives, git.subjectsSince(onto));
    if (skipped > 0) say(`skipping ${skipped} directive(s) already done: their commits are on the branch`);
    for (const directive of remaining) await perform(directive);
  }
  say('done');
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`demo-agent: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
