/** Which forge and which GitLab project a remote names (docs/handoff.md), and GitLab's job logs made readable. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forgeSettingsSchema } from '../../../src/engine/settings';
import { plainTrace } from '../../../src/infra/forge/gitlabApi';
import {
  forgeKindOfHost,
  gitLabApiUrlOf,
  parseProjectPath,
  projectOfRemoteUrl,
  remoteLocation,
  repositoryOfRemoteUrl,
} from '../../../src/infra/forge/repository';

test('a GitLab remote names its project, nested groups included, in https, ssh and scp spellings', () => {
  const cases: Array<[string, string]> = [
    ['https://gitlab.com/my-group/app.git', 'my-group/app'],
    ['https://gitlab.com/my-group/sub/deeper/app', 'my-group/sub/deeper/app'],
    ['git@gitlab.com:my-group/sub/app.git', 'my-group/sub/app'],
    ['ssh://git@gitlab.example.com:2222/platform/tools/app.git', 'platform/tools/app'],
    ['https://oauth2:secret@gitlab.example.com/team/app.git/', 'team/app'],
  ];
  for (const [url, project] of cases) {
    const parsed = projectOfRemoteUrl(url);
    assert.ok(parsed.ok, url);
    assert.equal(parsed.value, project, url);
  }
  const local = projectOfRemoteUrl('/srv/git/app.git');
  assert.equal(local.ok, false);
  assert.match(local.ok ? '' : local.message, /set forge\.repository \(e\.g\. "my-group\/app"\)/);
  assert.equal(projectOfRemoteUrl('https://gitlab.com/just-a-group').ok, false, 'a project path has at least two parts');
});

test('a server under a relative URL: its prefix is no part of the project path (http(s) remotes only)', () => {
  const api = 'https://example.com/gitlab/api/v4';
  assert.deepEqual(projectOfRemoteUrl('https://example.com/gitlab/team/app.git', api), { ok: true, value: 'team/app' });
  assert.deepEqual(projectOfRemoteUrl('git@example.com:team/app.git', api), { ok: true, value: 'team/app' });
});

test('the forge follows the host: github.com, gitlab.com and gitlab.* decide; any other host is left to forge.kind', () => {
  assert.equal(forgeKindOfHost('github.com'), 'github');
  assert.equal(forgeKindOfHost('GitLab.com'), 'gitlab');
  assert.equal(forgeKindOfHost('altssh.gitlab.com'), 'gitlab');
  assert.equal(forgeKindOfHost('gitlab.example.com'), 'gitlab');
  assert.equal(forgeKindOfHost('ghe.example.com'), undefined);
  assert.equal(forgeKindOfHost('code.example.com'), undefined);
});

test("GitLab's API defaults to the remote's own server: https for ssh remotes, the scheme and port of http(s) ones", () => {
  const ssh = remoteLocation('git@gitlab.example.com:team/app.git');
  assert.ok(ssh);
  assert.equal(gitLabApiUrlOf(ssh), 'https://gitlab.example.com/api/v4');
  const http = remoteLocation('http://gitlab.local:8080/team/app.git');
  assert.ok(http);
  assert.equal(gitLabApiUrlOf(http), 'http://gitlab.local:8080/api/v4');
  assert.equal(remoteLocation('file:///srv/git/app.git'), undefined);
});

test('forge.repository: GitHub takes owner/name only, GitLab group/…/project; the settings file takes both kinds', () => {
  assert.deepEqual(parseProjectPath('a/b/c'), { ok: true, value: 'a/b/c' });
  for (const bad of ['a', 'a//b', 'a/../b', 'a/b c', '-x/../../etc']) assert.equal(parseProjectPath(bad).ok, false, bad);
  assert.equal(repositoryOfRemoteUrl('https://github.com/a/b/c').ok, false, 'GitHub has no nested owners');
  assert.ok(
    forgeSettingsSchema.safeParse({ kind: 'gitlab', repository: 'group/sub/app', apiUrl: 'https://gitlab.example.com/api/v4' }).success,
  );
  const wrongKind = forgeSettingsSchema.safeParse({ kind: 'bitbucket' });
  assert.equal(wrongKind.success, false);
  assert.match(wrongKind.error?.issues[0]?.message ?? '', /"github" or "gitlab"/);
});

test('a job log loses its terminal colours and section markers, and keeps its lines', () => {
  const raw =
    '\x1b[0KRunning with gitlab-runner 17.0\n' +
    'section_start:1700000000:step_script\r\x1b[0K\x1b[0K\x1b[36;1mExecuting "step_script"\x1b[0;m\n' +
    '$ npm run lint\r\n' +
    '\x1b[31;1merror: missing fix.txt\x1b[0;m\n' +
    'section_end:1700000001:step_script\r\x1b[0K\x1b[31;1mERROR: Job failed: exit code 1\x1b[0;m\n';
  assert.equal(
    plainTrace(raw),
    'Running with gitlab-runner 17.0\nExecuting "step_script"\n$ npm run lint\nerror: missing fix.txt\nERROR: Job failed: exit code 1\n',
  );
});
