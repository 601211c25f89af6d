/**
 * GitLabForge against the scripted GitLab (test/support/scriptedGitLab.ts; GitLab is out of reach
 * offline) and a real bare repository: the paths the crew tests do not take — a merge request
 * already open for the branch is taken up, a pipeline without jobs, and the refusals for a project
 * that is not there, a server that does not answer and no token at all.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ok } from '../../../src/core/result';
import { noTokenFor } from '../../../src/infra/forge/credentials';
import { GitLabForge } from '../../../src/infra/forge/gitlab';
import { ScriptedGitLab } from '../../support/scriptedGitLab';

const token = 'glpat-unit';
let scratch: string;
let gitlab: ScriptedGitLab;

function forge(options: { project?: string; apiUrl?: string; withToken?: boolean } = {}): GitLabForge {
  return new GitLabForge({
    repoRoot: scratch,
    remote: 'origin',
    project: options.project ?? 'team/app',
    apiUrl: options.apiUrl ?? gitlab.apiUrl,
    token: () => Promise.resolve(options.withToken === false ? noTokenFor('gitlab') : ok(token)),
  });
}

before(async () => {
  scratch = realpathSync(mkdtempSync(join(tmpdir(), 'foreman-gitlab-forge-')));
  const bare = join(scratch, 'origin.git');
  const git = (...args: string[]) => execFileSync('git', ['-C', bare, ...args], { stdio: 'pipe' });
  execFileSync('git', ['init', '--quiet', '--bare', '-b', 'main', bare]);
  // Two branches in the bare repository, as pushes would leave them.
  const tree = execFileSync('git', ['-C', bare, 'mktree'], { input: '' }).toString().trim();
  const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@x', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@x' };
  const base = execFileSync('git', ['-C', bare, 'commit-tree', tree, '-m', 'base'], { env }).toString().trim();
  const head = execFileSync('git', ['-C', bare, 'commit-tree', tree, '-p', base, '-m', 'work'], { env }).toString().trim();
  git('update-ref', 'refs/heads/main', base);
  git('update-ref', 'refs/heads/w1/t1', head);
  gitlab = await ScriptedGitLab.start({ bareRepo: bare, project: 'team/app', tokens: { [token]: ['api'] } });
});

after(async () => {
  await gitlab?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test('a merge request already open for the branch is taken up, not opened twice', async () => {
  const draft = { head: 'w1/t1', base: 'main', title: 'T1', body: 'body' };
  const first = await forge().open(draft);
  assert.ok(first.ok, first.ok ? '' : first.message);
  assert.deepEqual(
    { ...first.value, headSha: first.value.headSha.length },
    {
      number: 1,
      url: 'https://gitlab.example/team/app/-/merge_requests/1',
      state: 'open',
      base: 'main',
      headSha: 40,
      conflict: false,
    },
  );
  const again = await forge().open(draft);
  assert.ok(again.ok, again.ok ? '' : again.message);
  assert.equal(again.value.number, 1);
  assert.equal(gitlab.mergeRequests.length, 1);
});

test("a merge request's diff notes are its line comments: place, range, author; GitLab's system notes are not", async () => {
  const pull = await forge().get(1);
  assert.ok(pull.ok, pull.ok ? '' : pull.message);
  gitlab.discuss(1, { path: 'src/a.ts', startLine: 2, line: 4, body: 'Why here?', author: 'alice' });
  const comments = await forge().comments(pull.value);
  assert.ok(comments.ok, comments.ok ? '' : comments.message);
  assert.equal(comments.value.length, 1);
  assert.deepEqual(
    { ...comments.value[0], id: typeof comments.value[0]?.id },
    { id: 'string', file: 'src/a.ts', startLine: 2, endLine: 4, body: 'Why here?', author: 'alice' },
  );
});

test('a pipeline without jobs is one check, named after the pipeline', async () => {
  gitlab.jobsFor = () => [];
  const pull = await forge().get(1);
  assert.ok(pull.ok);
  const checks = await forge().checks(pull.value);
  assert.ok(checks.ok, checks.ok ? '' : checks.message);
  assert.equal(checks.value.length, 1);
  assert.match(checks.value[0]?.name ?? '', /^pipeline #\d+$/);
  assert.equal(checks.value[0]?.state, 'success');
});

test('a project that is not there, a server that does not answer and no token are refusals that say what to do', async () => {
  const missing = await forge({ project: 'team/other' }).get(1);
  assert.equal(missing.ok, false);
  assert.match(missing.ok ? '' : missing.message, /404.*check forge\.repository \(the project's full path/);

  const away = await forge({ apiUrl: 'http://127.0.0.1:9/api/v4' }).get(1);
  assert.equal(away.ok, false);
  assert.equal(away.ok ? '' : away.code, 'forgeUnreachable');
  assert.match(away.ok ? '' : away.message, /Could not reach GitLab at http:\/\/127\.0\.0\.1:9\/api\/v4/);

  const asked = gitlab.requests.length;
  const none = await forge({ withToken: false }).get(1);
  assert.equal(none.ok ? '' : none.code, 'forgeNoToken');
  assert.match(none.ok ? '' : none.message, /set GITLAB_TOKEN/);
  assert.equal(gitlab.requests.length, asked, 'GitLab is not asked without a token');
});
