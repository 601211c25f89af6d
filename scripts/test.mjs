#!/usr/bin/env node
// `npm test`: builds, passes the gates, then runs every suite and ends with ONE line: "N passed, N failed".
// Gates, in order, before any suite; the first that fails ends the run (docs/testing.md):
//   typecheck          tsc --noEmit over the project (src, test, bench) and over webview/
//   lint               eslint over the repository (type-checked rules, the layering rule)
// Suites:
//   unit, integration  node's test runner over test/{unit,integration}/**/*.test.ts (TAP counts)
//   vscode             in-host suites inside a real VS Code extension host (runInVsCode.mjs):
//                      the harness's own suite, Foreman's (test/vscode/foreman/run.mjs) and the
//                      multi-root one (test/vscode/multiroot/run.mjs)
//   e2e                UI tests driving the workbench with Playwright + chromium (test/e2e/*.e2e.ts)
//   bench              every bench in bench/ once in its quick mode (scripts/bench.mjs --quick): one
//                      that throws or prints no JSON fails; its figures and own targets are not judged
// The VS Code suites need code-server and chromium: scripts/vscode/provision.mjs installs them into
// .vscode-test/ first (instant when already there). A suite that fails or cannot run fails the run.
//
// Usage: node scripts/test.mjs [typecheck] [lint] [unit] [integration] [vscode] [e2e] [bench]
//   (default: all of them; naming any runs only those, gates included)
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { benchFiles, runBenches } from './bench.mjs';

const root = new URL('..', import.meta.url).pathname.replace(/\/$/, '');
const gates = ['typecheck', 'lint'];
const suites = ['unit', 'integration', 'vscode', 'e2e', 'bench'];
const only = process.argv.slice(2);
const unknown = only.filter((name) => !gates.includes(name) && !suites.includes(name));
if (unknown.length) {
  console.error(`test: unknown suite ${unknown.join(', ')}; known: ${[...gates, ...suites].join(', ')}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const selectedGates = only.length ? gates.filter((name) => only.includes(name)) : gates;
const selected = only.length ? suites.filter((name) => only.includes(name)) : suites;
const results = dirResults();
/** One entry per suite run: { name, passed, failed, seconds, note }. */
const tally = [];
const env = { ...process.env, FOREMAN_TEST: '1' };

function dirResults() {
  const dir = join(root, 'test-results');
  mkdirSync(dir, { recursive: true });
  return dir;
}

function findTests(dir, pattern) {
  if (!existsSync(dir)) return [];
  const found = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) found.push(...findTests(full, pattern));
    else if (pattern.test(name)) found.push(relative(root, full));
  }
  return found.sort();
}

/**
 * The whole run's budget: CI gives `.ci/run` 90 minutes, installs included. A suite still running
 * when it ends is killed (its whole process group) and counted failed, and no later suite starts,
 * so a hang is reported as a hang, naming the suite, instead of as a CI timeout that says nothing.
 */
const budgetMinutes = Number(process.env.FOREMAN_TEST_BUDGET_MIN ?? 78);
const deadline = Date.now() + budgetMinutes * 60_000;
let overBudget = false;
/** The process group of the command running now, killed on Ctrl-C as well. */
let runningGroup;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (runningGroup) killGroup(runningGroup);
    process.exit(1);
  });
}

function killGroup(pid) {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Runs a command with inherited stdio, or with its stdout teed to ours and kept; resolves to { code, output, killed }. */
function run(argv, { capture = false, extraEnv = {} } = {}) {
  return new Promise((resolve) => {
    if (Date.now() >= deadline) {
      overBudget = true;
      resolve({ code: 1, output: '', killed: true });
      return;
    }
    // Its own process group, so that the budget (or Ctrl-C) ends the test files and their children too.
    const child = spawn(argv[0], argv.slice(1), {
      cwd: root,
      env: { ...env, ...extraEnv },
      stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'],
      detached: true,
    });
    runningGroup = child.pid;
    let killed = false;
    const watchdog = setTimeout(() => {
      killed = overBudget = true;
      console.log(`\ntest: ✖ the run passed its ${budgetMinutes}-minute budget (FOREMAN_TEST_BUDGET_MIN) during \`${argv.slice(1, 4).join(' ')} …\`: killed`);
      killGroup(child.pid);
    }, Math.max(0, deadline - Date.now()));
    let output = '';
    child.stdout?.on('data', (chunk) => {
      output += chunk;
      process.stdout.write(chunk);
    });
    child.on('error', (error) => {
      clearTimeout(watchdog);
      console.error(`test: ${argv[0]}: ${error.message}`);
      resolve({ code: 1, output, killed });
    });
    child.on('close', (code, signal) => {
      clearTimeout(watchdog);
      runningGroup = undefined;
      resolve({ code: killed ? 1 : (code ?? (signal ? 1 : 0)), output, killed });
    });
  });
}

