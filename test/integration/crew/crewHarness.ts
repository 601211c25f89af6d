/**
 * Real crews for the crew tests: a git repository in a temp folder with Foreman initialised, short
 * liveness thresholds and backoff, workers running the demo agent, `node dist/cli.js …` children
 * (argv arrays, no shell), and a `foreman serve` child. Waiting is done by polling
 * `foreman status --json`, never by fixed sleeps. Every serve started here is stopped at the end
 * of its test, and every agent it launched (each in its own process group) must be gone by then.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { after } from 'node:test';
import { pollUntil } from '../../support/pollUntil';
import { type Run, runProcess } from '../../support/runProcess';

export const cliPath = join(__dirname, '..', '..', '..', 'dist', 'cli.js');

const sandbox = realpathSync(mkdtempSync(join(tmpdir(), 'foreman-crew-')));

/** Git without the machine's configuration; the agents and serve inherit the same. */
const gitEnv: Record<string, string> = {
  ...(process.env as Record<string, string>),
  GIT_CONFIG_NOSYSTEM: '1',
  HOME: sandbox,
  GIT_CONFIG_GLOBAL: '/dev/null',
};
/** The CLI sees none of the variables an agent would have. */
const baseEnv = Object.fromEntries(Object.entries(gitEnv).filter(([key]) => !key.startsWith('FOREMAN_')));

