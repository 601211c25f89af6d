/**
 * `foreman validate-transitions --archive` on months of history (issue 13: "the audit trail stays
 * whole and validate-transitions accepts the archive plus the live log"). A workspace gets
 * `--tasks` archived tasks (default 300,000) in segments of `--per-segment` (1,000), each task with
 * the three transitions of a finished one and every tenth segment also holding a task created
 * before the previous segment's last (their seq ranges overlap, as a long-queued task's do).
 *
 * Measured, each as a process of its own: the check's time and peak RSS, `foreman history` of one
 * archived task (which reads every segment too), and as the floor in the same run a bare read of
 * the same segments (read, split, JSON.parse each line, nothing kept).
 *
 * Usage: node --import tsx bench/auditTrail.bench.ts [--tasks 300000] [--per-segment 1000] [--cli <dist/cli.js of another build>]
 *   [--cpu-prof <dir>] (the check's CPU profile) [--quick].
 * Builds dist/ first (not under `npm test`, which just did).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ok } from '../src/core/result';
import { recordApplied } from '../src/engine/archiveChain';
import { readStoreId } from '../src/engine/storeIdentity';
import { SqlJsStore } from '../src/infra/db';
import { FileArchiveSink } from '../src/infra/fs/archiveSegments';
import { foreman, git } from './support/cliProcesses';
import { buildDist, quick } from './support/options';
import { round } from './support/stats';

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return Number(index >= 0 ? process.argv[index + 1] : fallback) || fallback;
}

const tasks = option('tasks', quick ? 2_000 : 300_000);
const perSegment = option('per-segment', quick ? 500 : 1_000);
const root = path.join(__dirname, '..');
const cliIndex = process.argv.indexOf('--cli');
/** The CLI checked: dist/'s, or another build's (`--cli <path>`, e.g. an older commit's, to compare). */
const cli = cliIndex >= 0 ? path.resolve(process.argv[cliIndex + 1] ?? '') : path.join(root, 'dist', 'cli.js');
const profileIndex = process.argv.indexOf('--cpu-prof');
/** A folder for the check's CPU profile (`--cpu-prof <dir>`). */
const profileDir = profileIndex >= 0 ? path.resolve(process.argv[profileIndex + 1] ?? '') : undefined;

/** The three transitions of a finished task, as the archive holds them. */
function finishedTask(id: string, seq: number, at: number): string[] {
  const event = (offset: number, from: string, to: string, trigger: string) =>
    JSON.stringify({
      kind: 'transition',
      seq: seq + offset,
      timestamp: new Date(at + offset * 1000).toISOString(),
      event_type: 'task_state_transition',
      severity: 'info',
      entity_id: id,
      from_state: from,
      to_state: to,
      trigger,
      actor: 'bench',
      reason: null,
      attempt: offset === 0 ? null : 1,
      request_id: null,
    });
  return [
    JSON.stringify({ kind: 'task', id, status: 'done', title: `Task ${id}`, prompt: 'Do the step of the plan.' }),
    event(0, 'idle', 'queued', 'enqueue'),
    event(1, 'queued', 'running', 'claim'),
    event(2, 'running', 'done', 'complete'),
  ];
}

/**
 * Segments of finished tasks, seqs rising through them. Every tenth segment's first task is given
 * the seqs just before the previous segment's last task (its range reaches back into that one).
 */
async function writeArchive(foremanDir: string): Promise<{ transitions: number; bytes: number }> {
  const sink = new FileArchiveSink(foremanDir);
  // The segments are this store's chain, recorded as applied, as retention would have left them.
  const store = await SqlJsStore.open(foremanDir);
  const storeId = store.read((reader) => readStoreId(reader));
  if (!storeId) throw new Error('foreman init recorded no store identity');
  let previous: string | null = null;
  const start = Date.parse('2026-01-01T00:00:00Z');
  let made = 0;
  let batch = 0;
  while (made < tasks) {
    batch++;
    const lines: string[] = [];
    const count = Math.min(perSegment, tasks - made);
    for (let index = 0; index < count; index++) {
      const task = made + index;
      // Seqs 10 apart per task leave room for the overlapping task of the next segment.
      let seq = task * 10 + 1;
      if (index === 0 && batch % 10 === 0 && made > 0) seq = (made - 1) * 10 - 4;
      lines.push(...finishedTask(`t-${task}`, seq, start + seq * 1000));
    }
    const firstSeq = Math.min(...lines.map((line) => (JSON.parse(line) as { seq?: number }).seq ?? Infinity));
    previous = sink.write({ batch, lines, store: storeId, previous, firstSeq, tasks: [] });
    made += count;
  }
  const head = previous;
  const recorded = store.write((tx) => {
    if (head !== null) recordApplied(tx, batch, head);
    return ok(undefined);
  });
  store.close();
  if (!recorded.ok) throw new Error(recorded.message);
  const bytes = sink.batches().reduce((sum, n) => sum + fs.statSync(path.join(sink.dir, `${String(n).padStart(6, '0')}.jsonl`)).size, 0);
  return { transitions: tasks * 3, bytes };
}

