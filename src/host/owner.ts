import type { TerminalHost } from '../infra/agents/terminalAgents';
import * as path from 'node:path';
import { type Result, invalid, ok } from '../core/result';
import type { Engine } from '../engine/engine';
import { LeaseNotice } from '../engine/ownerLease';
import type { Clock, Store } from '../engine/ports';
import type { CrewSettingsFile, EngineSettings } from '../engine/settings';
import { type CrewParts, assembleCrew } from './crewParts';
import { type WorktreeReport, branchFor } from '../infra/git';
import type { OwnerLock } from '../infra/db';
import { FileArchiveSink, FileBlobStore, JsonlExportSink } from '../infra/fs';
import { lockAndOpenStore, ownerIdentity } from './ownerStore';
import type { Workspace } from './workspace';
import { attemptLogFile } from '../infra/agents/attemptLog';
import { storeBackend } from '../infra/workspace/storeBackends';
import { foremanDir as foremanDirOf, isInitialised } from '../infra/workspace/paths';
import { loadWorkspaceSettings } from '../infra/workspace/settings';
import type { TokenSource } from '../infra/forge/credentials';
import { type StoreConfig, readStoreConfig } from '../infra/workspace/storeConfig';

/**
 * How long a long-running owner (`serve`, a window) waits for a one-shot CLI call to let go of
 * the lock: such a call holds it for milliseconds to a few seconds, never this long.
 */
export const oneShotPatienceMs = 30_000;

/** Who is opening the workspace, as written in the owner lock. */
export type OwnerRole = 'serve' | 'cli' | 'vscode';

export interface OpenOwnerOptions {
  readonly role: OwnerRole;
  /** Recoveries, lock takeovers and checkpoint problems, one line each. */
  readonly log?: (line: string) => void;
  readonly clock?: Clock;
  /** Launch agents on assignment (long-running, trusted owners only). Default false. */
  readonly launchAgents?: boolean;
  /** Settings from the host (VS Code), replacing `.foreman/settings.json`. */
  readonly settings?: { engine: EngineSettings; crew: CrewSettingsFile };
  readonly agentEnvironment?: () => Record<string, string>;
  /** Agent profiles read at each launch, so an edit applies to the next agent. */
  readonly agentProfiles?: () => Readonly<Record<string, unknown>>;
  /** Runs `mode: "terminal"` agent profiles (the VS Code window's terminals). */
  readonly terminalHost?: TerminalHost;
  /** The forge token before the environment's (VS Code's GitHub sign-in, docs/handoff.md). */
  readonly forgeToken?: TokenSource;
  /** Passed to the store: one-shot calls leave short journals for the next open to replay. */
  readonly closeCheckpointBytes?: number;
  /**
   * Long-running owners wait this long for a short-lived holder of the lock (a one-shot CLI call)
   * instead of refusing at once. Default 0: refuse, and let the caller route to the holder.
   */
  readonly lockPatienceMs?: number;
  /** Ends that wait early, e.g. on SIGTERM. */
  readonly lockWaitSignal?: AbortSignal;
  /** Hears when writes stop being saved (a full disk) and when they are saved again (SqlJsStoreOptions). */
  readonly onSavingChange?: (problem: string | undefined) => void;
  /**
   * Hears, once, that the store stopped taking writes (a failed fsync: SqlJsStoreOptions.onBroken).
   * Called inside the failing write: act on a later turn (close this owner, then exit or reopen).
   */
  readonly onStoreBroken?: (reason: string) => void;
  /** The store to open instead of the one `.foreman/store.json` names (the `foreman.store` setting). */
  readonly store?: StoreConfig;
}