const elapsed = (since) => Math.round((Date.now() - since) / 100) / 10;

/** Node's test runner over `files`, with a spec reporter on screen and TAP in test-results/<name>.tap. */
async function nodeTests(name, files, { concurrency, extraEnv = {} }) {
  const started = Date.now();
  if (files.length === 0) {
    tally.push({ name, passed: 0, failed: 1, seconds: 0, note: 'no test files found' });
    return;
  }
  const tap = join(results, `${name.replace(/\W+/g, '-')}.tap`);
  rmSync(tap, { force: true });
  console.log(`\ntest: ${name}: ${files.length} files`);
  const { code, killed } = await run(
    [
      process.execPath,
      '--import',
      'tsx',
      '--test',
      `--test-concurrency=${concurrency}`,
      // No single test may hang the run: ten minutes is ten times the slowest test's time on
      // this machine. (Not --test-force-exit: on Node 20 it ends the runner before the TAP
      // reporter writes its totals.)
      '--test-timeout=600000',
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=tap',
      `--test-reporter-destination=${tap}`,
      ...files,
    ],
    { extraEnv },
  );
  const text = existsSync(tap) ? readFileSync(tap, 'utf8') : '';
  const count = (label) => Number(text.match(new RegExp(`^# ${label} (\\d+)$`, 'm'))?.[1] ?? 0);
  const passed = count('pass');
  // A runner that died without reporting (a crash, a bad flag) must not read as green.
  // Nor a runner that ended without its totals.
  const totals = /^# pass \d+$/m.test(text);
  const failed = count('fail') + count('cancelled') || (code === 0 && totals ? 0 : 1);
  const skipped = count('skipped') + count('todo');
  const notes = [...(skipped ? [`${skipped} skipped`] : []), ...(killed ? ['killed at the run budget'] : [])];
  tally.push({ name, passed, failed: failed || (killed ? 1 : 0), seconds: elapsed(started), ...(notes.length ? { note: notes.join('; ') } : {}) });
}

/** One in-host run; its last line is "in-vscode: N passed, N failed". */
async function inVsCode(name, argv) {
  const started = Date.now();
  console.log(`\ntest: ${name}`);
  const { code, output, killed } = await run([process.execPath, ...argv], { capture: true });
  const lines = [...output.matchAll(/^in-vscode: (\d+) passed, (\d+) failed/gm)];
  const last = lines.at(-1);
  const passed = last ? Number(last[1]) : 0;
  const failed = (last ? Number(last[2]) : 0) || (code === 0 && last ? 0 : 1);
  tally.push({ name, passed, failed, seconds: elapsed(started), ...(killed ? { note: 'killed at the run budget' } : {}) });
}

/** Each gate's commands: the project's own tsc and eslint, run by node (argv, no shell). */
const gateCommands = {
  typecheck: [
    ['tsc -p . --noEmit', 'node_modules/typescript/bin/tsc', '-p', '.', '--noEmit'],
    ['tsc -p webview --noEmit', 'node_modules/typescript/bin/tsc', '-p', 'webview', '--noEmit'],
  ],
  lint: [['eslint .', 'node_modules/eslint/bin/eslint.js', '.']],
};

/** Runs a gate's commands in turn; false at the first that fails, after saying which. */
async function gate(name) {
  for (const [label, ...argv] of gateCommands[name]) {
    const started = Date.now();
    console.log(`\ntest: gate ${name}: ${label}`);
    const { code } = await run([process.execPath, ...argv]);
    tally.push({ name: `${name}: ${label}`, passed: code === 0 ? 1 : 0, failed: code === 0 ? 0 : 1, seconds: elapsed(started) });
    if (code !== 0) {
      console.log(`\ntest: ✖ the ${name} gate failed: \`${label}\` exited ${code} (its errors are above); no suite runs until it passes.`);
      return false;
    }
  }
  return true;
}

/** Prints what each gate and suite did, then the one line the run ends with; exits 0 only when nothing failed. */
function finish() {
  console.log('\ntest: summary');
  for (const entry of tally) {
    console.log(
      `  ${entry.failed ? '✖' : '✔'} ${entry.name}: ${entry.passed} passed, ${entry.failed} failed (${entry.seconds}s)${entry.note ? ` — ${entry.note}` : ''}`,
    );
  }
  console.log(`  total time ${elapsed(started)}s`);
  if (overBudget) console.log(`  ✖ the run passed its ${budgetMinutes}-minute budget: the suite named above was killed, later ones did not run`);
  const passed = tally.reduce((sum, entry) => sum + entry.passed, 0);
  const failed = tally.reduce((sum, entry) => sum + entry.failed, 0);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
}

