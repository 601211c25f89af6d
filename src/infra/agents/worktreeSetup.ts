/**
 * Worktree setup: what a worktree needs before an agent can work in it. Untracked files
 * (`.env*`, local config) are copied from the main checkout and kept out of Foreman's commits, a
 * setup command installs dependencies, and each worker holds its own port (FOREMAN_PORT) so
 * several dev servers run side by side. The crew calls `prepare` when a worktree is new or moved
 * to a new task branch, not when an agent is relaunched on the same branch.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { type Result, ok } from '../../core/result';
import type { PortRange } from '../../engine/settings';
import { verifyWorktreeTopLevel } from '../git/topLevel';
import { copySetupFiles } from './setupFiles';
import { defaultSetupTimeoutMs, runSetupCommand } from './setupCommand';
import { WorkerPorts } from './workerPorts';

/** The crew settings worktree setup reads (see `CrewSettingsFile`). */
export interface WorktreeSetupSettings {
  /** argv; empty: no setup command. */
  readonly setupCommand: readonly string[];
  /** Globs relative to the repository root. */
  readonly copyFiles: readonly string[];
  /** Undefined: no FOREMAN_PORT. */
  readonly portRange?: PortRange | undefined;
  /** How long the setup command may run before its process group is stopped; default 15 min. */
  readonly timeoutMs?: number;
}

export interface PrepareRequest {
  readonly workerId: string;
  readonly worktree: string;
  /** The attempt's log: the setup command's header and output are appended there. */
  readonly logFile: string;
  /** The setup command's environment (the agent's, PATH included); FOREMAN_PORT is added. */
  readonly env: Readonly<Record<string, string>>;
  /** Each line of the setup command's output, as it arrives. */
  readonly onProgress?: (line: string) => void;
}

export interface PrepareOutcome {
  /** Paths (relative to the repository root) copied into the worktree. */
  readonly copied: string[];
  /** Whether a setup command ran (and succeeded). */
  readonly ranSetup: boolean;
}

export class WorktreeSetup {
  private readonly ports: WorkerPorts;

  constructor(
    private readonly repoRoot: string,
    foremanDir: string,
    private readonly settings: WorktreeSetupSettings,
    private readonly log: (line: string) => void = () => undefined,
  ) {
    this.ports = new WorkerPorts(foremanDir);
  }

  /** The worker's FOREMAN_PORT: undefined without a port range; stable across tasks and restarts. */
  portFor(workerId: string): Result<number | undefined> {
    const range = this.settings.portRange;
    return range === undefined ? ok(undefined) : this.ports.assign(workerId, range);
  }

  /** Frees a removed worker's port, so a later worker can have it. */
  releasePort(workerId: string): Result<void> {
    return this.ports.release(workerId);
  }

  /** Copies the setup files, then runs the setup command; the first failure ends it. */
  async prepare(request: PrepareRequest): Promise<Result<PrepareOutcome>> {
    // Before anything runs there: git must not fall through to the main checkout (ARCHITECTURE §5).
    const topLevel = await verifyWorktreeTopLevel(request.worktree);
    if (!topLevel.ok) return topLevel;
    const worktree = topLevel.value;
    const port = this.portFor(request.workerId);
    if (!port.ok) return port;

    const copies = await copySetupFiles(this.repoRoot, worktree, this.settings.copyFiles);
    if (!copies.ok) return copies;
    const { copied, skipped } = copies.value;
    const notes = [
      ...(copied.length > 0 ? [`copied ${copied.join(', ')} from the main checkout`] : []),
      ...skipped.map((skip) => `did not copy ${skip.path}: ${skip.reason}`),
    ];
    for (const note of notes) {
      this.log(`setup ${request.workerId}: ${note}`);
      appendSetupNote(request.logFile, note);
    }

    const argv = this.settings.setupCommand;
    if (argv.length === 0) return ok({ copied, ranSetup: false });
    const env: Record<string, string> = { ...request.env };
    if (port.value !== undefined) env['FOREMAN_PORT'] = String(port.value);
    this.log(`setup ${request.workerId}: running ${JSON.stringify(argv)} in ${worktree}`);
    const ran = await runSetupCommand({
      argv,
      cwd: worktree,
      env,
      logFile: request.logFile,
      timeoutMs: this.settings.timeoutMs ?? defaultSetupTimeoutMs,
      ...(port.value !== undefined ? { note: `FOREMAN_PORT=${port.value}` } : {}),
      ...(request.onProgress ? { onLine: request.onProgress } : {}),
    });
    if (!ran.ok) {
      this.log(`setup ${request.workerId}: ${ran.message}`);
      return ran;
    }
    return ok({ copied, ranSetup: true });
  }
}

function appendSetupNote(logFile: string, note: string): void {
  mkdirSync(dirname(logFile), { recursive: true });
  appendFileSync(logFile, `# foreman ${new Date().toISOString()} setup ${note}\n`);
}