/** The single writer of a workspace (ARCHITECTURE §2): its lock, its store and the engine over them. */
export interface WorkspaceOwner extends Workspace {
  readonly engine: Engine;
  readonly settings: { readonly engine: EngineSettings; readonly crew: CrewSettingsFile };
  /** sql.js in `.foreman/`, or PostgreSQL shared with other machines' owners (`.foreman/store.json`). */
  readonly store: Store;
  readonly lock: OwnerLock;
  readonly parts: CrewParts;
  /** Its endpoint is listening at `socketPath`: written in the lock, and given to the agents launched from now on. */
  announce(socketPath: string): void;
  /**
   * For long-running owners: restart recovery (orphaned agents stopped, their work saved and
   * retried; worktrees reconciled), then the dispatcher, waker and monitor.
   */
  start(): Promise<void>;
  /** Stops agents and the engine, checkpoints the store and releases the lock. Safe to call twice. */
  close(): void;
  /**
   * `close`, once the agents have been stopped and their work saved (by their watchdogs, as if the
   * owner had gone: ownerWatch.ts), so the lock is released only when nothing of this owner runs.
   */
  stop(): Promise<void>;
}

/**
 * Becomes the owner of the workspace at `repoRoot`. Expected refusals are results: `notInitialised`
 * (invalid: run `foreman init`), a bad settings or store file (invalid), `ownedByOther` (refused;
 * the caller routes to that owner instead), and `storeUnreachable` (refused: the PostgreSQL server
 * is down or refuses the login; the message names it, without its password).
 */
