/**
 * What a `status --all` costs the owner's other clients (issue 34, item 2): through a real
 * `foreman serve` at `--tasks` (100k), heartbeats arrive open loop every `--interval-ms` (50), each
 * on a new connection, first alone for `--seconds`, then while `--listings` `status --all` requests
 * run one after another on a connection of their own. Printed: the heartbeats' median, p99 and max
 * alone and while a listing was in flight, the ratio of the two maxima, and each listing's time and
 * size. `--cli <dist/cli.js>` runs another build (say, one made from `git archive HEAD`) for a
 * before/after in the same conditions.
 *
 * Usage: node --import tsx bench/ownerStatusAll.bench.ts [--tasks 100000] [--seconds 8]
 *   [--interval-ms 50] [--listings 3] [--cli path/to/dist/cli.js]. Builds dist/ first.
 */
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ok } from '../src/core/result';
import { SqlJsStore } from '../src/infra/db';
import { readAnnouncement } from '../src/infra/endpoint/discovery';
import { benchSettings } from './clientsChild';
import { seed } from './support/claimWorkload';
import { buildDist, numberOption } from './support/options';
import { round, tails } from './support/stats';

const taskCount = numberOption('tasks', 100_000, 500);
const seconds = numberOption('seconds', 8, 1);
const intervalMs = numberOption('interval-ms', 50);
const listings = numberOption('listings', 3, 1);
const cliFlag = process.argv.indexOf('--cli');
const cli = path.resolve(cliFlag > 0 ? (process.argv[cliFlag + 1] ?? '') : path.join(__dirname, '..', 'dist', 'cli.js'));
const worker = 'beat-1';

function run(cwd: string, file: string, ...args: string[]): void {
  execFileSync(file, args, { cwd, stdio: 'ignore' });
}

/** One request on a connection of its own; resolves to the answer line's length once it is whole. */
function send(socketPath: string, token: string, command: string, args: object): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath);
    const chunks: Buffer[] = [];
    socket.on('error', reject);
    socket.on('connect', () => socket.write(`${JSON.stringify({ token, request: { command, args, actor: 'bench' } })}\n`));
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (chunk.includes(10)) {
        socket.destroy();
        const line = Buffer.concat(chunks).toString();
        if (!line.startsWith('{"ok":true')) reject(new Error(`${command} failed: ${line.slice(0, 300)}`));
        else resolve(line.length);
      }
    });
  });
}

/** Heartbeats every `intervalMs` for `seconds`; each one's latency from its scheduled start, and when it ran. */
async function beats(socketPath: string, token: string): Promise<Array<{ at: number; ms: number }>> {
  const started = performance.now();
  const results: Array<{ at: number; ms: number }> = [];
  const running: Promise<void>[] = [];
  for (let index = 0; index < Math.floor((seconds * 1000) / intervalMs); index++) {
    const at = started + index * intervalMs;
    const wait = at - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    running.push(send(socketPath, token, 'heartbeat', { worker }).then(() => void results.push({ at, ms: performance.now() - at })));
  }
  await Promise.all(running);
  return results;
}

async function main(): Promise<void> {
  if (cliFlag < 0) buildDist();
  const repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'foreman-status-all-')));
  try {
    run(repo, 'git', 'init', '--quiet', '-b', 'main');
    run(repo, 'git', '-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', 'commit', '--quiet', '--allow-empty', '-m', 'initial');
    run(repo, process.execPath, cli, 'init');
    fs.writeFileSync(path.join(repo, '.foreman', 'settings.json'), JSON.stringify(benchSettings));
    run(repo, process.execPath, cli, 'worker', 'add', worker);
    const store = await SqlJsStore.open(path.join(repo, '.foreman'));
    seed(taskCount, (sql, params) => store.write((tx) => ok(tx.run(sql, params))));
    store.close();

    const serve = spawn(process.execPath, [cli, 'serve', '--no-agents'], { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer): void => {
        output = (output + chunk.toString()).slice(-4000);
        if (/foreman serve: owner of .*, endpoint/.test(output)) resolve();
      };
      serve.stdout.on('data', onData);
      serve.stderr.on('data', onData);
      serve.once('close', () => reject(new Error(`serve exited: ${output}`)));
    });
    try {
      const announcement = readAnnouncement(path.join(repo, '.foreman'));
      if (!announcement) throw new Error('the owner announced no endpoint');
      const { socketPath } = announcement.info;
      const { token } = announcement;
      const alone = await beats(socketPath, token);
      const windows: Array<{ from: number; to: number; bytes: number }> = [];
      const listing = (async () => {
        for (let index = 0; index < listings; index++) {
          const from = performance.now();
          const bytes = await send(socketPath, token, 'status', {});
          windows.push({ from, to: performance.now(), bytes });
        }
      })();
      const during = await beats(socketPath, token);
      await listing;
      // A heartbeat counts as "during" when it was scheduled or answered while a listing was in flight.
      const overlapped = during.filter((beat) => windows.some((w) => beat.at < w.to && beat.at + beat.ms > w.from)).map((beat) => beat.ms);
      const aloneTails = tails(
        alone.map((beat) => beat.ms),
        2,
      );
      const duringTails = tails(overlapped, 2);
      console.log(
        JSON.stringify(
          {
            tasks: taskCount,
            cli: path.relative(process.cwd(), cli),
            intervalMs,
            heartbeatsAlone: aloneTails,
            heartbeatsWhileListing: duringTails,
            maxWhileListingOverAlone: round((duringTails['maxMs'] ?? 0) / (aloneTails['maxMs'] ?? 1), 2),
            listings: windows.map((w) => ({ ms: round(w.to - w.from, 1), megabytes: round(w.bytes / 1e6, 1) })),
            machine: { cpus: os.cpus().length, node: process.version, loadAverage: os.loadavg().map((load) => round(load, 2)) },
          },
          null,
          2,
        ),
      );
    } finally {
      serve.kill('SIGTERM');
      await new Promise((resolve) => serve.once('close', resolve));
    }
  } finally {
    fs.rmSync(repo, { recursive: true, force: true });
  }
}

void main();
