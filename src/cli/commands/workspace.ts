import * as path from 'node:path';
import { booleanFlag, stringFlag } from '../argv';
import { type Printer, printFailure, processPrinter } from '../format';
import { resolveTarget, route } from '../route';
import { ExitCode } from '../../core/result';
import type { CommandInput, CommandSpec } from './spec';

const json = (input: CommandInput): boolean => input.argv.flags.get('json') === true;
const logTo =
  (printer: Printer) =>
  (line: string): void =>
    printer.err(`foreman: ${line}`);

/** `init` works on the folder given (no search upwards: it is what creates `.foreman/`). */
async function init(input: CommandInput): Promise<number> {
  const printer = processPrinter;
  const repoRoot = path.resolve(input.cwd, stringFlag(input.argv, 'dir') ?? input.env.dir ?? '.');
  const base = stringFlag(input.argv, 'base');
  const storeText = stringFlag(input.argv, 'store');
  const { initWorkspace } = await import('../../infra/workspace/init.js');
  const { parseStoreArgument, passwordAdvice } = await import('../../infra/workspace/storeConfig.js');
  const choice = storeText === undefined ? undefined : parseStoreArgument(storeText);
  if (choice && !choice.ok) return printFailure(printer, choice, json(input));
  if (choice?.value.passwordRemoved) {
    printer.err(`foreman: the password in --store was left out of .foreman/store.json (and every log). ${passwordAdvice}`);
  }
  const report = await initWorkspace(repoRoot, {
    ...(base !== undefined ? { base } : {}),
    ...(choice ? { store: choice.value.config } : {}),
    ...(choice?.value.password !== undefined ? { storePassword: choice.value.password } : {}),
    log: logTo(printer),
  });
  if (report.ok) {
    const { value } = report;
    const where = value.store === 'sqljs' ? '' : ` on ${value.store}`;
    if (json(input)) printer.out(JSON.stringify(value));
    else if (value.created) printer.out(`initialised Foreman in ${value.repoRoot}${where} (base branch ${value.baseBranch})`);
    else if (value.changed.includes('store'))
      printer.out(`Foreman in ${value.repoRoot} now uses the store ${value.store} (base branch ${value.baseBranch})`);
    else if (value.changed.includes('base_branch')) printer.out(`Foreman in ${value.repoRoot}: base branch is now ${value.baseBranch}`);
    else printer.out(`Foreman is already initialised in ${value.repoRoot}${where} (base branch ${value.baseBranch}); nothing changed`);
    if (value.changed.includes('store') && !value.created) {
      printer.err('foreman: tasks and workers in the previous store stay there; they are not copied to the new one.');
    }
    return ExitCode.ok;
  }
  // A running owner holds the store: report what exists through it, change nothing.
  if (report.code === 'ownedByOther' && base === undefined && storeText === undefined) {
    const status = await route({ kind: 'workspace', repoRoot }, { command: 'status', args: { limit: 1 }, actor: 'cli' });
    if (status.ok) {
      const baseBranch = status.value.baseBranch ?? '-';
      if (json(input))
        printer.out(JSON.stringify({ repoRoot, foremanDir: path.join(repoRoot, '.foreman'), baseBranch, created: false, changed: [] }));
      else printer.out(`Foreman is already initialised in ${repoRoot} (base branch ${baseBranch}); nothing changed`);
      return ExitCode.ok;
    }
  }
  return printFailure(printer, report, json(input));
}

/** Setting up and owning a workspace. */
export const workspaceCommands: readonly CommandSpec[] = [
  {
    kind: 'local',
    name: 'init',
    usage: '[--base <branch>] [--store <postgres://user@host:port/db | sqljs>]',
    summary:
      'create .foreman/ in a git repository (base: default the branch checked out; store: default sqljs, or a shared PostgreSQL whose password comes from PGPASSWORD or ~/.pgpass, never from a file)',
    flags: { base: 'string', store: 'string' },
    run: init,
  },
  {
    kind: 'local',
    name: 'serve',
    usage: '[--no-agents]',
    summary:
      'own the workspace until stopped: endpoint, dispatcher, monitor, agents (--no-agents: agents drive themselves through the CLI; exit 3 if another process owns it)',
    flags: { 'no-agents': 'boolean' },
    run: async (input) => {
      const target = resolveTarget(stringFlag(input.argv, 'dir'), { ...input.env, endpoint: undefined }, input.cwd);
      if (target.kind !== 'workspace') throw new Error('serve always runs on a workspace folder');
      const { serve } = await import('../serve.js');
      return serve(target.repoRoot, json(input), processPrinter, { launchAgents: !booleanFlag(input.argv, 'no-agents') });
    },
  },
];
