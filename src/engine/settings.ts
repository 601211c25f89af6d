import { z } from 'zod';
import { defaultBranchTemplate } from '../core/branchTemplate';
import { defaultMaxPayloadBytes } from '../core/limits';
import { type HandoffSettings, defaultHandoff } from './forge';
import {
  type AgentStallSettings,
  type BackoffSettings,
  type LivenessSettings,
  defaultAgentStall,
  defaultBackoff,
  defaultLiveness,
} from '../core/policies';

/** Engine settings: passed in from one place (the composition root), never read inside logic. */
export interface EngineSettings {
  readonly liveness: LivenessSettings;
  /** When a running agent that streams its events counts as stalled although its process lives. */
  readonly agentStall: AgentStallSettings;
  readonly backoff: BackoffSettings;
  readonly defaultMaxAttempts: number;
  /**
   * At most this many workers hold running work (ASSIGNED, WORKING or STALE) at once: on this
   * owner's machine when several owners share a store, in all with one owner.
   */
  readonly concurrency: number;
  /** With several owners on one store: at most this many busy workers across every machine; undefined: no team-wide cap. */
  readonly teamConcurrency?: number;
  readonly branchTemplate: string;
  /** Idempotency keys are kept this long. */
  readonly idempotencyTtlMs: number;
  /** Payloads larger than this go to content-addressed blobs. */
  readonly inlinePayloadBytes: number;
  /** Largest payload accepted at all. */
  readonly maxPayloadBytes: number;
  /** Whether a review left waiting longer than `reviewTimeoutMs` moves the worker to STALE (seed) or only alerts. */
  readonly reviewTimeoutMs: number;
  readonly reviewTimeoutMovesToStale: boolean;
  /** Done and cancelled tasks stay in the live database this long after they finished, then go to the archive. */
  readonly retainFinishedMs: number;
  /**
   * With several owners on one store: how long an owner's lease lasts. It renews every third of it;
   * once it ran out, the other owners take back its workers' tasks (a new attempt each).
   */
  readonly ownerLeaseMs: number;
}

export const defaultEngineSettings: EngineSettings = {
  liveness: defaultLiveness,
  agentStall: defaultAgentStall,
  backoff: defaultBackoff,
  defaultMaxAttempts: 3,
  concurrency: 8,
  branchTemplate: defaultBranchTemplate,
  idempotencyTtlMs: 24 * 3600_000,
  inlinePayloadBytes: 4096,
  maxPayloadBytes: defaultMaxPayloadBytes,
  reviewTimeoutMs: 3600_000,
  reviewTimeoutMovesToStale: false,
  retainFinishedMs: 7 * 24 * 3600_000,
  ownerLeaseMs: 15_000,
};

/**
 * A `copyFiles` glob: relative to the repository root and unable to leave it. Git reads it as a
 * `:(glob)` pathspec, so a leading ':' (pathspec magic), absolute paths, '..' and backslashes are
 * refused rather than interpreted.
 */
export const copyFileGlobSchema = z
  .string()
  .min(1)
  .max(500)
  .refine((glob) => isRepositoryRelativeGlob(glob), 'a glob relative to the repository root, e.g. `.env*` or `config/*.local.json`');

function isRepositoryRelativeGlob(glob: string): boolean {
  // eslint-disable-next-line no-control-regex -- control characters would corrupt info/exclude lines
  if (/[\u0000-\u001f\u007f\\]/.test(glob) || glob.startsWith(':') || glob.startsWith('/') || /^[A-Za-z]:/.test(glob)) return false;
  return glob.split('/').every((segment) => segment !== '..' && segment !== '.' && segment !== '');
}

const portSchema = z.number().int().min(1).max(65535);

/** The ports handed out to workers as FOREMAN_PORT, both ends included. */
export const portRangeSchema = z
  .object({ from: portSchema, to: portSchema })
  .strict()
  .refine((range) => range.from <= range.to, '`from` must not be greater than `to`');
export type PortRange = z.infer<typeof portRangeSchema>;

/**
 * A git remote's name as `remote` takes it: letters, digits and . _ -, not starting with '-' or
 * '.', so git can never read it as an option or a path. Whether the clone has it is checked when
 * the workspace opens (the git layer asks `git remote`).
 */
export const remoteNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}$/, 'a git remote name such as `origin`')
  .refine((name) => !name.endsWith('.lock') && !name.includes('..'), 'a git remote name such as `origin`');

