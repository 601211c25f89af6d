import * as path from 'node:path';
import { stringFlag } from '../argv';
import { processPrinter } from '../format';
import { resolveTarget } from '../route';
import { ExitCode } from '../../core/result';
import type { CommandInput, CommandSpec } from './spec';

/** How each status reads in the report: aligned, and failures stand out. */
const statusWords = { pass: 'ok  ', warn: 'warn', fail: 'FAIL', skip: 'skip' } as const;

/**
 * `foreman doctor`: one line per check on stdout (or one JSON object), progress on stderr. Exit 0
 * when nothing failed (warnings and skipped checks do not fail it), 1 otherwise.
 */
async function doctor(input: CommandInput): Promise<number> {
  const printer = processPrinter;
  const json = input.argv.flags.get('json') === true;
  const target = resolveTarget(stringFlag(input.argv, 'dir'), { ...input.env, endpoint: undefined }, input.cwd);
  const repoRoot = target.kind === 'workspace' ? target.repoRoot : path.resolve(input.cwd);
  const remote = stringFlag(input.argv, 'remote');
  const { doctor: runDoctor } = await import('../../host/setup.js');
  const checks = await runDoctor(repoRoot, {
    ...(remote !== undefined ? { remote } : {}),
    progress: (line) => printer.err(`foreman: ${line}`),
  });
  const ok = checks.every((check) => check.status !== 'fail');
  if (json) printer.out(JSON.stringify({ ok, checks }));
  else for (const check of checks) printer.out(`${statusWords[check.status]}  ${check.name.padEnd(9)} ${check.message}`);
  return ok ? ExitCode.ok : ExitCode.unexpected;
}

/** Checking that this machine can take part: the store, its schema, the clock, the git remote. */
export const doctorCommands: readonly CommandSpec[] = [
  {
    kind: 'local',
    name: 'doctor',
    usage: '[--remote <name>]',
    summary:
      'check this machine: the workspace, the store (reachable, schema version), the clock against the PostgreSQL server, and the git remote (default origin; with PostgreSQL or --remote); exit 1 if a check fails',
    flags: { remote: 'string' },
    run: doctor,
  },
];
