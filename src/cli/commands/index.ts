import { type CommandName, readOnlyCommands } from '../../core/requests';
import { archiveCommands } from './archive';
import { busCommands } from './bus';
import { agentReportCommands } from './agentReports';
import type { CommandSpec } from './spec';
import { taskCommands } from './task';
import { waitCommands } from './wait';
import { wipCommands } from './wip';
import { workerCommands } from './worker';
import { workspaceCommands } from './workspace';

export type { CommandSpec, CommandInput, CliEnvironment, RequestDraft } from './spec';

/** Every command, in the order `foreman help` lists them. */
export const commandTable: readonly CommandSpec[] = [
  ...workspaceCommands.filter((spec) => spec.name === 'init'),
  ...workerCommands.filter((spec) => spec.name.startsWith('worker ')),
  ...taskCommands,
  ...workerCommands.filter((spec) => !spec.name.startsWith('worker ')),
  ...waitCommands,
  ...busCommands,
  ...agentReportCommands,
  ...wipCommands,
  ...workspaceCommands.filter((spec) => spec.name !== 'init'),
  ...archiveCommands,
];

/** The first words that need a second one ("worker add"). */
export const commandGroups: ReadonlySet<string> = new Set(
  commandTable.filter((spec) => spec.name.includes(' ')).map((spec) => spec.name.slice(0, spec.name.indexOf(' '))),
);

export function findCommand(words: readonly string[]): CommandSpec | undefined {
  return commandTable.find((spec) => spec.name === words.join(' '));
}

/** Whether a command changes state (and so takes `--request-id`): what the request contract does not list as read-only. */
export function isMutating(spec: CommandSpec): boolean {
  if (spec.kind !== 'engine') return false;
  const command = spec.name.replace(' ', '.');
  return !readOnlyCommands.has(command as CommandName);
}
