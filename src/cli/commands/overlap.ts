/**
 * Overlapping tasks (docs/overlaps.md): `foreman overlaps` lists the pairs of running or in-review
 * tasks that touch the same files; `foreman overlap run-after|rebase-when-merged|ignore <task>
 * <other>` answers one pair.
 */
import { stringFlag } from '../argv';
import { type Printer, printFailure, processPrinter } from '../format';
import { resolveTarget, route } from '../route';
import type { Request } from '../../core/requests';
import { ExitCode } from '../../core/result';
import type { TaskStatusView } from '../../engine/statusView';
import { draft, required } from './helpers';
import type { CommandInput, CommandSpec } from './spec';

/** One line per pair, from the side that would act: who overlaps whom, in which files, and any plan. */
export function overlapLines(tasks: readonly TaskStatusView[]): string[] {
  const lines: string[] = [];
  for (const task of tasks) {
    for (const overlap of task.overlaps) {
      const loud = overlap.hunks ? 'same lines' : 'same files';
      const plan = overlap.plan ? ` [${overlap.plan}]` : '';
      const holder = overlap.workerId ? ` (${overlap.workerId})` : '';
      lines.push(`${task.id} overlaps ${overlap.taskId}${holder}, ${loud}: ${overlap.files.join(', ')}${plan}`);
    }
  }
  return lines.length ? lines : ['no overlaps: no two running tasks touch the same file'];
}

async function listOverlaps(input: CommandInput, printer: Printer = processPrinter): Promise<number> {
  const json = input.argv.flags.get('json') === true;
  const request: Request<'status'> = { command: 'status', args: { statuses: ['running'] }, actor: 'cli' };
  const target = resolveTarget(stringFlag(input.argv, 'dir'), input.env, input.cwd);
  const status = await route(target, request, { log: (line) => printer.err(`foreman: ${line}`) });
  if (!status.ok) return printFailure(printer, status, json);
  const tasks = status.value.tasks.filter((task) => task.overlaps.length > 0);
  if (json) printer.out(JSON.stringify(tasks.map((task) => ({ task: task.id, title: task.title, overlaps: task.overlaps }))));
  else overlapLines(tasks).forEach((line) => printer.out(line));
  return ExitCode.ok;
}

const pair = (command: 'overlap.run-after' | 'overlap.rebase-when-merged' | 'overlap.ignore') => (input: CommandInput) =>
  draft(command, { task: required(input, 'task'), other: required(input, 'other') });

export const overlapCommands: readonly CommandSpec[] = [
  {
    kind: 'local',
    name: 'overlaps',
    usage: '[--json]',
    summary: 'running or in-review tasks that touch the same files, with the files (same lines: their changes meet)',
    run: (input) => listOverlaps(input),
  },
  {
    kind: 'engine',
    name: 'overlap run-after',
    usage: '<task> <other>',
    summary: 'stop <task>, keep its work as a WIP commit on its branch, and queue it again blocked until <other> is Done',
    positionals: ['task', 'other'],
    build: pair('overlap.run-after'),
  },
  {
    kind: 'engine',
    name: 'overlap rebase-when-merged',
    usage: '<task> <other>',
    summary: "when <other> merges, rebase <task>'s worktree onto the new base at once and tell its agent",
    positionals: ['task', 'other'],
    build: pair('overlap.rebase-when-merged'),
  },
  {
    kind: 'engine',
    name: 'overlap ignore',
    usage: '<task> <other>',
    summary: 'stop reporting this pair as overlapping',
    positionals: ['task', 'other'],
    build: pair('overlap.ignore'),
  },
];
