/**
 * The smaller items of issue 28 through the real CLI: a `foreman.ack` deleted while `serve` runs is
 * written again by the owner (and the next open accepts the store); a directory in its place is
 * refused with exit 3, naming it and what to do, and following the advice leads back to a working
 * store; `wip restore --attempt 0` is a usage error (exit 2); a person given under a minute to answer
 * a tool call is told so in seconds.
 */
import assert from 'node:assert/strict';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readAckFile } from '../../../src/infra/db/ackFile';
import { pollUntil } from '../../support/pollUntil';
import { runProcess } from '../../support/runProcess';
import { baseEnv, cliPath, foreman, foremanJson, makeRepo, servedRepo } from './harness';

const ok = async (repo: string, args: readonly string[]): Promise<void> => {
  const run = await foreman(repo, args);
  assert.equal(run.code, 0, `foreman ${args.join(' ')}: ${run.stderr}`);
};

const taskIds = async (repo: string): Promise<string[]> =>
  (await foremanJson<{ tasks: Array<{ id: string }> }>(repo, ['status'])).tasks.map((task) => task.id).sort();

describe('foreman CLI: issue 28, smaller items', { timeout: 120_000 }, () => {
  it('has the owner write foreman.ack again when it is deleted while serve runs', async () => {
    const { repo, server } = await servedRepo([]);
    const dir = join(repo, '.foreman');
    try {
      await ok(repo, ['task', 'add', 'Before', '--id', 'before']);
      rmSync(join(dir, 'foreman.ack'));
      await ok(repo, ['task', 'add', 'After', '--id', 'after']);
      await pollUntil(() => server.output().includes('foreman.ack was deleted while the store was open'), {
        what: "the owner's log to say it wrote the mark again",
        detail: () => server.output(),
      });
      const mark = readAckFile(dir);
      assert.ok(mark.kind === 'seq' && mark.seq > 0, JSON.stringify(mark));
    } finally {
      assert.equal(await server.stop(), 0);
    }
    // Left missing, the next open would refuse the store for a lost mark.
    assert.deepEqual(await taskIds(repo), ['after', 'before']);
  });

  it('refuses a directory in place of foreman.ack with exit 3, naming it and what to do', async () => {
    const repo = makeRepo();
    await ok(repo, ['init']);
    await ok(repo, ['task', 'add', 'Kept', '--id', 'kept']);
    const file = join(repo, '.foreman', 'foreman.ack');
    rmSync(file);
    mkdirSync(file);
    const refused = await foreman(repo, ['status']);
    assert.equal(refused.code, 3, refused.stderr);
    assert.match(refused.stderr, new RegExp(`${file} is a directory, but Foreman keeps its acknowledged mark there`));
    assert.ok(refused.stderr.includes(`mv ${file} ${file}.aside`), refused.stderr);
    assert.doesNotMatch(refused.stderr, /unexpected|EISDIR/);

    // The advice, followed, leads to the next step and then to the store.
    renameSync(file, `${file}.aside`);
    const missing = await foreman(repo, ['status']);
    assert.equal(missing.code, 3);
    const accept = /run: echo (\d+) > (\S+)/.exec(missing.stderr);
    assert.ok(accept, missing.stderr);
    assert.equal(accept[2], file);
    writeFileSync(file, `${accept[1]}\n`);
    assert.deepEqual(await taskIds(repo), ['kept']);
  });

  it('refuses `wip restore --attempt 0` as a usage error (exit 2)', async () => {
    const repo = makeRepo();
    for (const attempt of ['0', '-3']) {
      const run = await foreman(repo, ['wip', 'restore', 'some-task', '--attempt', attempt]);
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, new RegExp(`--attempt: attempts are numbered from 1, got ${attempt}; \`foreman wip list\``));
    }
  });

  it('tells the agent in seconds that no one answered within a wait under a minute', async () => {
    const repo = makeRepo();
    for (const args of [
      ['init'],
      ['worker', 'add', 'w1'],
      ['task', 'add', 'Gated', '--id', 'gated', '--manual'],
      ['assign', 'w1', 'gated'],
      ['start', 'w1'],
    ])
      await ok(repo, args);
    const payload = JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'rm -rf build' } });
    const env = { ...baseEnv, FOREMAN_WORKER_ID: 'w1', FOREMAN_CLAUDE_ALLOWED_TOOLS: '["Read"]', FOREMAN_ANSWER_WAIT_MS: '1500' };
    const hook = await runProcess(process.execPath, [cliPath, 'hook', 'claude'], { cwd: repo, env, stdin: payload });
    assert.equal(hook.code, 0, hook.stderr);
    assert.match(hook.stdout, /"permissionDecision":"deny"/);
    assert.match(hook.stdout, /no one answered within 2 s; do without this tool call/);
  });
});
