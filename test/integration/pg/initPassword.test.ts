/**
 * `foreman init --store` and the password (issue 29), through the real CLI against the real
 * PostgreSQL: a URL that holds a password is refused (exit 2) before anything is made, since argv is
 * visible to every user in `ps`; `--password-stdin` reads it from stdin, connects with it and writes
 * it nowhere; in a terminal (a real pty) init asks for it without echoing it.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runProcess } from '../../support/runProcess';
import { type TestPostgres, createDatabase, startPostgres } from '../../support/postgres';
import { type Run, baseEnv, cliPath, foreman, makeRepo, tempFolder } from '../cli/harness';

let server: TestPostgres;
let databases = 0;

before(async () => {
  server = await startPostgres();
});
after(async () => {
  await server?.stop();
});

/** A fresh database on the test server: its URL without the password. */
function database(): string {
  const url = new URL(createDatabase(server.url, `init_password${++databases}`));
  url.password = '';
  return url.toString();
}

function assertNoPassword(run: Run, what: string): void {
  assert.ok(!`${run.stdout}${run.stderr}`.includes(server.password), `${what} shows the password: ${run.stdout}${run.stderr}`);
}

function assertNothingMade(repo: string): void {
  assert.equal(fs.existsSync(path.join(repo, '.foreman')), false, 'init made .foreman/ although it refused');
}

describe('init --store and the password', () => {
  it('refuses a URL that holds a password with exit 2, naming --password-stdin, before making anything', async () => {
    const bare = database();
    const repo = makeRepo();
    const inUserInfo = new URL(bare);
    inUserInfo.password = server.password;
    const inParameter = new URL(bare);
    inParameter.searchParams.set('password', server.password);
    for (const url of [inUserInfo.toString(), inParameter.toString()]) {
      const run = await foreman(repo, ['init', '--store', url]);
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, /--store: the URL holds a password/);
      assert.match(run.stderr, /visible to every user of this machine \(ps\)/);
      assert.match(run.stderr, /--password-stdin/);
      assertNoPassword(run, 'the refusal');
      assertNothingMade(repo);
    }
    const json = await foreman(repo, ['init', '--store', inUserInfo.toString(), '--json']);
    assert.equal(json.code, 2);
    assert.equal((JSON.parse(json.stdout) as { error: { code: string } }).error.code, 'passwordInArgv');
    assertNoPassword(json, 'the refusal in JSON');
  });

  it('--password-stdin connects with the password read from stdin and writes it nowhere', async () => {
    const bare = database();
    const repo = makeRepo();
    const init = await foreman(repo, ['init', '--store', bare, '--password-stdin'], { stdin: `${server.password}\n` });
    assert.equal(init.code, 0, init.stderr);
    assert.match(init.stdout, /initialised Foreman in .* on postgres:\/\//);
    assert.match(init.stderr, /the password was used for this connection only and written nowhere\. Give it to each process .* PGPASSWORD/);
    assertNoPassword(init, 'init');
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(repo, '.foreman', 'store.json'), 'utf8')), { kind: 'postgres', url: bare });
    for (const entry of fs.readdirSync(path.join(repo, '.foreman'), { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) assert.ok(!fs.readFileSync(path.join(entry.parentPath, entry.name)).includes(server.password), entry.name);
    }
    // The schema is there: the next process connects with the password where it belongs.
    assert.equal((await foreman(repo, ['worker', 'add', 'ada'])).code, 3, 'no password kept for the next process');
    const added = await foreman(repo, ['worker', 'add', 'ada'], { env: { PGPASSWORD: server.password } });
    assert.equal(added.code, 0, added.stderr);
  });

  it('--password-stdin is refused without a server, or with nothing or several lines on stdin', async () => {
    const bare = database();
    const repo = makeRepo();
    const cases: Array<[string[], string, RegExp]> = [
      [['init', '--password-stdin'], 'x\n', /--password-stdin: only with --store postgres:\/\//],
      [['init', '--store', 'sqljs', '--password-stdin'], 'x\n', /--password-stdin: only with --store postgres:\/\//],
      [['init', '--store', bare, '--password-stdin'], '', /--password-stdin: stdin held no password/],
      [['init', '--store', bare, '--password-stdin'], 'one\ntwo\n', /--password-stdin: stdin holds several lines/],
    ];
    for (const [args, stdin, message] of cases) {
      const run = await foreman(repo, args, { stdin });
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, message);
      assertNothingMade(repo);
    }
  });

  it('asks for the password in a terminal without echoing it, and not at all when PGPASSWORD has one', async (context) => {
    if (!hasPython()) {
      context.skip('python3 (for a pseudo-terminal) is not installed');
      return;
    }
    const bare = database();
    const asked = await inTerminal(makeRepo(), ['init', '--store', bare], { answer: server.password });
    assert.equal(asked.code, 0, `${asked.stdout}${asked.stderr}`);
    assert.match(asked.stdout, /Password for foreman at 127\.0\.0\.1:\d+\/init_password\d+ \(not shown\): /);
    assert.match(asked.stdout, /initialised Foreman in .* on postgres:\/\//);
    assert.ok(!asked.stdout.includes(server.password), `the terminal showed the password: ${asked.stdout}`);

    const repo = makeRepo();
    const silent = await inTerminal(repo, ['init', '--store', bare], { env: { PGPASSWORD: server.password } });
    assert.equal(silent.code, 0, `${silent.stdout}${silent.stderr}`);
    assert.doesNotMatch(silent.stdout, /Password for/);
    assert.ok(fs.existsSync(path.join(repo, '.foreman', 'store.json')));
  });
});

function hasPython(): boolean {
  try {
    execFileSync('python3', ['-c', 'import pty'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs `foreman <args>` on a pseudo-terminal (Python's pty module; argv only), typing `answer`
 * (from the runner's environment, never its argv) once the prompt shows. Stdout is what the
 * terminal showed, the command's stdout and stderr together.
 */
function inTerminal(repo: string, args: readonly string[], options: { answer?: string; env?: Record<string, string> }): Promise<Run> {
  const runner = path.join(tempFolder(), 'on_a_terminal.py');
  fs.writeFileSync(
    runner,
    `import os, pty, select, sys, time
answer = os.environ.pop('PTY_ANSWER', None)
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
shown = b''
sent = False
deadline = time.time() + 60
while time.time() < deadline:
    ready, _, _ = select.select([fd], [], [], 0.2)
    if fd not in ready:
        continue
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    shown += chunk
    if answer is not None and not sent and b'(not shown): ' in shown:
        os.write(fd, answer.encode() + b'\\r')
        sent = True
_, status = os.waitpid(pid, 0)
sys.stdout.buffer.write(shown)
sys.exit(os.waitstatus_to_exitcode(status))
`,
  );
  return runProcess('python3', [runner, process.execPath, cliPath, ...args], {
    cwd: repo,
    env: { ...baseEnv, ...options.env, ...(options.answer !== undefined ? { PTY_ANSWER: options.answer } : {}) },
  });
}
