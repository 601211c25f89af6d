/**
 * The `pull-request` hand-off (issue 32, docs/handoff.md) through `foreman serve` and the CLI with
 * GITHUB_TOKEN, against a scripted GitHub (test/support/scriptedForge.ts: GitHub itself is out of
 * reach offline) driven by the real @octokit/rest, and a real bare repository as `origin`. Workers
 * run the demo agent. Waiting is polling `foreman status --json`. The scenarios, shared with
 * GitLab's merge requests, are in forgeHandoff.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ScriptedForge } from '../../support/scriptedForge';
import { conflictSent, reviewCommentsSent } from './forgeFeedback';
import { type ForgeUnderTest, badTokens, closedOnForge, failedCheckAutoFixed, failureSentByHand, stackedChain } from './forgeHandoff';

const owner = 'octo-org';
const repo = 'app';
const goodToken = 'ghp_scripted_good_token';
const weakToken = 'ghp_scripted_no_repo_scope';

const gitHub: ForgeUnderTest<ScriptedForge> = {
  requestName: 'pull request',
  mergerName: 'the forge',
  filePrefix: '',
  tokenEnv: 'GITHUB_TOKEN',
  goodToken,
  start: (bareRepo) => ScriptedForge.start({ bareRepo, owner, repo, tokens: { [goodToken]: ['repo'], [weakToken]: ['read:user'] } }),
  settings: (forge) => ({ repository: `${owner}/${repo}`, apiUrl: forge.url, pollMs: 200 }),
  request: (forge, number) => forge.pull(number),
  count: (forge) => forge.pulls.length,
  failChecks: (forge, name, log) => {
    forge.checksFor = () => [{ name, conclusion: 'failure', log }];
  },
  comment: (forge, number, comment) => forge.comment(number, comment),
};

test('a chain of two tasks becomes two stacked pull requests; each merged on the forge, both tasks end done', { timeout: 180_000 }, () =>
  stackedChain(gitHub, {
    firstOpened: async ({ crew, worker }) => {
      // A local merge would land it twice: the forge merges it.
      const merge = await crew.foreman(['merge', worker]);
      assert.equal(merge.code, 3, merge.stdout + merge.stderr);
      assert.match(merge.stderr + merge.stdout, /pull request #1/);
    },
  }),
);

test('a pull request closed on the forge sends the task back to review', { timeout: 120_000 }, () => closedOnForge(gitHub));

test('a failed check reaches the agent (autoFixChecks), whose fix goes to the same pull request', { timeout: 120_000 }, () =>
  failedCheckAutoFixed(gitHub, {
    // CI fails the first commit; its log ends with the lines the demo agent acts on.
    failFirstLint: (forge) => {
      let failedSha: string | undefined;
      forge.checksFor = (_pull, sha) => {
        failedSha ??= sha;
        return sha === failedSha
          ? [{ name: 'lint', conclusion: 'failure', log: 'npm run lint\nerror: missing fix.txt\nwrite fix.txt fixed\ncommit fix lint' }]
          : [{ name: 'lint', conclusion: 'success' }];
      };
    },
    greenLabel: 'checks green',
  }),
);

test('send-failure sends a failed check to the agent by hand', { timeout: 120_000 }, () => failureSentByHand(gitHub));

test('a token without the repo scope, or a wrong one: a clear message, the branch pushed, the task in review', { timeout: 120_000 }, () =>
  badTokens(gitHub, { weak: weakToken, weakMessage: /lacks the `repo` scope/, wrong: 'ghp_wrong', wrongMessage: /refused the token/ }),
);

test('review comments left on the pull request reach the agent once each, with the code they are on', { timeout: 120_000 }, () =>
  reviewCommentsSent(gitHub),
);

test(
  'a pull request that conflicts with its base is sent to the agent by itself (autoFixChecks), naming the base',
  { timeout: 120_000 },
  () => conflictSent(gitHub, { automatic: true }),
);

test('a pull request that conflicts with its base is shown, and send-failure sends it to the agent', { timeout: 120_000 }, () =>
  conflictSent(gitHub, { automatic: false }),
);
