/**
 * Aider (ARCHITECTURE §6), from its documented flags only: it cannot be installed here. The prompt
 * goes in a file, `--yes-always` answers its questions, `--no-gitignore` keeps it from editing the
 * repository's .gitignore. Its exit code is 0 whether or not the model did anything, so success is
 * judged by the diff (the crew's "finished without changes" check) rather than by the code alone.
 */
import type { AdapterOptions, AdapterRun, AgentAdapter, PlannedArgs } from './adapter';
import { judgeRun } from './verdicts';

export const aiderAdapter: AgentAdapter = {
  kind: 'aider',
  command: 'aider',
  prompt: 'file',
  streamsEvents: false,
  hooksReportActivity: false,
  plan(run: AdapterRun, options: AdapterOptions): PlannedArgs {
    return {
      args: ['--yes-always', '--no-gitignore', '--no-pretty', ...options.extraArgs, '--message-file', run.files.promptFile],
      files: new Map([[run.files.promptFile, run.prompt]]),
      resumed: false,
      // Aider has no sandbox: with --yes-always it runs what the model asks.
      confinement: 'none',
    };
  },
  parser: () => ({ line: () => [] }),
  judge: judgeRun,
};