/** Where pull requests are opened (docs/handoff.md). Tokens are never settings: they come from the environment. */
export const forgeSettingsSchema = z
  .object({
    /** Which forge; default: from the remote's host (github.com, gitlab.com, gitlab.*), else GitHub. */
    kind: z.enum(['github', 'gitlab'], 'either "github" or "gitlab"').optional(),
    /** The git remote branches are pushed to; default `origin`. */
    remote: remoteNameSchema.optional(),
    /** owner/name on GitHub, group/…/project on GitLab; default: read from the remote's URL. */
    repository: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,100}(\/[A-Za-z0-9_.-]{1,100}){1,20}$/, 'owner/name, e.g. octo-org/app (GitLab: my-group/sub/app)')
      .optional(),
    /**
     * The REST API's base URL: GitHub Enterprise https://ghe.example.com/api/v3, self-managed GitLab
     * https://gitlab.example.com/api/v4; default https://api.github.com, or the GitLab remote's server.
     */
    apiUrl: z
      .url({ protocol: /^https?$/, message: 'an http(s) URL such as https://ghe.example.com/api/v3 or https://gitlab.example.com/api/v4' })
      .optional(),
    /** How often open pull requests are read back. */
    pollMs: z.number().int().min(100).optional(),
  })
  .strict();
export type ForgeSettings = z.infer<typeof forgeSettingsSchema>;

/** `.foreman/settings.json`, read back through zod: every field optional, unknown fields refused. */
export const settingsFileSchema = z
  .object({
    warnMs: z.number().int().min(1000).optional(),
    staleMs: z.number().int().min(1000).optional(),
    deadMs: z.number().int().min(1000).optional(),
    /** No event from a running agent for this long: STALE ("no output from the agent for 5m00s"). */
    agentSilenceMs: z.number().int().min(1000).optional(),
    /** An agent's own API retries going on this long: STALE with the retry's words. */
    agentRetryMs: z.number().int().min(1000).optional(),
    /** A usage or rate limit pauses the worker until the reset, its attempt unspent (false: a failed attempt). */
    pauseOnLimits: z.boolean().optional(),
    /** How long such a pause lasts when the agent does not say when its limit resets. */
    agentLimitPauseMs: z.number().int().min(1000).optional(),
    retryBaseMs: z.number().int().min(0).optional(),
    retryMaxMs: z.number().int().min(0).optional(),
    defaultMaxAttempts: z.number().int().min(1).max(20).optional(),
    concurrency: z.number().int().min(1).max(256).optional(),
    /** Busy workers across every machine of a shared store; absent: no team-wide cap (each machine's `concurrency` still holds). */
    teamConcurrency: z.number().int().min(1).max(4096).optional(),
    branchTemplate: z
      .string()
      .regex(/^[A-Za-z0-9/_.{}-]+$/)
      .refine((t) => t.includes('{task}'), 'must contain {task}')
      .optional(),
    reviewTimeoutMs: z.number().int().min(1000).optional(),
    reviewTimeoutMovesToStale: z.boolean().optional(),
    mergeStrategy: z.enum(['rebase', 'merge', 'squash']).optional(),
    verifyCommand: z.array(z.string().min(1)).optional(),
    worktreeRoot: z.string().min(1).optional(),
    agents: z.record(z.string().regex(/^[a-z0-9][a-z0-9-]{0,31}$/, 'an agent profile name is kebab-case'), z.unknown()).optional(),
    setupCommand: z.array(z.string().min(1)).optional(),
    copyFiles: z.array(copyFileGlobSchema).optional(),
    portRange: portRangeSchema.optional(),
    allowEmptyResults: z.boolean().optional(),
    /** The shared remote task branches are pushed to and the base is merged on; null: this machine only. */
    remote: remoteNameSchema.nullable().optional(),
    /** How approved work leaves (docs/handoff.md): merged here (the default) or as a pull request on the forge. */
    handoff: z.enum(['local-merge', 'pull-request']).optional(),
    /** The forge pull requests go to; everything but the remote is read from it when absent. */
    forge: forgeSettingsSchema.optional(),
    /** Send a failed check to the agent by itself, at most this many times per task (true: 2). */
    autoFixChecks: z.union([z.boolean(), z.number().int().min(0).max(10)]).optional(),
    /** At least an hour, so the last hour's throughput is always counted from live rows. */
    retainFinishedMs: z.number().int().min(3600_000).optional(),
    /** At least 3 s: renewed every third of it, a lease must outlast a busy moment of its owner. */
    ownerLeaseMs: z.number().int().min(3000).optional(),
  })
  .strict();
