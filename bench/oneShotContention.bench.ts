/**
 * One-shot CLI calls with no owner running, many at once (issue 10, item 10). Each call takes the
 * owner lock, writes one task and lets go; the question is what contention costs a call. Measured
 * side by side in one run:
 *   - `node -e 0`: the floor of any Node program;
 *   - one client alone: a `foreman task add` with nobody else around;
 *   - 8 and 16 clients at once (`--clients 8,16`), each making `--calls` calls back to back, all on ONE workspace
 *     (they queue for its lock) and, as the baseline, each on its OWN workspace (the same processes
 *     and CPU, no lock shared). On a 2-core machine 16 Node processes at once are slow whatever
 *     they do; the ratio shared/own is what the lock costs.
 * Every call must succeed, and every task written must be there at the end (read back with
 * `status --json`): a refused or lost call fails the bench instead of improving its figures.
 *
 * Usage: node --import tsx bench/oneShotContention.bench.ts [--calls 4] [--clients 8,16] [--quick]. Needs dist/ (built when
 * missing). Prints one JSON object.
 */
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildDist, numberOption, numbersOption, quick } from './support/options';
import { percentile, round, tails } from './support/stats';

const root = path.join(__dirname, '..');
const cli = path.join(root, 'dist', 'cli.js');
const callsPerClient = numberOption('calls', 4, 1);
const clientCounts = numbersOption('clients', '8,16', '1');

/** Spawn to exit of one command, in ms; fails loudly on a non-zero exit. */
function timed(argv: readonly string[], cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(argv[0]!, argv.slice(1), { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.on('close', (code) => {
      if (code === 0) resolve(performance.now() - started);
      else reject(new Error(`${argv.slice(1).join(' ')} exited ${code}: ${errors}`));
    });
  });
}

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', args, { cwd, stdio: 'ignore' });
}

function newRepo(): string {
  const repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'foreman-contention-bench-')));
  git(repo, 'init', '--quiet', '-b', 'main');
  git(repo, '-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', 'commit', '--quiet', '--allow-empty', '-m', 'initial');
  execFileSync(process.execPath, [cli, 'init'], { cwd: repo, stdio: 'ignore' });
  return repo;
}

/** One process per entry of `repos`, all at once, each making `callsPerClient` task adds in turn; latencies of all calls. */
async function contend(repos: readonly string[], label: string): Promise<number[]> {
  const one = async (repo: string, client: number): Promise<number[]> => {
    const latencies: number[] = [];
    for (let call = 0; call < callsPerClient; call++) {
      const title = `${label} client ${client} call ${call}`;
      latencies.push(await timed([process.execPath, cli, 'task', 'add', title, '--manual'], repo));
    }
    return latencies;
  };
  const all = await Promise.all(repos.map((repo, client) => one(repo, client)));
  return all.flat();
}

function taskCount(repo: string): number {
  const status = JSON.parse(execFileSync(process.execPath, [cli, 'status', '--json', '--all'], { cwd: repo, encoding: 'utf8' })) as {
    tasks: unknown[];
  };
  return status.tasks.length;
}

/** `clients` at once on one shared workspace and on a workspace each; checks every task landed. */
async function compare(shared: string, clients: number): Promise<Record<string, unknown>> {
  const own = Array.from({ length: clients }, () => newRepo());
  try {
    const separate = await contend(own, `own-${clients}`);
    const together = await contend(Array<string>(clients).fill(shared), `shared-${clients}`);
    const lost = own.filter((repo) => taskCount(repo) !== callsPerClient).length;
    if (lost) throw new Error(`${lost} of the ${clients} own workspaces lack tasks`);
    return {
      sharedWorkspace: tails(together),
      ownWorkspaces: tails(separate),
      sharedOverOwn: {
        median: round(percentile(together, 0.5) / percentile(separate, 0.5), 2),
        p99: round(percentile(together, 0.99) / percentile(separate, 0.99), 2),
        max: round(Math.max(...together) / Math.max(...separate), 2),
      },
    };
  } finally {
    for (const repo of own) fs.rmSync(repo, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  buildDist({ whenMissing: [cli] });
  const repo = newRepo();
  try {
    const floor: number[] = [];
    for (let index = 0; index < (quick ? 2 : 10); index++) floor.push(await timed([process.execPath, '-e', '0'], repo));
    const alone = await contend([repo], 'alone');
    const byClients: Record<string, Record<string, unknown>> = {};
    for (const clients of clientCounts) byClients[`clients${clients}`] = await compare(repo, clients);
    const expected = callsPerClient * (1 + clientCounts.reduce((sum, clients) => sum + clients, 0));
    const found = taskCount(repo);
    if (found !== expected) throw new Error(`expected ${expected} tasks in the shared workspace, found ${found}`);
    console.log(
      JSON.stringify(
        {
          callsPerClient,
          machine: { cpus: os.cpus().length, node: process.version },
          nodeFloor: tails(floor),
          alone: tails(alone),
          ...byClients,
          tasksWrittenToShared: expected,
          tasksFoundInShared: found,
        },
        null,
        2,
      ),
    );
  } finally {
    fs.rmSync(repo, { recursive: true, force: true });
  }
}

void main();
