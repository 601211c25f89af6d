/**
 * The thin CLI (dist/cli.js, src/cli/thin.ts) against a real `foreman serve`. Each command runs
 * twice: through a copy of dist/cli.js alone in a folder of its own, which fails if it has to load
 * the full CLI (so a success proves the thin path answered), and through dist/cli-local.js, the
 * full CLI, as the reference: output and exit codes must be the same. Command lines the thin CLI
 * leaves to the full one (an unknown command, a request the owner refuses to parse, no owner) must
 * come out of the real dist/cli.js exactly as out of the full CLI.
 */
import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runProcess, type Run } from '../../support/runProcess';
import { readAnnouncement } from '../../../src/infra/endpoint';
import { type Server, baseEnv, cliPath, foreman, makeRepo, servedRepo, tempFolder } from './harness';

const fullCliPath = join(cliPath, '..', 'cli-local.js');
const thinOnlyPath = join(tempFolder(), 'cli.js');
copyFileSync(cliPath, thinOnlyPath);

type Cli = 'thinOnly' | 'real' | 'full';
const paths: Record<Cli, string> = { thinOnly: thinOnlyPath, real: cliPath, full: fullCliPath };

/**
 * Heartbeat ages move between two calls; everything else must match. A table is compared by its
 * cells, not its spacing: an age that gains a digit between the calls ("9s ago", "10s ago") widens
 * its column and moves every cell after it. Columns are two spaces apart and a cell never holds two
 * spaces in a row (`cell` in src/cli/table.ts), so splitting at two spaces gives the cells back.
 */
const withoutAges = (text: string): string =>
  text
    .split('\n')
    .map((line) => line.split(/ {2,}/).map((cell) => cell.replace(/\d+(h\d+m|m\d+s|s) ago/g, 'N ago')).join(' | '))
    .join('\n');

