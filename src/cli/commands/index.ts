import { archiveCommands } from './archive';
import { agentReportCommands } from './agentReports';
import { busCommands } from './bus';
import { chainCommands } from './chain';
import { doctorCommands } from './doctor';
import { hookCommands } from './claudeHook';
import { historyCommands } from './history';
import { inspectCommands } from './inspect';
import { mcpCommands } from './mcp';
import { overlapCommands } from './overlap';
import { type CommandSpec, groupsOf } from './spec';
import { planCommands, taskCommands } from './task';
import { waitCommands } from './wait';
import { wipCommands } from './wip';
import { workerCommands } from './worker';
import { workspaceCommands } from './workspace';

export type { CommandSpec, CommandInput, CliEnvironment, RequestDraft } from './spec';
export { isMutating, usageOf } from './spec';

/** Every command, in the order `foreman help` lists them. */
export const commandTable: readonly CommandSpec[] = [
  ...workspaceCommands.filter((spec) => spec.name === 'init'),
  ...workerCommands.filter((spec) => spec.name.startsWith('worker ')),
  ...taskCommands,
  ...chainCommands,
  ...planCommands,
  ...workerCommands.filter((spec) => !spec.name.startsWith('worker ')),
  ...waitCommands,
  ...overlapCommands,
  ...busCommands,
  ...hookCommands,
  ...agentReportCommands,
  ...wipCommands,
  ...inspectCommands,
  ...workspaceCommands.filter((spec) => spec.name !== 'init'),
  ...doctorCommands,
  ...archiveCommands,
  ...historyCommands,
  ...mcpCommands,
];

/** The first words that need a second one ("worker"). */
export const commandGroups: ReadonlySet<string> = groupsOf(commandTable);

export function findCommand(words: readonly string[]): CommandSpec | undefined {
  return commandTable.find((spec) => spec.name === words.join(' '));
}
