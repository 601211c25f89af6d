/** The pure parts of the pull-request hand-off (docs/handoff.md): remotes to repositories, checks to one state, the agent's note. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { failureNote, readChecks, summarizeChecks } from '../../../src/engine/pullRequestText';
import { environmentTokenSource } from '../../../src/infra/forge/credentials';
import { repositoryOfRemoteUrl } from '../../../src/infra/forge/repository';

test('a remote URL names its repository in every spelling git takes; a local path does not', () => {
  for (const url of [
    'https://github.com/octo-org/app.git',
    'git@github.com:octo-org/app.git',
    'ssh://git@ghe.example.com/octo-org/app',
    'https://github.com/octo-org/app/',
  ]) {
    const parsed = repositoryOfRemoteUrl(url);
    assert.ok(parsed.ok, url);
    assert.deepEqual(parsed.value, { owner: 'octo-org', repo: 'app' });
  }
  const local = repositoryOfRemoteUrl('/srv/git/app.git');
  assert.equal(local.ok, false);
  assert.match(local.ok ? '' : local.message, /forge\.repository/);
});

test('checks become one state: a failure wins, then pending, then success; none is none', () => {
  assert.equal(summarizeChecks([], 'abc').state, 'none');
  assert.equal(
    summarizeChecks(
      [
        { name: 'a', state: 'success' },
        { name: 'b', state: 'pending' },
      ],
      'abc',
    ).state,
    'pending',
  );
  const failed = summarizeChecks(
    [
      { name: 'a', state: 'pending' },
      { name: 'lint', state: 'failure', logTail: Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n') },
    ],
    'abc',
  );
  assert.equal(failed.state, 'failure');
  assert.deepEqual(
    failed.failed.map((check) => check.name),
    ['lint'],
  );
  assert.match(failed.failed[0]?.logTail ?? '', /^line 60\n[\s\S]*line 99$/, 'only the last 40 lines');
  assert.deepEqual(readChecks(JSON.stringify(failed)), failed);
  assert.equal(readChecks('not json'), undefined);
  const note = failureNote({ number: 7, url: 'https://x/pull/7', state: 'open', base: 'main', headSha: '0123456789abcdef' }, failed.failed);
  assert.match(note, /pull request #7/);
  assert.match(note, /Check "lint" failed/);
  assert.match(note, /line 99/);
});

const github = { forge: 'github', apiUrl: 'https://api.github.com' } as const;
const gitlab = { forge: 'gitlab', apiUrl: 'https://gitlab.example.com/api/v4' } as const;
const noClis = { gh: 'gh-not-installed', glab: 'glab-not-installed' };

test('the CLI token comes from GITHUB_TOKEN, then GH_TOKEN, then `gh auth token`; none is a clear refusal', async () => {
  assert.deepEqual(await environmentTokenSource({ GITHUB_TOKEN: 'a', GH_TOKEN: 'b' })(github), { ok: true, value: 'a' });
  assert.deepEqual(await environmentTokenSource({ GH_TOKEN: 'b' })(github), { ok: true, value: 'b' });
  // No `gh` on this PATH: no token from it, said as what to do.
  const none = await environmentTokenSource({ PATH: '/nonexistent' }, noClis)(github);
  assert.equal(none.ok, false);
  assert.match(none.ok ? '' : none.message, /GITHUB_TOKEN or GH_TOKEN, or log in with `gh auth login`/);
});

test('a GitLab token comes from GITLAB_TOKEN (never a GitHub one), then glab; none is a clear refusal', async () => {
  assert.deepEqual(await environmentTokenSource({ GITLAB_TOKEN: ' glpat-x ', GITHUB_TOKEN: 'a' })(gitlab), { ok: true, value: 'glpat-x' });
  const none = await environmentTokenSource({ GITHUB_TOKEN: 'a', PATH: '/nonexistent' }, noClis)(gitlab);
  assert.equal(none.ok, false);
  assert.match(none.ok ? '' : none.message, /set GITLAB_TOKEN to a personal access token with the `api` scope/);
  assert.doesNotMatch(none.ok ? '' : none.message, /GITHUB_TOKEN/);
});
