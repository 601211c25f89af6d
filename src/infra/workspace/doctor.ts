/**
 * `foreman doctor` (issue 14): what a machine needs to take part in a crew, checked one thing at a
 * time and reported, never repaired. It reads and never writes; each store backend checks itself
 * (storeBackends.ts, storeChecks.ts).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { foremanDir as foremanDirOf, isInitialised } from './paths';
import { storeBackend } from './storeBackends';
import type { DoctorCheck } from './storeChecks';
import { type StoreConfig, readStoreConfig } from './storeConfig';

const run = promisify(execFile);

export type { CheckStatus, DoctorCheck } from './storeChecks';
export { skewFailMs, skewWarnMs } from './storeChecks';

export interface DoctorOptions {
  /** The remote the machines share branches through. Default `origin`. */
  readonly remote?: string;
  /** The store to check instead of `.foreman/store.json`'s (the VS Code setting). */
  readonly store?: StoreConfig;
  /** A line before each slow step, for a person watching. */
  readonly progress?: (line: string) => void;
  /** How long `git ls-remote` may take. Default 15 s. */
  readonly remoteTimeoutMs?: number;
  /** How long the server may take to answer. Default 5 s. */
  readonly connectTimeoutMs?: number;
}

/** Runs every check that applies to the workspace at `repoRoot`, in order; a check never throws. */
export async function runDoctor(repoRoot: string, options: DoctorOptions = {}): Promise<DoctorCheck[]> {
  const progress = options.progress ?? (() => undefined);
  const dir = foremanDirOf(repoRoot);
  const config = options.store ? { ok: true as const, value: options.store } : readStoreConfig(dir);
  if (!config.ok) return [{ name: 'workspace', status: 'fail', message: config.message }];
  const checks: DoctorCheck[] = [];
  if (!isInitialised(dir)) {
    checks.push({ name: 'workspace', status: 'fail', message: `no Foreman in ${repoRoot}: run \`foreman init\` there first` });
  } else {
    checks.push({ name: 'workspace', status: 'pass', message: `initialised in ${repoRoot}`, details: { repoRoot } });
  }
  // A shared store is checked even from a clone not initialised yet: it is what `init` would join.
  const backend = storeBackend(config.value);
  if (backend.shared || checks[0]?.status === 'pass') {
    checks.push(
      ...(await backend.check(dir, {
        progress,
        ...(options.connectTimeoutMs !== undefined ? { connectTimeoutMs: options.connectTimeoutMs } : {}),
      })),
    );
  }
  // One machine on an embedded store needs no remote; a shared store does, or a remote named explicitly.
  if (backend.shared || options.remote !== undefined) {
    const remote = options.remote ?? 'origin';
    progress(`reaching the git remote ${remote}…`);
    checks.push(await checkRemote(repoRoot, remote, options.remoteTimeoutMs ?? 15_000));
  }
  return checks;
}

/** A remote's URL for a message: credentials in an https URL are cut out. */
function shownRemote(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    // scp-like `git@host:path` or a local path: no password in it.
    return url;
  }
}

/** `git ls-remote --heads` answers within the time: the machines can share branches through it. */
async function checkRemote(repoRoot: string, remote: string, timeoutMs: number): Promise<DoctorCheck> {
  // No prompt for credentials: a doctor that waits for a password that nobody types helps no one.
  const env = { ...process.env, GIT_TERMINAL_PROMPT: '0' };
  let url: string;
  try {
    url = (await run('git', ['remote', 'get-url', '--', remote], { cwd: repoRoot, env })).stdout.trim();
  } catch {
    return {
      name: 'remote',
      status: 'fail',
      message: `there is no git remote '${remote}': machines share task branches through it (git remote add ${remote} <url>)`,
      details: { remote },
    };
  }
  const shown = shownRemote(url);
  try {
    const { stdout } = await run('git', ['ls-remote', '--heads', '--', remote], {
      cwd: repoRoot,
      env,
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
    });
    const heads = stdout.split('\n').filter((line) => line.trim() !== '').length;
    return {
      name: 'remote',
      status: 'pass',
      message: `${remote} (${shown}) answers: ${heads} ${heads === 1 ? 'branch' : 'branches'}`,
      details: { remote, url: shown, heads },
    };
  } catch (error) {
    const { killed, stderr } = error as { killed?: boolean; stderr?: string };
    const said = (stderr ?? '').split(url).join(shown).trim().split('\n').at(-1);
    const why = killed ? `no answer within ${Math.round(timeoutMs / 1000)} s` : said || 'git ls-remote failed';
    return { name: 'remote', status: 'fail', message: `${remote} (${shown}) cannot be reached: ${why}`, details: { remote, url: shown } };
  }
}