const servers = new Set<Server>();
/** Agents of killed serves: no test may leave them running. */
const orphans: number[] = [];
after(async () => {
  // A test that failed half-way still leaves no serve and no agent behind: serves first, then
  // the agents of killed serves (which may still be writing into the sandbox), then the files.
  for (const server of servers) await server.stop().catch(() => undefined);
  const left = orphans.filter(groupAlive);
  for (const pid of left) process.kill(-pid, 'SIGKILL');
  await pollUntil(() => !left.some(groupAlive), { what: 'killed agents to be gone', timeoutMs: 5000 }).catch(() => undefined);
  rmSync(sandbox, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  assert.deepEqual(left, [], 'agents of a killed serve were never reaped');
});

let counter = 0;

/**
 * Short backoff, and liveness thresholds short enough to matter yet long enough that a loaded
 * machine does not make a live worker look stale (liveness.test.ts sets its own, shorter ones).
 */
export const fastSettings = { warnMs: 2000, staleMs: 6000, deadMs: 8000, retryBaseMs: 100, retryMaxMs: 400 };

/** Serve's output of every run is kept here, to read after a failure. */
const logDir = join(__dirname, '..', '..', '..', 'test-results', 'crew');
let serveCounter = 0;

function keepLog(repo: string, output: string): void {
  mkdirSync(logDir, { recursive: true });
  const testFile = basename(process.argv[1] ?? 'crew', '.test.ts');
  writeFileSync(join(logDir, `${testFile}-${basename(repo)}-serve-${++serveCounter}.log`), output);
}

export type { Run };

/** A worker as `foreman status --json` shows it. */
export interface WorkerStatus {
  readonly id: string;
  readonly state: string;
  readonly taskId: string | null;
  readonly branch: string | null;
  readonly attempt: number;
  readonly note: string | null;
  readonly lastError: string | null;
  readonly liveness: string;
  readonly livenessReason: string;
  /** What the agent handed in for review: its last message, or the tail of its output. */
  readonly summary: string | null;
  /** On an IDLE worker next to its failed manual task only. */
  readonly lastTaskFailed?: { readonly taskId: string; readonly title: string; readonly status: string; readonly reason: string };
}

export interface TaskStatus {
  readonly id: string;
  readonly title: string;
  readonly status: string;
  readonly workerId: string | null;
  readonly attempt: number;
  readonly blockedBy: string | null;
  readonly parentId: string | null;
}

export interface Status {
  readonly baseBranch: string;
  readonly workers: WorkerStatus[];
  readonly tasks: TaskStatus[];
}

/** One row of `foreman transitions --json`. */
export interface Transition {
  readonly seq: number;
  readonly event_type: string;
  readonly entity_id: string;
  readonly from_state: string;
  readonly to_state: string;
  readonly trigger: string;
  readonly actor: string;
  readonly reason: string | null;
  readonly attempt: number | null;
  readonly metadata?: Record<string, unknown>;
}

export interface CrewOptions {
  readonly workers?: readonly string[];
  /** Extra `.foreman/settings.json` fields, over `fastSettings` and the worktree root. */
  readonly settings?: Record<string, unknown>;
  /** Files committed on main before Foreman is initialised. */
  readonly files?: Readonly<Record<string, string>>;
}

export class CrewRepo {
  constructor(
    readonly root: string,
    readonly worktreeRoot: string,
    /** Extra environment of this clone's CLI calls and serve (a machine's FOREMAN_HOST, PGPASSWORD). */
    readonly env: Readonly<Record<string, string>> = {},
  ) {}

  /** Runs `foreman <args>` in the repository. */
  foreman(args: readonly string[]): Promise<Run> {
    return runProcess(process.execPath, [cliPath, ...args], { cwd: this.root, env: { ...baseEnv, ...this.env } });
  }

  /** A command that must succeed. */
  async ok(args: readonly string[]): Promise<string> {
    const run = await this.foreman(args);
    assert.equal(run.code, 0, `foreman ${args.join(' ')} exited ${run.code}: ${run.stdout}${run.stderr}`);
    return run.stdout;
  }

  /** `foreman task add <title> --id <id> [flags…] --prompt <prompt>`, which must succeed. */
  addTask(id: string, title: string, prompt: string, ...flags: string[]): Promise<string> {
    return this.ok(['task', 'add', title, '--id', id, ...flags, '--prompt', prompt]);
  }

  async json<T>(args: readonly string[]): Promise<T> {
    return JSON.parse(await this.ok([...args, '--json'])) as T;
  }

  status(): Promise<Status> {
    return this.json<Status>(['status']);
  }

  transitions(): Promise<Transition[]> {
    return this.json<Transition[]>(['transitions']);
  }

  worker(status: Status, id: string): WorkerStatus {
    const worker = status.workers.find((candidate) => candidate.id === id);
    assert.ok(worker, `no worker ${id}`);
    return worker;
  }

  task(status: Status, id: string): TaskStatus {
    const task = status.tasks.find((candidate) => candidate.id === id);
    assert.ok(task, `no task ${id}`);
    return task;
  }

  /** Polls `foreman status --json` until `ready` holds, and returns that status. */
  async waitFor(what: string, ready: (status: Status) => boolean, timeoutMs = 20_000, server?: Server): Promise<Status> {
    let last: Status | undefined;
    return pollUntil(
      async () => {
        last = await this.status();
        return ready(last) ? last : undefined;
      },
      {
        what,
        timeoutMs,
        intervalMs: 150,
        detail: () => `last status: ${JSON.stringify(last)}${server ? `\nserve said:\n${server.output()}` : ''}`,
      },
    );
  }

  waitForWorker(id: string, state: string, server?: Server, timeoutMs?: number): Promise<Status> {
    return this.waitFor(`${id} in ${state}`, (status) => this.worker(status, id).state === state, timeoutMs, server);
  }

  /**
   * Waits for `workerId` to be FAILED and checks that its task failed for good on its first
   * attempt (no attempt spent on a backoff that could not help), with a last error like `reason`.
   */
  async failedForGoodAtOnce(workerId: string, taskId: string, reason: RegExp, server: Server): Promise<Status> {
    const failed = await this.waitForWorker(workerId, 'FAILED', server);
    const task = this.task(failed, taskId);
    assert.equal(task.status, 'failed');
    assert.equal(task.attempt, 1, 'no attempt was spent on a retry that could not work');
    assert.match(this.worker(failed, workerId).lastError ?? '', reason);
    return failed;
  }

  /** git in the main checkout (or `cwd`), output trimmed of its last newline. */
  git(args: readonly string[], cwd = this.root): string {
    return execFileSync('git', args, { cwd, env: gitEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).replace(/\n$/, '');
  }

  /** git that may fail: undefined instead of a throw. */
  tryGit(args: readonly string[], cwd = this.root): string | undefined {
    try {
      return this.git(args, cwd);
    } catch {
      return undefined;
    }
  }

  worktreeOf(workerId: string): string {
    return join(this.worktreeRoot, workerId);
  }

  /** Every ref with its sha: what "no new branches or refs" is checked against. */
  refs(): string {
    return this.git(['for-each-ref', '--format=%(refname) %(objectname)']);
  }

  /** The main checkout as the user sees it: HEAD, the branch, and `git status --porcelain`. */
  checkout(): { head: string; branch: string; porcelain: string } {
    return {
      head: this.git(['rev-parse', 'HEAD']),
      branch: this.git(['symbolic-ref', '--short', 'HEAD']),
      porcelain: this.git(['status', '--porcelain', '--untracked-files=all']),
    };
  }

  /** The pid recorded for a worker's running agent in `.foreman/agents/<worker>.json`. */
  agentRecord(workerId: string): { pid: number; taskId: string; attempt: number } | undefined {
    const file = join(this.root, '.foreman', 'agents', `${workerId}.json`);
    if (!existsSync(file)) return undefined;
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as { pid: number; taskId: string; attempt: number };
    } catch {
      return undefined; // being written
    }
  }

  attemptLog(taskId: string, attempt: number): string {
    const file = join(this.root, '.foreman', 'logs', taskId, `attempt-${attempt}.log`);
    return existsSync(file) ? readFileSync(file, 'utf8') : '';
  }

  /** Polls the agent log until it shows `pattern` (the agent got that far). */
  async waitForLog(taskId: string, attempt: number, pattern: RegExp, timeoutMs = 15_000): Promise<void> {
    await pollUntil(() => pattern.test(this.attemptLog(taskId, attempt)), {
      what: `the log of ${taskId} attempt ${attempt} to show ${pattern}`,
      timeoutMs,
      intervalMs: 100,
      detail: () => this.attemptLog(taskId, attempt),
    });
  }

  /** Starts `foreman serve` and waits for its ready line. */
  serve(): Promise<Server> {
    return startServe(this.root, this.env);
  }
}

/** A repository on `main` with an initial commit (plus `files`), Foreman initialised, workers added. */
export async function makeCrew(options: CrewOptions = {}): Promise<CrewRepo> {
  const name = `repo-${++counter}`;
  const root = join(sandbox, name);
  const worktreeRoot = join(sandbox, `${name}-worktrees`);
  mkdirSync(root);
  const git = (...args: string[]): void => void execFileSync('git', args, { cwd: root, env: gitEnv, stdio: 'ignore' });
  git('init', '--quiet', '-b', 'main');
  for (const [file, text] of Object.entries(options.files ?? {})) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text);
  }
  git('add', '--all');
  git('-c', 'user.name=Test', '-c', 'user.email=test@example.com', 'commit', '--quiet', '--allow-empty', '-m', 'initial');
  const crew = new CrewRepo(root, worktreeRoot);
  await crew.ok(['init']);
  const settings = { ...fastSettings, worktreeRoot, ...options.settings };
  writeFileSync(join(root, '.foreman', 'settings.json'), JSON.stringify(settings, null, 2));
  for (const worker of options.workers ?? []) await crew.ok(['worker', 'add', worker, '--agent', 'demo']);
  return crew;
}

