/**
 * The README's command-line walkthrough, run line by line as written, so README and product cannot
 * drift (issue 11, item 8). The block after the `<!-- walkthrough: … -->` marker is read from
 * README.md; each line is split into an argv (no shell) and run in a fresh git repository, with
 * `foreman` found on PATH the way `npm link` puts it there: a link to bin/foreman. The agent is the
 * built-in `demo` profile following examples/plan.md, so no model is needed.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { copyFileSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runProcess } from '../../support/runProcess';
import { baseEnv, foreman, foremanJson, makeRepo, tempFolder } from './harness';

const projectRoot = join(__dirname, '..', '..', '..');
/** The README's placeholder for this checkout's folder. */
const projectPlaceholder = '/path/to/foreman';

interface Step {
  readonly text: string;
  readonly argv: readonly string[];
  /** A line ending in `&`: started, left running, stopped at the end. */
  readonly background: boolean;
}

/** The lines of the fenced block that follows the walkthrough marker. */
function walkthroughLines(readme: string): string[] {
  const lines = readme.split('\n');
  const marker = lines.findIndex((line) => line.startsWith('<!-- walkthrough:'));
  assert.ok(marker >= 0, 'README.md has no <!-- walkthrough: … --> marker');
  const open = marker + 1;
  assert.match(lines[open] ?? '', /^```sh$/, 'the walkthrough marker is followed by a ```sh block');
  const close = lines.findIndex((line, index) => index > open && line === '```');
  assert.ok(close > open, 'the walkthrough block is closed');
  return lines.slice(open + 1, close).filter((line) => line.trim() !== '');
}

/** Words separated by blanks, "double quotes" kept together, a `#` comment dropped: what the block uses, nothing more. */
function toStep(text: string): Step {
  const words: string[] = [];
  const pattern = /"([^"]*)"|(\S+)/g;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    if (match[2]?.startsWith('#')) break;
    words.push(match[1] ?? match[2]!);
  }
  const background = words[words.length - 1] === '&';
  const argv = (background ? words.slice(0, -1) : words).map((word) => word.replace(projectPlaceholder, projectRoot));
  for (const word of argv) assert.doesNotMatch(word, /^(&&|\||;|>|<|\$)/, `"${text}": the walkthrough runs without a shell`);
  return { text, argv, background };
}

describe('README walkthrough', () => {
  it('runs line by line in a fresh repository, as written', async () => {
    const steps = walkthroughLines(readFileSync(join(projectRoot, 'README.md'), 'utf8')).map(toStep);
    assert.ok(steps.length >= 5, 'the walkthrough has its commands');
    const bin = tempFolder();
    symlinkSync(join(projectRoot, 'bin', 'foreman'), join(bin, 'foreman'));
    const env = { ...baseEnv, PATH: `${bin}:${baseEnv['PATH'] ?? ''}` };
    const repo = makeRepo();
    const background: ChildProcess[] = [];
    const outputs: string[] = [];
    try {
      for (const step of steps) {
        assert.equal(step.argv[0], 'foreman', `"${step.text}": the walkthrough only runs foreman`);
        if (step.background) {
          const child = spawn(step.argv[0], step.argv.slice(1), { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] });
          child.stdout.resume();
          child.stderr.resume();
          background.push(child);
          continue;
        }
        const run = await runProcess(step.argv[0], step.argv.slice(1), { cwd: repo, env });
        outputs.push(`$ ${step.text}\n${run.stdout}${run.stderr}`);
        assert.equal(run.code, 0, `"${step.text}" exited ${run.code}:\n${outputs.join('\n')}`);
      }
    } finally {
      for (const child of background) {
        const exited = new Promise((resolve) => child.on('close', resolve));
        if (child.exitCode === null) child.kill('SIGTERM');
        await exited;
      }
    }

    const merges = outputs.filter((output) => output.startsWith('$ foreman merge'));
    assert.equal(merges.length, 2);
    assert.match(merges[0]!, /merged task "Add a greeting" \(\S+\) from branch ada\/\S+ into main\nmain is now at [0-9a-f]{12}/);
    assert.match(merges[1]!, /merged task "Sign the greeting"/);
    assert.equal(readFileSync(join(repo, 'greeting.txt'), 'utf8'), 'Hello from Foreman\n— the crew\n');
    const log = execFileSync('git', ['log', '--format=%s', 'main'], { cwd: repo, encoding: 'utf8' });
    assert.match(log, /^Sign the greeting\nAdd a greeting\n/);
    const status = await foremanJson<{ tasks: Array<{ title: string; status: string }> }>(repo, ['status']);
    assert.deepEqual(
      status.tasks.map((task) => [task.title, task.status]),
      [
        ['Greeting', 'done'],
        ['Add a greeting', 'done'],
        ['Sign the greeting', 'done'],
      ],
    );
  });

  it('ships a settings file for headless owners that Foreman reads as it is', async () => {
    const repo = makeRepo();
    assert.equal((await foreman(repo, ['init'])).code, 0);
    const settings = join(repo, '.foreman', 'settings.json');
    copyFileSync(join(projectRoot, 'examples', 'settings.json'), settings);
    const run = await foreman(repo, ['status']);
    assert.equal(run.code, 0, run.stderr);
    // The same file with a misspelt key is refused, so the check above did read it.
    const misspelt = readFileSync(settings, 'utf8').replace('"staleMs"', '"staleMS"');
    writeFileSync(settings, misspelt);
    const refused = await foreman(repo, ['status']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /settings\.json/);
  });
});
