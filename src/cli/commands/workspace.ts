import * as path from 'node:path';
import { booleanFlag, stringFlag } from '../argv';
import { type Printer, printFailure, processPrinter } from '../format';
import { resolveTarget, route } from '../route';
import { ExitCode, type Result } from '../../core/result';
import { passwordAfterInit, passwordStdinFlag, storePasswordOf } from './initPassword';
import type { CommandInput, CommandSpec } from './spec';
import type { AdoptionReport, StoreConfig } from '../../host/infraParts';

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
  const { init: initWorkspace, parseStoreArgument, passwordAdvice, readStoreConfig } = await import('../../host/setup.js');
  const choice = storeText === undefined ? undefined : parseStoreArgument(storeText);
  if (choice && !choice.ok) return printFailure(printer, choice, json(input));
  const password = await storePasswordOf(input, choice?.value);
  if (!password.ok) return printFailure(printer, password, json(input));
  const report = await initWorkspace(repoRoot, {
    ...(base !== undefined ? { base } : {}),
    ...(choice ? { store: choice.value.config } : {}),
    ...(password.value.password !== undefined ? { storePassword: password.value.password } : {}),
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
    const passwordNote = passwordAfterInit(password.value, choice?.value, passwordAdvice);
    if (passwordNote) printer.err(passwordNote);
    if (!json(input)) for (const line of adoptionLines(value.repoRoot, value.storeId, value.archive)) printer.out(line);
    for (const problem of value.archive.problems) printer.err(`foreman: ${problem}`);
    return ExitCode.ok;
  }
  // A running owner holds the store: report what exists through it, change nothing. Naming the
  // store already in use is no change either (issue 29: re-running the README's init while serving).
  if (report.code === 'ownedByOther' && base === undefined && namesStoreInUse(repoRoot, choice?.value.config, readStoreConfig)) {
    const status = await route({ kind: 'workspace', repoRoot }, { command: 'status', args: { limit: 1 }, actor: 'cli' });
    if (status.ok) {
      const baseBranch = status.value.baseBranch ?? '-';
      const current = readStoreConfig(path.join(repoRoot, '.foreman'));
      const store = current.ok ? (current.value.kind === 'sqljs' ? 'sqljs' : current.value.url) : undefined;
      const where = store && store !== 'sqljs' ? ` on ${store}` : '';
      if (json(input))
        printer.out(
          JSON.stringify({
            repoRoot,
            foremanDir: path.join(repoRoot, '.foreman'),
            baseBranch,
            ...(store ? { store } : {}),
            created: false,
            changed: [],
          }),
        );
      else printer.out(`Foreman is already initialised in ${repoRoot}${where} (base branch ${baseBranch}); nothing changed`);
      return ExitCode.ok;
    }
  }
  return printFailure(printer, report, json(input));
}

/**
 * Whether `--store` (undefined: not given) names the store `.foreman/store.json` names already: the
 * same kind, the same URL, and no other TLS options.
 */
function namesStoreInUse(repoRoot: string, asked: StoreConfig | undefined, readStoreConfig: (dir: string) => Result<StoreConfig>): boolean {
  if (asked === undefined) return true;
  const current = readStoreConfig(path.join(repoRoot, '.foreman'));
  if (!current.ok) return false;
  if (asked.kind === 'sqljs' || current.value.kind === 'sqljs') return asked.kind === current.value.kind;
  return asked.url === current.value.url && (asked.ssl === undefined || JSON.stringify(asked.ssl) === JSON.stringify(current.value.ssl));
}

/** What `init` did with an archive and exports it found (issue 28), for a person. */
function adoptionLines(repoRoot: string, storeId: string, archive: AdoptionReport): string[] {
  const lines: string[] = [];
  if (archive.adopted > 0)
    lines.push(
      `kept the archive in .foreman/archive/ (${archive.adopted} segments) as this store's (${storeId}), after checking its chain`,
    );
  if (archive.movedTo !== null) {
    const where = path.relative(repoRoot, archive.movedTo);
    lines.push(
      `moved aside to ${where}/ what is not this store's (${storeId}): ${archive.moved.join(', ')}. Nothing was deleted; this store starts its own archive and exports, and \`foreman history <id>\` still finds what the moved files hold.`,
    );
  }
  return lines;
}

/** Setting up and owning a workspace. */
export const workspaceCommands: readonly CommandSpec[] = [
  {
    kind: 'local',
    name: 'init',
    usage: '[--base <branch>] [--store <postgres://user@host:port/db | sqljs> [--password-stdin]]',
    summary:
      'create .foreman/ in a git repository (base: default the branch checked out; store: default sqljs, or a shared PostgreSQL whose password comes from PGPASSWORD, ~/.pgpass, --password-stdin or a prompt, never from the URL or a file)',
    flags: { base: 'string', store: 'string', [passwordStdinFlag]: 'boolean' },
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
