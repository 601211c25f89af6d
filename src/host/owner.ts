import type { TerminalHost } from '../infra/agents/terminalAgents';
import { randomUUID } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import { hostSchema, thisHost } from '../core/ids';
import { type Result, invalid, ok, refused } from '../core/result';
import type { Engine } from '../engine/engine';
import { LeaseNotice } from '../engine/ownerLease';
import type { Disposable } from '../engine/events';
import type { Clock, OwnerIdentity, Store } from '../engine/ports';
import type { CommandName, RequestOf } from '../core/requests';
import type { ResultOf } from '../engine/results';
import type { CrewSettingsFile, EngineSettings } from '../engine/settings';
import { type CrewParts, assembleCrew } from './crewParts';
import { type WorktreeReport, branchFor } from '../infra/git';
import { type OwnerLock, SqlJsStore, StoreError, acquireOwnerLock, readOwner, waitForOwnerLock } from '../infra/db';
import { FileArchiveSink, FileBlobStore, JsonlExportSink } from '../infra/fs';
import { PgListener } from '../infra/pg/listener';
import { PgMergeLock } from '../infra/pg/mergeLock';
import { PgStore } from '../infra/pg/pgStore';
import { pgLeaseClock } from '../infra/pg/serverClock';
import { foremanDir as foremanDirOf, isInitialised } from '../infra/workspace/paths';
import { loadWorkspaceSettings } from '../infra/workspace/settings';
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
export interface WorkspaceOwner extends Disposable {
  readonly repoRoot: string;
  readonly foremanDir: string;
  readonly engine: Engine;
  /** sql.js in `.foreman/`, or PostgreSQL shared with other machines' owners (`.foreman/store.json`). */
  readonly store: Store;
  readonly lock: OwnerLock;
  readonly parts: CrewParts;
  /** Every request, through the engine's front door (`Engine.execute`). */
  execute<C extends CommandName>(request: RequestOf<C>): Promise<Result<ResultOf<C>>>;
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
  const loaded = options.settings ? ok(options.settings) : loadWorkspaceSettings(dir);
  if (!loaded.ok) return loaded;
  // A template that cannot make a branch name would fail every task at setup: refuse it up front.
  const template = loaded.value.engine.branchTemplate;
  const sample = branchFor(template, { workerId: 'worker', taskId: 'task' });
  if (!sample.ok) return invalid('badSettings', `branchTemplate: ${sample.message}`, { template });
  const storeConfig = options.store ? ok(options.store) : readStoreConfig(dir);
  if (!storeConfig.ok) return storeConfig;
  // On a store several machines share, this owner is one of several: its id, and the machine whose
  // workers it launches (FOREMAN_HOST, else the host name).
  const owner = storeConfig.value.kind === 'postgres' ? ownerIdentity() : ok(undefined);
  if (!owner.ok) return owner;
  const log = options.log ?? (() => undefined);
  // Everything slow happens before the lock (issue 10): a one-shot call holds it for its own
  // transaction only, and the other callers queue for milliseconds, not for a replay each.
  // Not while a long-running owner holds the lock: it will not let go, and a load would be wasted.
  // PostgreSQL has nothing to load: the server holds the state.
  const holder = readOwner(dir);
  const preloaded = storeConfig.value.kind !== 'sqljs' || (holder && holder.role !== 'cli') ? undefined : await SqlJsStore.preload(dir);
  // One owner per clone on either store: the lock guards this clone's worktrees and agents too.
  const lock = await takeLock(dir, options);
  if (!lock.ok) {
    preloaded?.loaded.connection.close();
    return lock;
  }
  let store: Store;
  try {
    const config = storeConfig.value;
    store =
      config.kind === 'postgres'
        ? PgStore.open(config.url, {
            ...(config.ssl !== undefined ? { ssl: config.ssl } : {}),
            ...(owner.value ? { ownerId: owner.value.id } : {}),
          })
        : await SqlJsStore.open(dir, {
            ...(options.log ? { log: options.log } : {}),
            ...(options.closeCheckpointBytes ? { closeCheckpointBytes: options.closeCheckpointBytes } : {}),
            ...(preloaded ? { preloaded } : {}),
            onSavingChange: (problem) => {
              log(problem ?? 'Changes are saved again.');
              options.onSavingChange?.(problem);
            },
            onBroken: (reason) => {
              log(`The store stopped taking writes: ${reason}. It must be reopened from disk.`);
              options.onStoreBroken?.(reason);
            },
          });
  } catch (error) {
    preloaded?.loaded.connection.close();
    lock.value.release();
    // A server that is down or refuses the login is an answer saying so (the caller shows it), not a crash.
    if (error instanceof StoreError && error.code === 'unreachable') return refused('storeUnreachable', error.message);
    throw error;
  }
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
      ...(store instanceof PgStore ? { leaseClock: pgLeaseClock(store) } : {}),
    },
    {
      launchAgents: options.launchAgents ?? false,
      // One merge at a time across the machines: an advisory lock on the shared server.
      ...(storeConfig.value.kind === 'postgres'
        ? {
            mergeLock: new PgMergeLock({
              url: storeConfig.value.url,
              ...(storeConfig.value.ssl !== undefined ? { ssl: storeConfig.value.ssl } : {}),
            }),
          }
        : {}),
      log,
      ...(options.agentEnvironment ? { agentEnvironment: options.agentEnvironment } : {}),
      ...(options.terminalHost ? { terminalHost: options.terminalHost } : {}),
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
  let listener: PgListener | undefined;
  const start = async (): Promise<void> => {
    const config = storeConfig.value;
    if (config.kind === 'postgres' && owner.value) {
      // The other owners' commits, as they happen: wake the dispatcher, the monitor and the views.
      listener = new PgListener(config.url, {
        self: owner.value.id,
        onChange: (notice) => engine.noteExternalChange(notice.changed),
        log,
        ...(config.ssl !== undefined ? { ssl: config.ssl } : {}),
      });
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
      lock.value.release();
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
    engine,
    store,
    lock: lock.value,
    parts,
    execute: (request) => engine.execute(request),
    start,
    close,
    stop,
    dispose: close,
  });
}

