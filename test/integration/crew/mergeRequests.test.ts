/**
 * The `pull-request` hand-off on GitLab (issue 32, docs/handoff.md): merge requests through
 * `foreman serve` and the CLI with GITLAB_TOKEN, against a scripted GitLab
 * (test/support/scriptedGitLab.ts: GitLab itself is out of reach offline) reached with Foreman's own
 * `fetch` client, and a real bare repository the clone pushes to. Workers run the demo agent.
 * Waiting is polling `foreman status --json`. The scenarios, shared with GitHub's pull requests,
 * are in forgeHandoff.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ScriptedGitLab } from '../../support/scriptedGitLab';
import { conflictSent, reviewCommentsSent } from './forgeFeedback';
import { type ForgeUnderTest, badTokens, closedOnForge, failedCheckAutoFixed, failureSentByHand, stackedChain } from './forgeHandoff';

const project = 'my-group/sub/app';
const goodToken = 'glpat-scripted-good';
const readOnlyToken = 'glpat-scripted-read-api';

/**
 * GitLab, set up with `forge.kind` and `forge.repository`; via the remote, `origin`'s URL is a GitLab
 * one (pushes go to the bare repository through its push URL), and only `apiUrl` is set: the forge
 * and the nested project come from the remote.
 */
const gitLab: ForgeUnderTest<ScriptedGitLab> = {
  requestName: 'merge request',
  mergerName: 'GitLab',
  filePrefix: 'gitlab-',
  tokenEnv: 'GITLAB_TOKEN',
  goodToken,
  start: (bareRepo) => ScriptedGitLab.start({ bareRepo, project, tokens: { [goodToken]: ['api'], [readOnlyToken]: ['read_api'] } }),
  settings: (gitlab, viaRemote) =>
    viaRemote ? { apiUrl: gitlab.apiUrl, pollMs: 200 } : { kind: 'gitlab', repository: project, apiUrl: gitlab.apiUrl, pollMs: 200 },
  remoteUrl: `git@gitlab.test:${project}.git`,
  request: (gitlab, iid) => {
    const found = gitlab.mergeRequest(iid);
    return found && { base: found.targetBranch, head: found.sourceBranch, body: found.description };
  },
  count: (gitlab) => gitlab.mergeRequests.length,
  failChecks: (gitlab, name, trace) => {
    gitlab.jobsFor = () => [{ name, status: 'failed', trace }];
  },
  comment: (gitlab, iid, { user, ...note }) => gitlab.discuss(iid, { ...note, author: user }),
};

test(
  'a chain of two tasks becomes two stacked merge requests on the GitLab its remote names; each merged there, both tasks end done',
  { timeout: 180_000 },
  () =>
    stackedChain(gitLab, {
      viaRemote: true,
      firstOpened: ({ forge: gitlab, pull }) => {
        assert.equal(pull?.url, `https://gitlab.example/${project}/-/merge_requests/1`);
        assert.ok(gitlab.requests.includes('POST /api/v4/projects/my-group%2Fsub%2Fapp/merge_requests'), 'the nested project, URL-encoded');
        return Promise.resolve();
      },
      secondRetargeted: (gitlab) => assert.ok(gitlab.requests.includes('PUT /api/v4/projects/my-group%2Fsub%2Fapp/merge_requests/2')),
    }),
);

test('a merge request closed on GitLab sends the task back to review; approved again, it opens a new one', { timeout: 120_000 }, () =>
  closedOnForge(gitLab),
);

test(
  'a failed pipeline job reaches the agent (autoFixChecks) with its log, and the fix goes to the same merge request',
  { timeout: 120_000 },
  () =>
    failedCheckAutoFixed(gitLab, {
      // CI fails the first commit's lint job; its log (coloured, in sections, as GitLab's runners write it)
      // ends with the lines the demo agent acts on. A job allowed to fail never counts.
      failFirstLint: (gitlab) => {
        let failedSha: string | undefined;
        gitlab.jobsFor = (_request, sha) => {
          failedSha ??= sha;
          const flaky = { name: 'flaky', status: 'failed', allowFailure: true, trace: 'flaky as ever' };
          return sha === failedSha
            ? [
                {
                  name: 'lint',
                  status: 'failed',
                  trace:
                    'section_start:1700000000:step_script\r\x1b[0K$ npm run lint\n\x1b[31;1merror: missing fix.txt\x1b[0;m\nwrite fix.txt fixed\ncommit fix lint\n',
                },
                flaky,
              ]
            : [{ name: 'lint', status: 'success' }, flaky];
        };
      },
      note: (note) => {
        assert.doesNotMatch(note, /flaky|section_start/);
        assert.ok(!note.includes('\x1b'), 'no terminal colours');
      },
      greenLabel: 'the pipeline green',
    }),
);

test('send-failure sends a failed pipeline job to the agent by hand', { timeout: 120_000 }, () => failureSentByHand(gitLab));

test('a token without the api scope, or a wrong one: a clear message, the branch pushed, the task in review', { timeout: 120_000 }, () =>
  badTokens(gitLab, {
    weak: readOnlyToken,
    weakMessage: /GitLab refused opening a merge request .* the token lacks the `api` scope/,
    wrong: 'glpat-wrong',
    wrongMessage: /GitLab refused the token .* it is wrong, expired or revoked\. Set GITLAB_TOKEN/,
  }),
);

test('diff notes left on the merge request reach the agent once each, with the code they are on', { timeout: 120_000 }, () =>
  reviewCommentsSent(gitLab),
);

test('a merge request that conflicts with its target is shown, and send-failure sends it to the agent', { timeout: 120_000 }, () =>
  conflictSent(gitLab, { automatic: false }),
);

test('a merge request that conflicts with its target is sent to the agent by itself (autoFixChecks)', { timeout: 120_000 }, () =>
  conflictSent(gitLab, { automatic: true }),
);