/** git with the crew tests' configuration (none of the machine's), in `cwd`. */
export function gitIn(cwd: string, args: readonly string[]): string {
  return execFileSync('git', args, { cwd, env: gitEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).replace(/\n$/, '');
}

export function sandboxPath(name: string): string {
  return join(sandbox, name);
}

/** Whether any process of group `pid` (an agent's group) is still alive. */
export function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface Server {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Everything it printed so far. */
  output(): string;
  /** Pids of the agents it reported starting. */
  agentPids(): number[];
  /** SIGTERM, then asserts that it exited 0 and that none of its agents' groups is left. */
  stop(): Promise<void>;
  /** SIGKILL, as a crash: its agents are left running (they are reaped by the next serve). */
  kill(): Promise<void>;
}

function startServe(repo: string, env: Readonly<Record<string, string>>): Promise<Server> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, 'serve'], {
      cwd: repo,
      env: { ...baseEnv, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let ready = false;
    const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
    // A serve that is not ready in time is stopped, not left writing into the sandbox (and
    // holding this test file open) after its test has failed.
    const timer = setTimeout(() => {
      reject(new Error(`foreman serve did not get ready: ${output}`));
      void server.stop().catch(() => undefined);
    }, 20_000);
    const agentPids = (): number[] => [...output.matchAll(/agent for \S+ started: pid (\d+)/g)].map((match) => Number(match[1]));
    let stopped: Promise<void> | undefined;
    const server: Server = {
      child,
      pid: child.pid!,
      output: () => output,
      agentPids,
      stop: () =>
        (stopped ??= (async () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          // A serve that ignores SIGTERM fails its test instead of holding the file open forever.
          const hung = setTimeout(() => child.kill('SIGKILL'), 30_000);
          const code = await exited;
          clearTimeout(hung);
          servers.delete(server);
          keepLog(repo, output);
          await assertAgentsGone(agentPids(), output);
          assert.equal(code, 0, `foreman serve exited ${code}: ${output}`);
        })()),
      kill: async () => {
        child.kill('SIGKILL');
        await exited;
        servers.delete(server);
        keepLog(repo, output);
        // Its agents are orphans now; the test restarts serve to reap them, and `after` checks.
        orphans.push(...agentPids());
      },
    };
    // Tracked from its start: `after` stops whatever a failed test left running.
    servers.add(server);
    const onData = (chunk: string): void => {
      output += chunk;
      if (!ready && /foreman serve: owner of .*, endpoint .*\n/.test(output)) {
        ready = true;
        clearTimeout(timer);
        resolve(server);
      }
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', onData);
    void exited.then((code) => {
      if (!ready) {
        clearTimeout(timer);
        reject(new Error(`foreman serve exited ${code} before it was ready: ${output}`));
      }
    });
  });
}