describe('foreman CLI: the thin client through a real owner', { timeout: 180_000 }, () => {
  let repo = '';
  let server: Server | undefined;
  const run = (cli: Cli, args: readonly string[], env: Record<string, string> = {}, cwd = repo, stdin?: string): Promise<Run> =>
    runProcess(process.execPath, [paths[cli], ...args], { cwd, env: { ...baseEnv, ...env }, ...(stdin === undefined ? {} : { stdin }) });
  /** The thin CLI alone answered, exactly as the full CLI does. */
  const sameThroughThin = async (args: readonly string[], env: Record<string, string> = {}): Promise<Run> => {
    const thin = await run('thinOnly', args, env);
    const full = await run('full', args, env);
    assert.deepEqual(
      { code: thin.code, stdout: withoutAges(thin.stdout), stderr: withoutAges(thin.stderr) },
      { code: full.code, stdout: withoutAges(full.stdout), stderr: withoutAges(full.stderr) },
      `foreman ${args.join(' ')}`,
    );
    return thin;
  };
  /** The thin CLI handed the call over (its lone copy cannot), and dist/cli.js ends it as the full CLI does. */
  const sameThroughFull = async (args: readonly string[], env: Record<string, string> = {}): Promise<Run> => {
    const alone = await run('thinOnly', args, env);
    assert.notEqual(alone.code, 0);
    assert.match(alone.stderr, /cli-local\.js/, `foreman ${args.join(' ')} should be left to the full CLI`);
    const real = await run('real', args, env);
    const full = await run('full', args, env);
    assert.deepEqual(real, full, `foreman ${args.join(' ')}`);
    return real;
  };

  before(async () => {
    ({ repo, server } = await servedRepo(['w1']));
  });
  after(async () => {
    assert.equal(await server?.stop(), 0);
  });

  it('answers task add, heartbeat and status itself, as the full CLI would', async () => {
    const added = await run('thinOnly', ['task', 'add', 'Write the docs', '--id', 'docs-1', '--manual']);
    const reference = await run('full', ['task', 'add', 'Write the docs', '--id', 'docs-2', '--manual']);
    assert.deepEqual(added, { code: 0, stdout: 'task docs-1: idle "Write the docs"\n', stderr: '' });
    assert.deepEqual({ ...reference, stdout: reference.stdout.replace('docs-2', 'docs-1') }, added);

    const beat = await sameThroughThin(['heartbeat', 'w1', '--progress', '0.5']);
    assert.deepEqual(beat, { code: 0, stdout: 'heartbeat from w1 (IDLE, attempt 0)\n', stderr: '' });
    await sameThroughThin(['heartbeat', '--json'], { FOREMAN_WORKER_ID: 'w1' });

    const status = await sameThroughThin(['status']);
    assert.match(status.stdout, /^w1 +IDLE/m);
    assert.match(status.stdout, /^docs-1 +idle/m);
    await sameThroughThin(['status', '--status', 'idle', '--limit', '1']);
    await sameThroughThin(['worker', 'list']);
    await sameThroughThin(['transitions', '--entity', 'docs-1', '--json']);
  });

  it('prints a refusal with its message and exit code, on stderr or as JSON', async () => {
    const refused = await sameThroughThin(['approve', 'w1']);
    assert.equal(refused.code, 3);
    assert.match(refused.stderr, /^foreman: 'w1': A worker in IDLE cannot approve/);
    const json = await sameThroughThin(['approve', 'w1', '--json']);
    assert.equal(JSON.parse(json.stdout).error.code, 'illegalTransition');
    const missing = await sameThroughThin(['retry', 'no-such-task']);
    assert.equal(missing.code, 4);
    const duplicate = await sameThroughThin(['task', 'add', 'Again', '--id', 'docs-1']);
    assert.notEqual(duplicate.code, 0);
  });

  it('reaches the owner through FOREMAN_ENDPOINT and FOREMAN_TOKEN from outside the repository', async () => {
    const announced = readAnnouncement(join(repo, '.foreman'));
    assert.ok(announced);
    const env = { FOREMAN_ENDPOINT: announced.info.socketPath, FOREMAN_TOKEN: announced.token, FOREMAN_WORKER_ID: 'w1' };
    const outside = tempFolder();
    const beat = await run('thinOnly', ['heartbeat', '--status', 'idle'], env, outside);
    assert.deepEqual(beat, { code: 0, stdout: 'heartbeat from w1 (IDLE, attempt 0)\n', stderr: '' });
  });

  it("refuses a bad command line itself, with the full CLI's message and exit code", async () => {
    const badNumber = await sameThroughThin(['heartbeat', 'w1', '--progress', 'abc']);
    assert.deepEqual(badNumber, { code: 2, stdout: '', stderr: "foreman: --progress: expected a number, got 'abc'.\n" });
    assert.equal((await sameThroughThin(['heartbeat', 'w1', '--bogus'])).code, 2);
    assert.equal((await sameThroughThin(['approve'])).code, 2);
    assert.equal((await sameThroughThin(['status', '--limit', 'many', '--json'])).code, 2);
  });

  it('leaves unknown commands, and requests the owner will not parse, to the full CLI', async () => {
    assert.equal((await sameThroughFull(['hartbeat', 'w1'])).code, 2);
    assert.equal((await sameThroughFull(['heartbeat'], { FOREMAN_WORKER_ID: 'Not An Id' })).code, 2);
    // Sent, and refused by the owner's zod contract before it ran: the full CLI says it in its own words.
    const badStatus = await sameThroughFull(['heartbeat', 'w1', '--status', 'bogus']);
    assert.equal(badStatus.code, 2);
    assert.match(badStatus.stderr, /^foreman: heartbeat: status: /);
    assert.equal((await sameThroughFull(['status'], { FOREMAN_TOKEN: 'nope', FOREMAN_ENDPOINT: server?.socketPath ?? '' })).code, 2);
    // Commands only the full CLI carries out.
    assert.equal((await sameThroughFull(['help', 'heartbeat'])).code, 0);
    assert.equal((await sameThroughFull(['--version'])).code, 0);
  });

  /** A worker with a started task, whose activity status shows (a hook's heartbeats are its agent's). */
  let hookWorker: Promise<void> | undefined;
  const startHookWorker = (): Promise<void> =>
    (hookWorker ??= (async () => {
      for (const args of [
        ['worker', 'add', 'w-hook'],
        ['task', 'add', 'Hooked', '--id', 'hooked', '--manual'],
        ['assign', 'w-hook', 'hooked'],
        ['start', 'w-hook'],
      ]) {
        const done = await foreman(repo, args);
        assert.equal(done.code, 0, `foreman ${args.join(' ')}: ${done.stderr}`);
      }
    })());
  const hookActivity = async (): Promise<string | undefined> => {
    const status = JSON.parse((await foreman(repo, ['status', '--json'])).stdout) as {
      workers: Array<{ id: string; activity: { text: string } | null }>;
    };
    return status.workers.find((worker) => worker.id === 'w-hook')?.activity?.text;
  };

  it('answers `hook claude` itself: the owner reads the payload with its contract, and says what it refuses', async () => {
    await startHookWorker();
    const agent = { FOREMAN_WORKER_ID: 'w-hook', FOREMAN_ATTEMPT: '1' };
    const hook = (cli: Cli, payload: unknown, env: Record<string, string> = agent) =>
      run(cli, ['hook', 'claude'], env, repo, typeof payload === 'string' ? payload : JSON.stringify(payload));
    const toolCall = { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'npm test' } };
    assert.deepEqual(await hook('thinOnly', toolCall), { code: 0, stdout: '', stderr: '' });
    assert.equal(await hookActivity(), 'Bash: npm test');
    const turnEnd = { hook_event_name: 'Stop', last_assistant_message: 'Done.' };
    assert.deepEqual(await hook('thinOnly', turnEnd), await hook('full', turnEnd));
    assert.equal(await hookActivity(), 'finished: Done.');

    const bad = await hook('thinOnly', { hook_event_name: 7, tool_name: 'Bash' });
    assert.equal(bad.code, 0, 'a hook never blocks the agent by accident');
    assert.match(bad.stderr, /^foreman hook: heartbeat: claudeHook\.hook_event_name: not a Claude Code hook payload/);
    assert.equal(await hookActivity(), 'finished: Done.', 'a refused payload changes nothing');
  });

  it('leaves `hook claude` to the full CLI, payload and all, for a call that waits for a person', async () => {
    await startHookWorker();
    const gated = { FOREMAN_WORKER_ID: 'w-hook', FOREMAN_CLAUDE_ALLOWED_TOOLS: '["Read"]', FOREMAN_ANSWER_WAIT_MS: '1' };
    const payload = JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'rm -rf build' } });
    const alone = await run('thinOnly', ['hook', 'claude'], gated, repo, payload);
    assert.match(alone.stderr, /cli-local\.js/);
    // The full CLI got the payload the thin one had read: it asked about this very call, and denied it.
    const real = await run('real', ['hook', 'claude'], gated, repo, payload);
    assert.equal(real.code, 0, real.stderr);
    assert.match(real.stdout, /"permissionDecision":"deny"/);
    assert.equal(await hookActivity(), 'no answer to: permission to use Bash: rm -rf build');
    const agent = { FOREMAN_WORKER_ID: 'w-hook' };
    const notJson = await run('real', ['hook', 'claude'], agent, repo, 'not json');
    assert.match(notJson.stderr, /^foreman hook: stdin is not JSON/);
    assert.deepEqual(notJson, await run('full', ['hook', 'claude'], agent, repo, 'not json'));
  });

  it('leaves a workspace nobody owns to the full CLI, which runs the request itself', async () => {
    const unowned = makeRepo();
    assert.equal((await foreman(unowned, ['init'])).code, 0);
    const alone = await run('thinOnly', ['task', 'add', 'Nobody owns this', '--id', 'solo'], {}, unowned);
    assert.match(alone.stderr, /cli-local\.js/);
    const real = await run('real', ['task', 'add', 'Nobody owns this', '--id', 'solo'], {}, unowned);
    assert.deepEqual(real, { code: 0, stdout: 'task solo: queued "Nobody owns this"\n', stderr: '' });
    assert.deepEqual(await run('real', ['status'], {}, unowned), await run('full', ['status'], {}, unowned));
  });
});