const started = Date.now();
console.log('test: building the extension, the CLI and the webview…');
if (spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' }).status !== 0) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}
// The UI tests and the benches build only when run on their own (test/e2e/support/repo.ts, bench/support/options.ts).
env.FOREMAN_BUILT = '1';

// Type errors and lint fail fast: a run that would go on for half an hour stops here instead.
for (const name of selectedGates) if (!(await gate(name))) finish();

const codeTests = selected.filter((name) => name === 'unit' || name === 'integration');
if (selected.includes('integration')) {
  // The shared store's tests start PostgreSQL servers of their own: Debian's package, when missing.
  console.log('\ntest: Debian packages the integration tests use (instant when present)…');
  const apt = await run([process.execPath, join(root, 'scripts/vscode/provision.mjs'), '--apt-only']);
  if (apt.code !== 0) tally.push({ name: 'apt packages', passed: 0, failed: 1, seconds: 0, note: 'postgresql may be missing' });
}
if (codeTests.length) {
  // PostgreSQL's tests start servers and claiming processes: they run in their own pass below,
  // alone, rather than beside the suites that time real processes.
  const postgresTests = join('test', 'integration', 'pg');
  const files = codeTests
    .flatMap((suite) => findTests(join(root, 'test', suite), /\.test\.ts$/))
    .filter((file) => !file.startsWith(postgresTests));
  await nodeTests(codeTests.join(' + '), files, { concurrency: 2 });
}
if (selected.includes('integration')) {
  // The engine's suites once more, on PostgreSQL (issue 14): the same files, another store
  // (test/support/engineHarness.ts reads FOREMAN_TEST_STORE).
  await nodeTests('integration (PostgreSQL)', findTests(join(root, 'test', 'integration', 'pg'), /\.test\.ts$/), { concurrency: 1 });
  const files = findTests(join(root, 'test', 'integration', 'engine'), /\.test\.ts$/);
  await nodeTests('integration (engine on PostgreSQL)', files, { concurrency: 1, extraEnv: { FOREMAN_TEST_STORE: 'postgres' } });
}

if (selected.includes('bench') && Date.now() >= deadline) {
  overBudget = true;
  tally.push({ name: 'bench (quick)', passed: 0, failed: 1, seconds: 0, note: 'not run: past the run budget' });
} else if (selected.includes('bench')) {
  const benchStarted = Date.now();
  console.log('\ntest: bench: every bench in bench/ once, quick (scripts/bench.mjs --quick --jobs 2; outputs in test-results/bench/)');
  // Two at a time: the machine has two cores, and a quick run's figures are not read.
  // A quick bench takes well under a minute; five is a hang, not a slow machine.
  const outcomes = await runBenches({ quick: true, jobs: 2, extraEnv: env, outputDir: join(results, 'bench'), timeoutMs: 300_000 });
  const failed = outcomes.filter((outcome) => !outcome.ok);
  tally.push({
    name: 'bench (quick)',
    passed: outcomes.length - failed.length,
    failed: failed.length || (outcomes.length ? 0 : 1),
    seconds: elapsed(benchStarted),
    note: [
      ...(failed.length ? [`failed: ${failed.map((outcome) => outcome.file).join(', ')}`] : []),
      `${benchFiles().skipped.length} skipped (scripts/bench.mjs says why)`,
    ].join('; '),
  });
}

if (selected.includes('vscode') || selected.includes('e2e')) {
  console.log('\ntest: provisioning code-server and chromium for the VS Code suites (instant when present)…');
  const provisioned = await run([process.execPath, join(root, 'scripts/vscode/provision.mjs')]);
  if (provisioned.code !== 0) {
    tally.push({ name: 'provision', passed: 0, failed: 1, seconds: 0, note: 'the VS Code suites cannot run' });
  } else {
    if (selected.includes('vscode')) {
      await inVsCode('in-vscode: harness', [
        'test/vscode/runInVsCode.mjs',
        '--suite',
        'test/vscode/harness',
        '--extension',
        'test/fixtures/harness-extension',
        '--folder',
        'test/fixtures/harness-extension',
      ]);
      await inVsCode('in-vscode: foreman', ['test/vscode/foreman/run.mjs', '--no-build']);
      await inVsCode('in-vscode: multi-root', ['test/vscode/multiroot/run.mjs', '--no-build']);
    }
    // One workbench at a time: each UI test file starts its own code-server and chromium.
    if (selected.includes('e2e')) await nodeTests('e2e', findTests(join(root, 'test', 'e2e'), /\.e2e\.ts$/), { concurrency: 1 });
  }
}

finish();