export async function openOwner(repoRoot: string, options: OpenOwnerOptions): Promise<Result<WorkspaceOwner>> {
  const dir = foremanDirOf(repoRoot);
  if (!isInitialised(dir)) {
    return invalid('notInitialised', `No Foreman here (${repoRoot}); run \`foreman init\` in the repository first.`, { dir: repoRoot });
  }
  const loaded = options.settings ? ok(withWorkspaceHandoff(options.settings, dir)) : loadWorkspaceSettings(dir);
  if (!loaded.ok) return loaded;
  // A template that cannot make a branch name would fail every task at setup: refuse it up front.
  const template = loaded.value.engine.branchTemplate;
  const sample = branchFor(template, { workerId: 'worker', taskId: 'task' });
  if (!sample.ok) return invalid('badSettings', `branchTemplate: ${sample.message}`, { template });
  const storeConfig = options.store ? ok(options.store) : readStoreConfig(dir);
  if (!storeConfig.ok) return storeConfig;
  const backend = storeBackend(storeConfig.value);
  // On a store several machines share, this owner is one of several: its id, and the machine whose
  // workers it launches (FOREMAN_HOST, else the host name).
  const owner = backend.shared ? ownerIdentity() : ok(undefined);
  if (!owner.ok) return owner;
  const log = options.log ?? (() => undefined);
  const opened = await lockAndOpenStore(dir, backend, owner.value, options, log);
  if (!opened.ok) return opened;
  const { lock, store, leaseClock } = opened.value;
  // The endpoint, once announced: agents reach the owner through it (FOREMAN_ENDPOINT).
  let endpoint: string | undefined;
  const agentEnvironment = (): Record<string, string> => ({
    ...(endpoint ? { FOREMAN_ENDPOINT: endpoint } : {}),
    ...(options.agentEnvironment?.() ?? {}),
  });
  const mergeLock = backend.mergeLock?.();
  const parts = assembleCrew(
    repoRoot,
    dir,
    {
      store,
      settings: loaded.value,
      blobs: new FileBlobStore(path.join(dir, 'blobs')),
      exports: new JsonlExportSink(dir),
      archive: new FileArchiveSink(dir),
      ...(options.clock ? { clock: options.clock } : {}),
      ...(owner.value ? { owner: owner.value } : {}),
      ...(leaseClock ? { leaseClock } : {}),
    },
    {
      launchAgents: options.launchAgents ?? false,
      // One merge at a time across the machines sharing the store (a lock on its server).
      ...(mergeLock ? { mergeLock } : {}),
      log,
      agentEnvironment,
      ...(options.terminalHost ? { terminalHost: options.terminalHost } : {}),
      ...(options.forgeToken ? { forgeToken: options.forgeToken } : {}),
      ...(options.agentProfiles ? { agentProfiles: options.agentProfiles } : {}),
    },
  );
  const engine = parts.engine;
  // Dispatch and liveness checks retry by themselves; the log says why they are not happening now.
  // News of the lease (the store lost or found again) is said as it is (ownerLease.ts).
  engine.onDidFailInBackground((error) =>
    log(
      error instanceof LeaseNotice
        ? error.message
        : `background work failed and is retried in a few seconds: ${error instanceof Error ? error.message : String(error)}`,
    ),
  );
  let listener: { close(): Promise<void> } | undefined;
  const start = async (): Promise<void> => {
    if (owner.value) {
      // The other owners' commits, as they happen: wake the dispatcher, the monitor and the views.
      listener = backend.listen?.(owner.value.id, (notice) => engine.noteExternalChange(notice.changed), log);
    }
    // Only workers holding a task are expected to have a worktree (idle ones get theirs on start),
    // and only this machine's: another machine's worktrees are in its own clone.
    const here = owner.value?.host;
    const holders = engine.query({ command: 'worker.list', args: {}, actor: 'owner' });
    const holderIds = holders.ok
      ? holders.value
          .filter((worker) => worker.taskId !== null && (here === undefined || worker.host === null || worker.host === here))
          .map((worker) => worker.id)
      : [];
    const report = await parts.git.workspace.reconcile(holderIds);
    if (report.ok) logWorktreeReport(report.value, log);
    if (parts.agents) {
      await parts.agents.reapOrphans();
      await engine.recoverOrphans();
    }
    // After recovery: the monitor's first sweep would otherwise take the last owner's workers,
    // silent since it went, for STALE ones before recovery says what became of their agents.
    engine.startBackground();
  };
  let closed = false;
  const close = (): void => {
    if (closed) return;
    closed = true;
    try {
      void listener?.close();
      void parts.supervisor?.dispose();
      void parts.terminals?.dispose();
      // A clean stop leaves the team (issue 29): its owners row goes, or its lease ends now.
      engine.endLease();
      engine.dispose();
      store.close();
    } finally {
      lock.release();
    }
  };
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      if (closed) return;
      // The engine first: an agent ending now is this owner's stop, not a failed attempt to act on.
      // A clean stop leaves the team (issue 29): its owners row goes, or its lease ends now.
      engine.endLease();
      engine.dispose();
      try {
        await parts.supervisor?.dispose();
        await parts.terminals?.dispose();
      } finally {
        close();
      }
    })());
  return ok({
    repoRoot,
    foremanDir: dir,
    storeKind: storeConfig.value.kind,
    store,
    settings: loaded.value,
    git: parts.git,
    logFile: (taskId, attempt) => attemptLogFile(dir, taskId, attempt),
    engine,
    lock,
    parts,
    execute: (request) => engine.execute(request),
    announce: (socketPath) => {
      endpoint = socketPath;
      lock.update({ endpoint: socketPath });
    },
    start,
    close,
    stop,
    dispose: close,
  });
}

function logWorktreeReport(report: WorktreeReport, log: (line: string) => void): void {
  const say = (what: string, findings: ReadonlyArray<{ workerId: string; path: string }>) =>
    findings.forEach((finding) => log(`worktree of ${finding.workerId} is ${what}: ${finding.path}`));
  say('missing (recreated when the worker next starts)', report.missing);
  say('moved (repair with the worktree link)', report.moved);
  say('broken (its .git link is gone)', report.broken);
  say('occupied by something else (left untouched)', report.foreign);
}

/**
 * The hand-off is the workspace's, one for every host (docs/handoff.md): VS Code's settings carry
 * none, so `.foreman/settings.json`'s `handoff` and `forge` apply there too.
 */
function withWorkspaceHandoff(settings: { engine: EngineSettings; crew: CrewSettingsFile }, dir: string): typeof settings {
  if (settings.crew.handoff) return settings;
  const file = loadWorkspaceSettings(dir);
  if (!file.ok || !file.value.crew.handoff) return settings;
  const { handoff, forge } = file.value.crew;
  return { ...settings, crew: { ...settings.crew, handoff, ...(forge ? { forge } : {}) } };
}
