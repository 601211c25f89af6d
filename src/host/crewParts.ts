import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Request } from '../core/requests';
import { Engine, type EngineDeps } from '../engine/engine';
import type { LeaseClock } from '../engine/ownerLease';
import type { ArchiveSink, BlobStore, Clock, ExportSink, OwnerIdentity, Store, WorktreeSetupPort } from '../engine/ports';
import type { CrewSettingsFile, EngineSettings } from '../engine/settings';
import { readMeta } from '../engine/rows';
import type { AgentEvent } from '../core/agentEvents';
import { type AgentRun, AgentSupervisor, SupervisedAgents, WorktreeSetup, verifyRunner } from '../infra/agents';
import { agentEnvironment } from '../infra/agents/agentEnvironment';
import { attemptLogDir, attemptPaths } from '../infra/agents/attemptLog';
import { reportsOf } from '../infra/agents/eventReports';
import { type TerminalHost, TerminalAgents } from '../infra/agents/terminalAgents';
import { GitPortAdapter } from '../infra/git/gitPort';
import type { MergeLock } from '../infra/git/mergeLock';
import { type TokenSource, environmentTokenSource, firstTokenSource } from '../infra/forge/credentials';
import { WorkspaceForge } from '../infra/forge/workspaceForge';
import { defaultHandoff } from '../engine/forge';

export interface CrewParts {
  readonly engine: Engine;
  readonly git: GitPortAdapter;
  readonly agents: SupervisedAgents | undefined;
  readonly supervisor: AgentSupervisor | undefined;
  readonly terminals: TerminalAgents | undefined;
}

export interface CrewOptions {
  /** Launch agents (a long-running, trusted owner); one-shot CLI calls and Restricted Mode do not. */
  readonly launchAgents: boolean;
  /** Extra environment for agents, read at each launch (the endpoint is known only later). */
  readonly agentEnvironment?: () => Record<string, string>;
  /** Agent profiles read at each launch (the VS Code settings); default: the settings file's, read at open. */
  readonly agentProfiles?: () => Readonly<Record<string, unknown>>;
  /** Where `mode: "terminal"` profiles run (a VS Code window); without one they are refused at launch. */
  readonly terminalHost?: TerminalHost;
  /** Where the forge token comes from before the environment's (VS Code's GitHub sign-in or GitLab token, docs/handoff.md). */
  readonly forgeToken?: TokenSource;
  /** Who may merge now across machines (PgMergeLock on PostgreSQL); default: this process's queue. */
  readonly mergeLock?: MergeLock;
  readonly log: (line: string) => void;
}

/** The folder holding the `foreman` executable, put first on the agents' PATH. */
export function cliBinDir(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'bin', 'foreman'))) return path.join(dir, 'bin');
    if (path.dirname(dir) === dir) return path.join(__dirname, '..', 'bin');
  }
}

/** Half the WARN threshold, at most the supervisor's default 15 s and at least 250 ms. */
export function ownerHeartbeatMs(warnMs: number): number {
  return Math.max(250, Math.min(15_000, Math.floor(warnMs / 2)));
}

/**
 * The crew's WorktreeSetupPort: the setup command sees the environment the agent will (PATH with
 * the `foreman` CLI, the FOREMAN_* identity, the worker's port), and writes to the attempt's log.
 */
function worktreeSetupPort(
  repoRoot: string,
  foremanDir: string,
  logDir: string,
  settings: CrewSettingsFile,
  ownerEnvironment: () => Record<string, string>,
  log: (line: string) => void,
): WorktreeSetupPort {
  const setup = new WorktreeSetup(
    repoRoot,
    foremanDir,
    { setupCommand: settings.setupCommand, copyFiles: settings.copyFiles, portRange: settings.portRange },
    log,
  );
  return {
    portFor: (workerId) => setup.portFor(workerId),
    prepare: (work, worktree, env, onProgress) =>
      setup.prepare({
        workerId: work.workerId,
        worktree,
        logFile: attemptPaths(logDir, work.taskId, work.attempt).logFile,
        env: agentEnvironment(work, cliBinDir(), {}, { ...ownerEnvironment(), ...env }),
        onProgress,
      }),
  };
}