/** This process as one of a shared store's owners; FOREMAN_HOST must be a valid host name. */
function ownerIdentity(): Result<OwnerIdentity> {
  const host = thisHost(process.env, os.hostname());
  if (!hostSchema.safeParse(host).success) {
    return invalid('badHost', `FOREMAN_HOST '${host}' is not a host name: use lowercase letters, digits, dots and dashes.`, { host });
  }
  return ok({ id: `${host}-${process.pid}-${randomUUID().slice(0, 8)}`, host, pid: process.pid });
}

/** The owner lock, waited for when the caller has patience for a one-shot holder. */
function takeLock(dir: string, options: OpenOwnerOptions): Promise<Result<OwnerLock>> | Result<OwnerLock> {
  const lockOptions = options.log ? { log: options.log } : {};
  if (!options.lockPatienceMs) return acquireOwnerLock(dir, { role: options.role }, lockOptions);
  return waitForOwnerLock(
    dir,
    { role: options.role },
    {
      ...lockOptions,
      patienceMs: options.lockPatienceMs,
      ...(options.lockWaitSignal ? { signal: options.lockWaitSignal } : {}),
    },
  );
}

function logWorktreeReport(report: WorktreeReport, log: (line: string) => void): void {
  const say = (what: string, findings: ReadonlyArray<{ workerId: string; path: string }>) =>
    findings.forEach((finding) => log(`worktree of ${finding.workerId} is ${what}: ${finding.path}`));
  say('missing (recreated when the worker next starts)', report.missing);
  say('moved (repair with the worktree link)', report.moved);
  say('broken (its .git link is gone)', report.broken);
  say('occupied by something else (left untouched)', report.foreign);
}