/** Runs `args` under node with a preload that prints the process's peak RSS (KiB) to stderr at exit. */
function measured(args: string[], cwd: string): { seconds: number; peakRssMiB: number; status: number | null; stdout: string } {
  const preload = path.join(os.tmpdir(), 'foreman-bench-maxrss.cjs');
  fs.writeFileSync(preload, "process.on('exit', () => process.stderr.write(`\\nmaxRssKiB=${process.resourceUsage().maxRSS}\\n`));\n");
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, ['--require', preload, ...args], { cwd, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const rss = Number(/maxRssKiB=(\d+)/.exec(run.stderr)?.[1] ?? Number.NaN);
  return { seconds: round(seconds, 2), peakRssMiB: round(rss / 1024, 0), status: run.status, stdout: run.stdout.trim() };
}

/** The floor: every segment read, split and each line parsed, nothing kept. */
const floorScript = `
const fs = require('node:fs'), path = require('node:path');
const dir = process.argv[1];
let lines = 0;
for (const name of fs.readdirSync(dir).sort()) {
  for (const line of fs.readFileSync(path.join(dir, name), 'utf8').split('\\n')) if (line) { JSON.parse(line); lines++; }
}
console.log(lines);
`;

async function main(): Promise<void> {
  buildDist();
  const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'foreman-bench-trail-'));
  try {
    git(repo, 'init', '--quiet', '-b', 'main');
    git(repo, '-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', 'commit', '--quiet', '--allow-empty', '-m', 'initial');
    foreman(repo, 'init');
    const foremanDir = path.join(repo, '.foreman');
    process.stderr.write(`audit trail bench: writing ${tasks} archived tasks…\n`);
    const archive = await writeArchive(foremanDir);
    process.stderr.write('audit trail bench: validate-transitions --archive…\n');
    const profile = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
    const check = measured([...profile, cli, 'validate-transitions', '--archive', '--json'], repo);
    const report = JSON.parse(check.stdout) as { ok: boolean; count: number; errors: unknown[] };
    if (!report.ok || report.count !== archive.transitions) throw new Error(`the check did not pass: ${check.stdout.slice(0, 500)}`);
    // One archived task looked up by `foreman history` (every segment read, only its lines parsed).
    const wanted = `t-${Math.floor(tasks / 2)}`;
    const lookup = measured([cli, 'history', wanted, '--json'], repo);
    const found = JSON.parse(lookup.stdout) as { archivedTask: { id: string } | null; transitions: unknown[] };
    if (found.archivedTask?.id !== wanted || found.transitions.length !== 3)
      throw new Error(`history did not find ${wanted}: ${lookup.stdout}`);
    const floor = measured(['-e', floorScript, path.join(foremanDir, 'archive')], repo);
    process.stdout.write(
      `${JSON.stringify(
        {
          tasks,
          perSegment,
          cli: path.relative(root, cli),
          transitions: archive.transitions,
          archiveMiB: round(archive.bytes / 2 ** 20, 1),
          check: { seconds: check.seconds, peakRssMiB: check.peakRssMiB },
          history: { seconds: lookup.seconds, peakRssMiB: lookup.peakRssMiB },
          floor: { seconds: floor.seconds, peakRssMiB: floor.peakRssMiB },
          checkOverFloor: { time: round(check.seconds / floor.seconds, 2), peakRss: round(check.peakRssMiB / floor.peakRssMiB, 2) },
          historyOverFloor: { time: round(lookup.seconds / floor.seconds, 2), peakRss: round(lookup.peakRssMiB / floor.peakRssMiB, 2) },
        },
        null,
        2,
      )}\n`,
    );
  } finally {
    fs.rmSync(repo, { recursive: true, force: true });
  }
}

void main();