export type SettingsFile = z.infer<typeof settingsFileSchema>;

export function mergeSettings(file: SettingsFile, base: EngineSettings = defaultEngineSettings): EngineSettings {
  const teamConcurrency = file.teamConcurrency ?? base.teamConcurrency;
  return {
    ...base,
    liveness: {
      warnMs: file.warnMs ?? base.liveness.warnMs,
      staleMs: file.staleMs ?? base.liveness.staleMs,
      deadMs: file.deadMs ?? base.liveness.deadMs,
    },
    agentStall: {
      silenceMs: file.agentSilenceMs ?? base.agentStall.silenceMs,
      retryMs: file.agentRetryMs ?? base.agentStall.retryMs,
      pauseOnLimits: file.pauseOnLimits ?? base.agentStall.pauseOnLimits,
      limitPauseMs: file.agentLimitPauseMs ?? base.agentStall.limitPauseMs,
    },
    backoff: { baseMs: file.retryBaseMs ?? base.backoff.baseMs, maxMs: file.retryMaxMs ?? base.backoff.maxMs },
    defaultMaxAttempts: file.defaultMaxAttempts ?? base.defaultMaxAttempts,
    concurrency: file.concurrency ?? base.concurrency,
    ...(teamConcurrency !== undefined ? { teamConcurrency } : {}),
    branchTemplate: file.branchTemplate ?? base.branchTemplate,
    reviewTimeoutMs: file.reviewTimeoutMs ?? base.reviewTimeoutMs,
    reviewTimeoutMovesToStale: file.reviewTimeoutMovesToStale ?? base.reviewTimeoutMovesToStale,
    retainFinishedMs: file.retainFinishedMs ?? base.retainFinishedMs,
    ownerLeaseMs: file.ownerLeaseMs ?? base.ownerLeaseMs,
  };
}

/** How work reaches git and agents: the crew's settings, beside the engine's. */
export interface CrewSettingsFile {
  readonly mergeStrategy: 'rebase' | 'merge' | 'squash';
  /** argv of the verify command; empty: none. */
  readonly verifyCommand: readonly string[];
  readonly worktreeRoot: string | undefined;
  /** User agent profiles by name, validated when used. */
  readonly agents: Readonly<Record<string, unknown>>;
  /** argv run in a worktree before an agent starts a new task there; empty: none. */
  readonly setupCommand: readonly string[];
  /** Globs (relative to the repository root) of untracked files copied from the main checkout into each worktree. */
  readonly copyFiles: readonly string[];
  /** Ports handed out as FOREMAN_PORT, one per worker; undefined: none. */
  readonly portRange: PortRange | undefined;
  /** Whether an agent that finishes without changing anything is still submitted for review. */
  readonly allowEmptyResults: boolean;
  /**
   * The git remote shared by the crew's machines (e.g. `origin`): submitted branches are pushed
   * there and merges land on its base. Undefined: one machine, nothing is pushed (the default).
   */
  readonly remote?: string;
  /** How approved work leaves, and the forge it goes to (docs/handoff.md). */
  readonly handoff?: HandoffSettings;
  readonly forge?: ForgeSettings;
}

export function crewSettingsOf(file: SettingsFile): CrewSettingsFile {
  return {
    mergeStrategy: file.mergeStrategy ?? 'rebase',
    verifyCommand: file.verifyCommand ?? [],
    worktreeRoot: file.worktreeRoot,
    agents: file.agents ?? {},
    setupCommand: file.setupCommand ?? [],
    copyFiles: file.copyFiles ?? [],
    portRange: file.portRange,
    allowEmptyResults: file.allowEmptyResults ?? false,
    ...(file.remote ? { remote: file.remote } : {}),
    handoff: {
      mode: file.handoff ?? defaultHandoff.mode,
      pollMs: file.forge?.pollMs ?? defaultHandoff.pollMs,
      autoFixChecks:
        file.autoFixChecks === true ? 2 : file.autoFixChecks === false ? 0 : (file.autoFixChecks ?? defaultHandoff.autoFixChecks),
    },
    ...(file.forge ? { forge: file.forge } : {}),
  };
}
