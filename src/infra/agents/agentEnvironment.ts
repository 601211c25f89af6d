/**
 * The environment a launched agent sees (ARCHITECTURE §6) and where its command is found. Layers,
 * later winning: Foreman's own environment minus variables that would point git elsewhere and the
 * store's connection variables (PGPASSWORD, PGPASSFILE, …: storeSecrets.ts), the profile's env
 * (which may set one of those for its agent on purpose), the FOREMAN_* identity of this run, the
 * caller's env (endpoint, token, base), and finally PATH with the folder holding the `foreman` CLI
 * first, so the agent's `foreman` is ours.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { withoutStoreConnection } from './storeSecrets';

/**
 * Inherited git variables would redirect the agent's git from its worktree to whatever repository
 * Foreman was started in (e.g. when run from a git hook), so its commits would land elsewhere.
 */
const redirectingGitVariables = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_COMMON_DIR',
  'GIT_OBJECT_DIRECTORY',
  'GIT_PREFIX',
  'GIT_NAMESPACE',
];

export interface RunIdentity {
  readonly workerId: string;
  readonly taskId: string;
  readonly attempt: number;
  readonly branch: string;
}

/** Windows spells it `Path`; elsewhere it is `PATH`. */
function pathKey(env: Readonly<Record<string, string | undefined>>): string {
  if (process.platform !== 'win32') return 'PATH';
  return Object.keys(env).find((key) => key.toUpperCase() === 'PATH') ?? 'Path';
}

export function agentEnvironment(
  run: RunIdentity,
  cliBinDir: string,
  profileEnv: Readonly<Record<string, string>> = {},
  callerEnv: Readonly<Record<string, string>> = {},
): Record<string, string> {
  // The team database's password and address stay with Foreman: an agent reaches the store only through it.
  const environment = withoutStoreConnection(process.env);
  for (const key of redirectingGitVariables) delete environment[key];
  Object.assign(environment, profileEnv, {
    FOREMAN_WORKER_ID: run.workerId,
    FOREMAN_TASK_ID: run.taskId,
    FOREMAN_ATTEMPT: String(run.attempt),
    FOREMAN_BRANCH: run.branch,
  });
  Object.assign(environment, callerEnv);
  const key = pathKey(environment);
  const inherited = environment[key];
  environment[key] = inherited ? `${cliBinDir}${delimiter}${inherited}` : cliBinDir;
  return environment;
}

function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The file `command` runs, looked up on the agent's own PATH (not Foreman's), or undefined. A
 * command with a path separator is taken relative to the agent's cwd, as a shell would.
 */
export function findCommand(command: string, environment: Readonly<Record<string, string>>, cwd: string): string | undefined {
  if (command.includes('/') || (process.platform === 'win32' && command.includes('\\'))) {
    const file = isAbsolute(command) ? command : resolve(cwd, command);
    return isExecutableFile(file) ? file : undefined;
  }
  const extensions = process.platform === 'win32' ? ['', ...(environment['PATHEXT'] ?? '.EXE;.CMD;.BAT').split(';')] : [''];
  for (const folder of (environment[pathKey(environment)] ?? '').split(delimiter)) {
    if (!folder) continue;
    for (const extension of extensions) {
      const file = join(folder, command + extension);
      if (isExecutableFile(file)) return file;
    }
  }
  return undefined;
}
