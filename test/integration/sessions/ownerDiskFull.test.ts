/**
 * A VS Code window that owns a workspace on a disk that fills up (issue 10, item 4): the window's
 * session answers each write that does not fit with what to do (no "unexpected error"), says once
 * that changes are not being saved and once that they are saved again, and goes on without a
 * reopen. The session is the real one the extension uses (no VS Code API in it); the extension
 * turns those two calls into a warning and an information message. On a real small tmpfs;
 * skipped, with the reason in the output, where one cannot be mounted.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { parseRequest } from '../../../src/core/requests';
import { crewSettingsOf, defaultEngineSettings } from '../../../src/engine/settings';
import { OwnerSession } from '../../../src/extension/sessions/ownerSession';
import { initWorkspace } from '../../../src/infra/workspace/init';
import { mountSmallDisk } from '../../support/smallDisk';

const disk = mountSmallDisk(4);
after(() => {
  if (typeof disk !== 'string') disk.unmount();
});

test(
  'a window on a full disk says so, refuses the writes that do not fit, and goes on',
  { skip: typeof disk === 'string' ? disk : false, timeout: 60_000 },
  async () => {
    if (typeof disk === 'string') return;
    const repo = path.join(disk.root, 'repo');
    fs.mkdirSync(repo);
    const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
    execFileSync('git', ['init', '--quiet', '-b', 'main'], { cwd: repo, env });
    execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '--quiet', '--allow-empty', '-m', 'initial'], {
      cwd: repo,
      env,
    });
    assert.ok((await initWorkspace(repo)).ok);
    const said: Array<string | undefined> = [];
    const opened = await OwnerSession.open({
      root: repo,
      name: 'repo',
      trusted: false,
      settings: { engine: defaultEngineSettings, crew: crewSettingsOf({}) },
      log: () => undefined,
      onSavingChange: (problem) => said.push(problem),
    });
    assert.ok(opened.ok, opened.ok ? '' : opened.message);
    const session = opened.value;
    try {
      const add = (title: string) => {
        const parsed = parseRequest({ command: 'task.add', args: { title, manual: true }, actor: 'vscode' });
        assert.ok(parsed.ok);
        return session.execute(parsed.request);
      };
      assert.ok((await add('before')).ok);
      const filler = disk.fill();
      let refusal;
      const added = ['before'];
      for (let index = 0; index < 100 && !refusal; index++) {
        const result = await add(`while full ${index}`);
        if (result.ok) added.push(`while full ${index}`);
        else refusal = result;
      }
      assert.ok(refusal && !refusal.ok);
      assert.equal(refusal.code, 'notSaved');
      assert.match(refusal.message, /^This change was not saved: the disk holding .* is full \(ENOSPC\)\./);
      assert.ok(!(await add('still full')).ok);
      assert.deepEqual(said, [refusal.message], 'said once, not once per refused write');
      assert.deepEqual(
        session.snapshot().tasks.map((task) => task.title),
        added,
        'the window still reads every saved task',
      );

      fs.rmSync(filler);
      assert.ok((await add('after')).ok);
      assert.deepEqual(said, [refusal.message, undefined], 'and says once that changes are saved again');
    } finally {
      await session.close();
    }
  },
);