async function assertAgentsGone(pids: readonly number[], output: string): Promise<void> {
  // A timeout is not the failure: the assertion below names the groups that stayed.
  await pollUntil(() => !pids.some(groupAlive), { what: 'the agents to exit', timeoutMs: 3000 }).catch(() => undefined);
  const alive = pids.filter(groupAlive);
  for (const pid of alive) process.kill(-pid, 'SIGKILL');
  assert.deepEqual(alive, [], `agent process groups left after serve stopped: ${alive.join(', ')}\n${output}`);
}

/** Approves and merges every worker that reaches review, until `done` holds. Returns merge outcomes. */
export async function reviewUntil(
  crew: CrewRepo,
  done: (status: Status) => boolean,
  options: { timeoutMs?: number; server?: Server; onMergeRefused?: (worker: string, run: Run) => void } = {},
): Promise<Status> {
  let last: Status | undefined;
  return pollUntil(
    async () => {
      const status = (last = await crew.status());
      if (done(status)) return status;
      for (const worker of status.workers) {
        if (worker.state === 'IN_REVIEW') await crew.ok(['approve', worker.id]);
        if (worker.state === 'IN_REVIEW' || worker.state === 'APPROVED') {
          const run = await crew.foreman(['merge', worker.id]);
          if (run.code !== 0) {
            if (!options.onMergeRefused)
              assert.fail(`merge ${worker.id} exited ${run.code}: ${run.stdout}${run.stderr}\n${options.server?.output() ?? ''}`);
            options.onMergeRefused(worker.id, run);
          }
        }
      }
      return undefined;
    },
    {
      what: 'the reviews to reach the awaited state',
      timeoutMs: options.timeoutMs ?? 60_000,
      intervalMs: 150,
      detail: () => `${JSON.stringify(last)}\n${options.server?.output() ?? ''}`,
    },
  );
}
