import type { AgentAdapter, AgentKind } from './adapter';
import { aiderAdapter } from './aider';
import { claudeAdapter } from './claude';
import { codexAdapter } from './codex';

export * from './adapter';
export { claudeSessionExists, defaultClaudeAllowedTools } from './claude';
export { codexSessionExists } from './codex';
export { configurationProblem, judgeRun } from './verdicts';

/** The adapters of the agent CLIs Foreman knows; `command` profiles run as given (launchPlan). */
export const adapters: Readonly<Record<Exclude<AgentKind, 'command'>, AgentAdapter>> = {
  claude: claudeAdapter,
  codex: codexAdapter,
  aider: aiderAdapter,
};
