#!/usr/bin/env node
// Runs every suite with node's test runner and ends with one line: "N passed, N failed".
// Usage: node scripts/test.mjs [unit|integration|...]  (default: all suites under test/)
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const only = process.argv.slice(2);

function findTests(dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) found.push(...findTests(full));
    else if (/\.test\.ts$/.test(name)) found.push(full);
  }
  return found;
}

const build = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'inherit' });
if (build.status !== 0) {
  console.log('0 passed, 1 failed (build)');
  process.exit(1);
}

const suites = ['unit', 'integration'];
const selected = only.length ? only : suites;
const files = selected.flatMap((suite) => findTests(join(root, 'test', suite))).map((f) => relative(root, f));
mkdirSync(join(root, 'test-results'), { recursive: true });
const run = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', '--test-reporter-destination=stdout',
   '--test-reporter=tap', '--test-reporter-destination=test-results/tap.txt', ...files],
  { cwd: root, stdio: 'inherit', env: { ...process.env, FOREMAN_TEST: '1' } },
);

const tap = readFileSync(join(root, 'test-results/tap.txt'), 'utf8');
const count = (label) => Number(tap.match(new RegExp(`^# ${label} (\\d+)$`, 'm'))?.[1] ?? 0);
const passed = count('pass');
// A runner that died without reporting (a crash, a bad flag) must not read as green.
const failed = count('fail') || (run.status === 0 ? 0 : 1);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && run.status === 0 ? 0 : 1);
