import { agentReportCommands } from './agentReports';
import { busCommands } from './bus';
import { inspectCommands } from './inspect';
import { type EngineCommand, groupsOf } from './spec';
import { planCommands, taskCommands } from './task';
import { workerCommands } from './worker';

/**
 * The commands the thin CLI sends to an owner itself: engine commands whose request comes from
 * argv (and files it names) alone, in modules that load neither zod nor the store. Left to the
 * full CLI: `chain add` (markdown-it and the chain schema read the file), `worker add` (it checks
 * the agent profile against the workspace's settings after the answer), and every local command.
 */
export const routableCommands: readonly EngineCommand[] = [
  ...workerCommands,
  ...taskCommands,
  ...planCommands,
  ...busCommands,
  ...agentReportCommands,
  ...inspectCommands,
].filter((spec): spec is EngineCommand => spec.kind === 'engine' && spec.name !== 'worker add');

/** The first words of the routable two-word commands; a subset of the full table's. */
export const routableGroups: ReadonlySet<string> = groupsOf(routableCommands);

export function findRoutable(words: readonly string[]): EngineCommand | undefined {
  const name = words.join(' ');
  return routableCommands.find((spec) => spec.name === name);
}
