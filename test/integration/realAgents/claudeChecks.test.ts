/**
 * The real Claude Code CLI on a failed check (issue 32, docs/handoff.md): in a `pull-request`
 * workspace against the scripted GitHub (test/support/scriptedForge.ts) whose CI fails the first
 * commit, `autoFixChecks` sends the failing job's log to the agent, and the real CLI's resumed
 * session carries it to the model (the scripted model server, the only stand-in) with the earlier
 * turns; its fix goes to the same pull request.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { test } from 'node:test';
import { claudeBinary, claudeEnvironment, makeHome } from '../../support/agentCli';
import { ScriptedForge } from '../../support/scriptedForge';
import { startScriptedModel } from '../../support/scriptedModel';
import { CrewRepo, gitIn, makeCrew, sandboxPath } from '../crew/crewHarness';
import { taskOf } from '../crew/forgeHandoff';
import { conversations } from './realCrew';

const token = 'ghp_scripted_real_claude';

test(
  'a failed check reaches the real Claude CLI in its resumed session, and its fix goes to the same pull request',
  { timeout: 180_000 },
  async () => {
    const model = await startScriptedModel();
    const home = makeHome();
    const bare = sandboxPath(`claude-checks-origin-${process.pid}.git`);
    execFileSync('git', ['init', '--quiet', '--bare', '-b', 'main', bare]);
    const forge = await ScriptedForge.start({ bareRepo: bare, owner: 'octo-org', repo: 'app', tokens: { [token]: ['repo'] } });
    // CI fails the first commit it sees, with a log naming the failure; the next passes.
    let failedSha: string | undefined;
    forge.checksFor = (_pull, sha) => {
      failedSha ??= sha;
      return sha === failedSha
        ? [{ name: 'unit tests', conclusion: 'failure', log: 'npm test\nFAIL sum.test.js: expected sum.txt to hold 4, it holds 5' }]
        : [{ name: 'unit tests', conclusion: 'success' }];
    };
    const env = Object.fromEntries(
      Object.entries(claudeEnvironment(model.url, home)).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    );
    const made = await makeCrew({
      settings: {
        agents: { claude: { kind: 'claude', command: claudeBinary, env } },
        handoff: 'pull-request',
        forge: { repository: 'octo-org/app', apiUrl: forge.url, pollMs: 200 },
        autoFixChecks: 1,
      },
    });
    gitIn(made.root, ['remote', 'add', 'origin', bare]);
    gitIn(made.root, ['push', '--quiet', 'origin', 'main']);
    const crew = new CrewRepo(made.root, made.worktreeRoot, { GITHUB_TOKEN: token });
    await crew.ok(['worker', 'add', 'ada', '--agent', 'claude']);
    model.play([{ bash: 'echo 5 > sum.txt' }, { text: 'Wrote sum.txt.' }]);
    await crew.addTask('sum', 'Write the sum', 'Write the sum of 2 and 2 to sum.txt.');
    const server = await crew.serve();
    try {
      await crew.waitForWorker('ada', 'IN_REVIEW', server, 60_000);
      const before = conversations(model).length;
      model.play([{ bash: 'echo 4 > sum.txt' }, { text: 'Fixed sum.txt: it holds 4.' }]);
      await crew.ok(['approve', 'ada']);
      const fixed = await crew.waitFor(
        'the fix in review',
        (s) => crew.worker(s, 'ada').state === 'IN_REVIEW' && crew.worker(s, 'ada').note !== null,
        90_000,
        server,
      );
      assert.match(crew.worker(fixed, 'ada').note ?? '', /FAIL sum\.test\.js/);
      const followUp = conversations(model)
        .slice(before)
        .find((request) => request.includes('FAIL sum.test.js'));
      assert.ok(followUp, 'the model saw the failing log');
      assert.match(followUp, /Write the sum of 2 and 2 to sum\.txt/, 'in the resumed session, with the earlier turns');
      assert.match(followUp, /Check \\"unit tests\\" failed/);
      assert.ok((await crew.transitions()).some((t) => t.trigger === 'checkFailed' && t.entity_id === 'ada'));

      await crew.ok(['approve', 'ada']);
      assert.equal(forge.pulls.length, 1, 'the fix went to the same pull request');
      await crew.waitFor('checks green', (s) => taskOf(s, 'sum').pullRequest?.checks?.state === 'success', 30_000, server);
      assert.equal(execFileSync('git', ['show', `${forge.pull(1)?.head ?? ''}:sum.txt`], { cwd: bare, encoding: 'utf8' }).trim(), '4');
    } finally {
      await server.stop();
      await forge.stop();
      await model.close();
      rmSync(home, { recursive: true, force: true });
    }
  },
);
