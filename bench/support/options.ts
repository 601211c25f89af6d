/**
 * A bench's command-line options and its quick mode, read the same way by every bench.
 *
 * Quick mode (`--quick`, or FOREMAN_BENCH_QUICK=1 as `npm test`'s bench pass sets it) runs small
 * sizes for a few seconds: a check that the bench still runs and prints its JSON, whose figures
 * mean nothing. An option given on the command line wins over both defaults.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';

export const quick = process.argv.includes('--quick') || process.env['FOREMAN_BENCH_QUICK'] === '1';

/** The text after `--<name>`, when given. */
export function givenOption(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

/** `--<name> <text>`, else `full` (or `quickValue` in quick mode). */
export function textOption(name: string, full: string, quickValue = full): string {
  return givenOption(name) ?? (quick ? quickValue : full);
}

/** `--<name> <number>`, else `full` (or `quickValue` in quick mode); anything but a number ≥ 0 is refused. */
export function numberOption(name: string, full: number, quickValue = full): number {
  const given = givenOption(name);
  if (given === undefined) return quick ? quickValue : full;
  const value = Number(given);
  if (given.trim() === '' || !Number.isFinite(value) || value < 0) throw new Error(`--${name} takes a number ≥ 0, not "${given}"`);
  return value;
}

/** `--<name> 1,2,3`, else `full` (or `quickValue` in quick mode), as numbers. */
export function numbersOption(name: string, full: string, quickValue = full): number[] {
  const text = textOption(name, full, quickValue);
  const values = text.split(',').map(Number);
  if (values.some((value) => !Number.isFinite(value) || value < 0))
    throw new Error(`--${name} takes numbers ≥ 0 separated by commas, not "${text}"`);
  return values;
}

/**
 * Builds dist/ for a bench that runs the CLI or the owner from it, unless the caller built it just
 * now (`npm test` builds first and says so with FOREMAN_BUILT=1); with `whenMissing`, only when
 * one of those files is absent. The build's output goes to stderr: stdout is the bench's JSON.
 */
export function buildDist(options: { whenMissing?: readonly string[] } = {}): void {
  if (process.env['FOREMAN_BUILT'] === '1') return;
  if (options.whenMissing?.every((file) => existsSync(file))) return;
  execFileSync(process.execPath, [path.join(__dirname, '..', '..', 'scripts', 'build.mjs')], { stdio: ['ignore', 2, 'inherit'] });
}
