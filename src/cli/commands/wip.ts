/**
 * `foreman wip list|restore`: the snapshots Foreman takes before it resets, reassigns, retries,
 * cancels or cleans up a worktree (`refs/foreman/wip/<task>/<attempt>`, ARCHITECTURE §5). Both work
 * on git alone, so they need no owner and take no lock: listing reads refs, restoring writes only
 * into the worktree it is given, and only when that worktree is clean.
 */
import * as path from 'node:path';
import { integerFlag, stringFlag } from '../argv';
import { type Printer, printFailure, processPrinter } from '../format';
import { resolveTarget } from '../route';
import { cell, table } from '../table';
import { taskIdSchema } from '../../core/ids';
import { ExitCode, type Result, invalid, notFound, ok } from '../../core/result';
import { required } from './helpers';
import type { CommandInput, CommandSpec } from './spec';
import type { WipSnapshot } from '../../host/infraParts';

const json = (input: CommandInput): boolean => input.argv.flags.get('json') === true;

function repoRootOf(input: CommandInput): Result<string> {
  const target = resolveTarget(stringFlag(input.argv, 'dir'), { ...input.env, endpoint: undefined }, input.cwd);
  if (target.kind !== 'workspace') return invalid('noRepository', 'wip: pass --dir <repo>; snapshots are read from the repository itself.');
  return ok(target.repoRoot);
}

function checkTask(field: string, value: string): Result<string>;
function checkTask(field: string, value: string | undefined): Result<string | undefined>;
function checkTask(field: string, value: string | undefined): Result<string | undefined> {
  if (value === undefined) return ok(undefined);
  const parsed = taskIdSchema.safeParse(value);
  return parsed.success
    ? ok(parsed.data)
    : invalid('invalidTaskId', `${field}: '${value}' is not a task id (${parsed.error.issues[0]?.message}).`);
}

async function list(input: CommandInput, printer: Printer = processPrinter): Promise<number> {
  const root = repoRootOf(input);
  if (!root.ok) return printFailure(printer, root, json(input));
  const task = checkTask('--task', stringFlag(input.argv, 'task'));
  if (!task.ok) return printFailure(printer, task, json(input));
  const { listWip } = await import('../../host/gitParts.js');
  const snapshots = (await listWip(root.value)).filter((snapshot) => task.value === undefined || snapshot.taskId === task.value);
  if (json(input)) {
    printer.out(JSON.stringify(snapshots));
    return ExitCode.ok;
  }
  if (snapshots.length === 0) {
    printer.out(task.value === undefined ? 'no wip snapshots: no work was ever set aside' : `no wip snapshots for task ${task.value}`);
    return ExitCode.ok;
  }
  const rows = snapshots.map((snapshot) => [
    snapshot.taskId,
    String(snapshot.attempt),
    snapshot.date,
    snapshot.sha.slice(0, 10),
    cell(snapshot.files.join(', '), 60),
  ]);
  for (const line of table(['TASK', 'ATTEMPT', 'SAVED', 'COMMIT', 'FILES'], rows)) printer.out(line);
  printer.out('restore one with `foreman wip restore <task> [--attempt N] [--into <worktree>]`');
  return ExitCode.ok;
}

/** `--attempt`: attempts are numbered from 1, so 0 or less is a usage error, not a snapshot to look for. */
function attemptFlag(input: CommandInput): Result<number | undefined> {
  const attempt = integerFlag(input.argv, 'attempt');
  if (!attempt.ok || attempt.value === undefined || attempt.value >= 1) return attempt;
  return invalid(
    'invalidAttempt',
    `--attempt: attempts are numbered from 1, got ${attempt.value}; \`foreman wip list\` shows the attempts that have snapshots.`,
    { field: '--attempt' },
  );
}

/** The snapshot a restore names: the task's latest attempt unless `--attempt` picks one. */
function pickSnapshot(snapshots: readonly WipSnapshot[], taskId: string, attempt: number | undefined): Result<WipSnapshot> {
  const ofTask = snapshots.filter((snapshot) => snapshot.taskId === taskId);
  const chosen = attempt === undefined ? ofTask.at(-1) : ofTask.find((snapshot) => snapshot.attempt === attempt);
  if (chosen) return ok(chosen);
  const known = ofTask.map((snapshot) => snapshot.attempt).join(', ');
  const message =
    ofTask.length === 0
      ? `No wip snapshot for task ${taskId}; \`foreman wip list\` shows what there is.`
      : `Task ${taskId} has no wip snapshot for attempt ${attempt}; it has attempts ${known}.`;
  return { ...notFound('wipSnapshot', taskId), message };
}

async function restore(input: CommandInput, printer: Printer = processPrinter): Promise<number> {
  const fail = (failure: Parameters<typeof printFailure>[1]) => printFailure(printer, failure, json(input));
  const root = repoRootOf(input);
  if (!root.ok) return fail(root);
  const task = checkTask('task', required(input, 'task'));
  if (!task.ok) return fail(task);
  const attempt = attemptFlag(input);
  if (!attempt.ok) return fail(attempt);
  const { listWip, restoreWip } = await import('../../host/gitParts.js');
  const chosen = pickSnapshot(await listWip(root.value), task.value, attempt.value);
  if (!chosen.ok) return fail(chosen);
  const into = path.resolve(input.cwd, stringFlag(input.argv, 'into') ?? '.');
  const sameRepository = await belongsTo(into, root.value);
  if (!sameRepository.ok) return fail(sameRepository);
  const restored = await restoreWip({ worktreePath: into, ref: chosen.value.ref });
  if (!restored.ok) return fail(restored);
  if (json(input)) printer.out(JSON.stringify({ ref: chosen.value.ref, into, ...restored.value }));
  else {
    printer.out(`restored ${chosen.value.ref} into ${into} as uncommitted changes (${restored.value.files.length} files):`);
    for (const file of restored.value.files) printer.out(`  ${file}`);
  }
  return ExitCode.ok;
}

/** A snapshot applies only to a worktree of the repository that holds it. */
async function belongsTo(folder: string, repoRoot: string): Promise<Result<void>> {
  const { commonDirectory } = await import('../../host/gitParts.js');
  const theirs = await commonDirectory(folder).catch(() => undefined);
  if (theirs !== undefined && theirs === (await commonDirectory(repoRoot))) return ok(undefined);
  return invalid(
    'foreignWorktree',
    `--into: '${folder}' is not a worktree of ${repoRoot}; pass one of its worktrees (see \`git worktree list\`).`,
    {
      into: folder,
    },
  );
}

export const wipCommands: readonly CommandSpec[] = [
  {
    kind: 'local',
    name: 'wip list',
    usage: '[--task <id>]',
    summary: 'uncommitted work Foreman set aside before a reset, retry, cancel or cleanup (refs/foreman/wip/<task>/<attempt>)',
    flags: { task: 'string' },
    run: (input) => list(input),
  },
  {
    kind: 'local',
    name: 'wip restore',
    usage: '<task> [--attempt N] [--into <worktree>]',
    summary: 'apply a snapshot (latest attempt by default) to a clean worktree (default: the current folder) as uncommitted changes',
    positionals: ['task'],
    flags: { attempt: 'string', into: 'string' },
    run: (input) => restore(input),
  },
];