/** What the engine is built on, beside it: its git, its agents and their supervisors. */
export interface EngineParts {
  readonly store: Store;
  readonly blobs: BlobStore;
  readonly exports: ExportSink;
  readonly archive: ArchiveSink;
  readonly settings: { readonly engine: EngineSettings; readonly crew: CrewSettingsFile };
  readonly clock?: Clock;
  /** With several owners on one PostgreSQL store: who this owner is (engine.ts `EngineDeps.owner`). */
  readonly owner?: OwnerIdentity;
  /** The clock leases are kept by: the PostgreSQL server's (engine.ts `EngineDeps.leaseClock`). */
  readonly leaseClock?: LeaseClock;
}

/** The engine over git and agents: one composition for `serve`, the CLI and VS Code. */
export function assembleCrew(repoRoot: string, foremanDir: string, parts: EngineParts, options: CrewOptions): CrewParts {
  const { engine: engineSettings, crew: settings } = parts.settings;
  const baseBranch = () => parts.store.read((reader) => readMeta(reader, 'base_branch')) ?? 'main';
  const git = new GitPortAdapter(
    repoRoot,
    baseBranch,
    {
      branchTemplate: engineSettings.branchTemplate,
      ...(settings.worktreeRoot ? { worktreeRoot: settings.worktreeRoot } : {}),
      ...(settings.remote ? { remote: settings.remote } : {}),
      ...(options.mergeLock ? { mergeLock: options.mergeLock } : {}),
    },
    options.log,
  );
  // The supervisors report to the engine they are part of: bound once it exists, below.
  const bound: { engine?: Engine } = {};
  const report = (request: Request): void => {
    bound.engine?.execute(request).catch((error: unknown) => options.log(`could not record ${request.command}: ${String(error)}`));
  };
  let supervisor: AgentSupervisor | undefined;
  let agents: SupervisedAgents | undefined;
  let terminals: TerminalAgents | undefined;
  let setup: WorktreeSetupPort | undefined;
  if (options.launchAgents) {
    // While a launched agent's process lives, Foreman heartbeats for it: a long, silent model
    // call is not death (ARCHITECTURE §4). The agent's own heartbeats add progress. The period
    // follows the liveness settings, so a live agent never reaches even WARN by silence.
    // Often enough, too, to notice a stall within a quarter of its bound.
    const { silenceMs, retryMs } = engineSettings.agentStall;
    const heartbeatEveryMs = Math.min(ownerHeartbeatMs(engineSettings.liveness.warnMs), Math.max(250, Math.floor(Math.min(silenceMs, retryMs) / 4)));
    const onHeartbeat = (run: { workerId: string; attempt: number }, activity?: string) =>
      report({
        command: 'heartbeat',
        args: { worker: run.workerId, status: 'working', attempt: run.attempt, ...(activity ? { activity } : {}) },
        actor: 'supervisor',
      });
    // An agent whose stream went quiet, or whose own retries go on, is not kept alive by its process.
    const onStall = (run: AgentRun, reason: string) =>
      report({ command: 'stall', args: { worker: run.workerId, attempt: run.attempt, reason }, actor: 'supervisor' });
    // A rate limit the agent keeps retrying is waited out paused, its attempt unspent, as any limit.
    const { pauseOnLimits } = engineSettings.agentStall;
    const onRateLimit = (run: AgentRun, reason: string, waitMs: number) =>
      report({
        command: 'pause',
        args: { worker: run.workerId, attempt: run.attempt, reason, until: Date.now() + Math.max(waitMs, 1000) },
        actor: 'supervisor',
      });
    const logDir = attemptLogDir(foremanDir);
    // What the agent's own events say (its session, usage, tool calls) goes to the engine as it is read.
    const onEvents = (run: AgentRun, events: readonly AgentEvent[]) => reportsOf(run, events).forEach(report);
    // A plan waits as a hook's permission request does: the answer comes with a beat of the agent's own.
    const takeAnswer = async (run: AgentRun) => {
      const beat = await bound.engine?.execute({
        command: 'heartbeat',
        args: { worker: run.workerId, attempt: run.attempt, status: 'working' },
        actor: run.workerId,
      });
      const answer = beat?.ok ? beat.value.answer : null;
      if (!beat?.ok || !answer) return undefined;
      return beat.value.note ? { decision: answer, note: beat.value.note } : { decision: answer };
    };
    supervisor = new AgentSupervisor({
      logDir,
      cliBinDir: cliBinDir(),
      log: options.log,
      heartbeatEveryMs,
      onHeartbeat,
      onStall,
      ...(pauseOnLimits ? { onRateLimit } : {}),
      onEvents,
      takeAnswer,
      vitals: engineSettings.agentStall,
    });
    if (options.terminalHost) {
      terminals = new TerminalAgents(options.terminalHost, {
        logDir,
        cliBinDir: cliBinDir(),
        log: options.log,
        heartbeatEveryMs,
        onHeartbeat,
      });
    }
    const ownerEnvironment = () => ({ FOREMAN_DIR: repoRoot, FOREMAN_BASE: baseBranch(), ...(options.agentEnvironment?.() ?? {}) });
    setup = worktreeSetupPort(repoRoot, foremanDir, logDir, settings, ownerEnvironment, options.log);
    agents = new SupervisedAgents(
      supervisor,
      foremanDir,
      ownerEnvironment,
      options.agentProfiles ?? (() => settings.agents),
      options.log,
      terminals,
    );
  }
  const verify = verifyRunner(settings.verifyCommand);
  const engine = new Engine({
    store: parts.store,
    settings: engineSettings,
    blobs: parts.blobs,
    exports: parts.exports,
    archive: parts.archive,
    git,
    ...(agents ? { agents } : {}),
    ...(parts.clock ? { clock: parts.clock } : {}),
    ...(parts.owner ? { owner: parts.owner } : {}),
    ...(parts.leaseClock ? { leaseClock: parts.leaseClock } : {}),
    ...handoffParts(repoRoot, settings, options),
    crew: {
      mergeStrategy: settings.mergeStrategy,
      log: options.log,
      heartbeatEveryMs: ownerHeartbeatMs(engineSettings.liveness.warnMs),
      allowEmptyResults: settings.allowEmptyResults,
      ...(engineSettings.agentStall.pauseOnLimits ? { limitPauseMs: engineSettings.agentStall.limitPauseMs } : {}),
      ...(verify ? { verify } : {}),
      ...(setup ? { setup } : {}),
    },
  });
  bound.engine = engine;
  return { engine, git, agents, supervisor, terminals };
}

/** The hand-off and, for `pull-request`, the forge (docs/handoff.md); nothing for the default local merge. */
function handoffParts(repoRoot: string, settings: CrewSettingsFile, options: CrewOptions): Pick<EngineDeps, 'handoff' | 'forge' | 'log'> {
  const handoff = settings.handoff ?? defaultHandoff;
  if (handoff.mode !== 'pull-request') return {};
  const { kind, repository, apiUrl } = settings.forge ?? {};
  const fromEnvironment = environmentTokenSource(process.env);
  const forge = new WorkspaceForge({
    repoRoot,
    remote: settings.forge?.remote ?? settings.remote ?? 'origin',
    ...(kind ? { kind } : {}),
    ...(repository ? { repository } : {}),
    ...(apiUrl ? { apiUrl } : {}),
    token: options.forgeToken ? firstTokenSource(options.forgeToken, fromEnvironment) : fromEnvironment,
    log: options.log,
  });
  return { handoff, forge, log: options.log };
}
