// UI test: the GitLab token of a `pull-request` workspace in VS Code (docs/handoff.md). A window owns
// a workspace whose forge is a scripted GitLab (test/support/scriptedGitLab.ts; GitLab is out of
// reach offline) and whose demo agent has work in review. No GITLAB_TOKEN anywhere: Approve (the
// CLI, sent to the window) is refused with a message naming *Set GitLab Token*, and the task stays
// in review. Given the token through that command's password box, the next Approve opens the merge
// request with it. The token is never written under .foreman/. Screenshot: test-results/gitlab-token-*.png.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { repoRoot } from '../../scripts/vscode/paths.mjs';
import { ScriptedGitLab } from '../support/scriptedGitLab';
import { pollUntil } from '../support/pollUntil';
import { runProcess } from '../support/runProcess';
import { ensureBuilt, makeTestRepo, type TestRepo } from './support/repo';
import { launchWorkbench, type Workbench } from './support/workbench';

const project = 'my-group/app';
const token = 'glpat-e2e-secret-token';
let scratch: string;
let repo: TestRepo;
let gitlab: ScriptedGitLab;
let workbench: Workbench;

interface Status {
  readonly workers: Array<{ id: string; state: string }>;
  readonly tasks: Array<{ id: string; pullRequest?: { number: number } }>;
}

/**
 * The CLI without any GitLab token of its own: the window's is the one that counts. Asynchronous,
 * so the scripted GitLab in this process answers the window while the CLI waits.
 */
async function cli(...args: string[]): Promise<{ code: number | null; out: string }> {
  const env = { ...process.env };
  delete env['GITLAB_TOKEN'];
  const run = await runProcess(process.execPath, [join(repoRoot, 'dist/cli.js'), ...args, '--dir', repo.dir], { cwd: repo.dir, env });
  return { code: run.code, out: `${run.stdout}${run.stderr}` };
}

async function status(): Promise<Status> {
  return JSON.parse((await cli('status', '--json')).out) as Status;
}

/** Every regular file under `dir`, read as text. */
function textsUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = join(dir, name);
    const stat = statSync(file);
    // The endpoint's socket is no file to read.
    return stat.isDirectory() ? textsUnder(file) : stat.isFile() ? [readFileSync(file, 'latin1')] : [];
  });
}

before(
  async () => {
    ensureBuilt();
    delete process.env['GITLAB_TOKEN'];
    scratch = realpathSync(mkdtempSync(join(tmpdir(), 'foreman-gitlab-e2e-')));
    const bare = join(scratch, 'origin.git');
    repo = makeTestRepo(join(scratch, 'app'), { 'README.md': '# App\n' }, { origin: bare });
    gitlab = await ScriptedGitLab.start({ bareRepo: bare, project, tokens: { [token]: ['api'] } });
    repo.foreman('init');
    writeFileSync(
      join(repo.dir, '.foreman', 'settings.json'),
      JSON.stringify({ handoff: 'pull-request', forge: { kind: 'gitlab', repository: project, apiUrl: gitlab.apiUrl, pollMs: 500 } }),
    );
    repo.foreman('worker', 'add', 'w1', '--agent', 'demo');
    repo.foreman('task', 'add', 'Add notes', '--id', 'notes', '--prompt', 'write notes.txt hello\ncommit add notes');
    workbench = await launchWorkbench({ folder: repo.dir, extensionPath: repoRoot, name: 'gitlab-token' });
    await workbench.statusBarItem('foreman.liveness').waitFor({ state: 'visible', timeout: 90_000 });
  },
  { timeout: 240_000 },
);

after(async () => {
  await workbench?.close();
  await gitlab?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test(
  'without a token Approve says to run Set GitLab Token; with the token given there, the merge request opens',
  { timeout: 180_000 },
  async () => {
    await pollUntil(async () => (await status()).workers.find((worker) => worker.id === 'w1')?.state === 'IN_REVIEW', {
      what: 'w1 in review',
      timeoutMs: 90_000,
      intervalMs: 500,
    });
    const refused = await cli('approve', 'w1');
    assert.equal(refused.code, 3, refused.out);
    assert.match(refused.out, /No GitLab token: set GITLAB_TOKEN.*Foreman: Set GitLab Token/);
    assert.match(refused.out, /stays in review/);
    assert.equal(gitlab.mergeRequests.length, 0);

    await workbench.runCommand('Foreman: Set GitLab Token');
    const box = workbench.quickInput();
    await box.getByText(/personal access token with the `api` scope/).waitFor();
    const input = box.locator('input[type="password"]');
    await input.fill(token);
    await input.press('Enter');
    await workbench
      .notifications()
      .filter({ hasText: /the GitLab token is stored/ })
      .first()
      .waitFor({ timeout: 15_000 });
    await workbench.screenshot('stored');

    const approved = await cli('approve', 'w1');
    assert.equal(approved.code, 0, approved.out);
    assert.equal(gitlab.mergeRequests.length, 1, 'the merge request was opened with the stored token');
    assert.equal((await status()).tasks.find((task) => task.id === 'notes')?.pullRequest?.number, 1);
    assert.ok(!textsUnder(join(repo.dir, '.foreman')).some((text) => text.includes(token)), 'the token is nowhere under .foreman/');
  },
);
