import * as vscode from 'vscode';
import { z } from 'zod';
import { type StoreConfig, storeSettingConfig } from '../host/infraParts';
import {
  type CrewSettingsFile,
  type EngineSettings,
  copyFileGlobSchema,
  defaultEngineSettings,
  portRangeSchema,
  remoteNameSchema,
} from '../engine/settings';

/**
 * The `foreman.*` settings, read in one place and checked with zod (a hand-edited settings.json can
 * hold anything). A bad value is reported and the default is used instead.
 */
const configurationSchema = z.object({
  baseBranch: z.string().regex(/^$|^[A-Za-z0-9._/-]+$/),
  worktreeRoot: z.string(),
  branchTemplate: z
    .string()
    .regex(/^[A-Za-z0-9/_.{}-]+$/)
    .refine((value) => value.includes('{task}'), 'must contain {task}'),
  concurrency: z.number().int().min(1).max(64),
  /** Busy workers across every machine of a shared store; 0: no team-wide cap. */
  teamConcurrency: z.number().int().min(0).max(4096),
  maxAttempts: z.number().int().min(1).max(20),
  warnSeconds: z.number().int().min(5),
  staleSeconds: z.number().int().min(10),
  deadSeconds: z.number().int().min(30),
  agentSilenceSeconds: z.number().int().min(5),
  agentRetrySeconds: z.number().int().min(5),
  pauseOnLimits: z.boolean(),
  // As short as `.foreman/settings.json`'s agentLimitPauseMs allows (seconds): a short pause is how a
  // test or a demo sees one end; a limit's own reset time wins over it anyway.
  limitPauseMinutes: z.number().min(0.05),
  mergeStrategy: z.enum(['rebase', 'merge', 'squash']),
  verifyCommand: z.array(z.string().min(1)),
  agents: z.record(z.string().regex(/^[a-z0-9][a-z0-9-]{0,31}$/), z.unknown()),
  setupCommand: z.array(z.string().min(1)),
  copyFiles: z.array(copyFileGlobSchema),
  // VS Code has no "absent" for an object setting; its default is null.
  portRange: portRangeSchema.nullable(),
  allowEmptyResults: z.boolean(),
  /** The git remote shared by the crew's machines; '': this machine only. */
  remote: z.literal('').or(remoteNameSchema),
  /** Done and cancelled tasks stay live this many days, then retention moves them to .foreman/archive/. */
  retentionDays: z
    .number()
    .min(1 / 24)
    .max(3650),
  /** Empty: `.foreman/store.json` decides; else `sqljs` or a postgres:// URL without a password. */
  store: z.string().superRefine((value, context) => {
    const checked = storeSettingConfig(value);
    if (!checked.ok) context.addIssue({ code: 'custom', message: checked.message });
  }),
  notifications: z.object({
    reviewReady: z.boolean(),
    stale: z.boolean(),
    failed: z.boolean(),
    mergeProblems: z.boolean(),
    needsInput: z.boolean(),
  }),
});
export type ForemanConfiguration = z.infer<typeof configurationSchema>;

const defaults: ForemanConfiguration = {
  baseBranch: '',
  worktreeRoot: '',
  branchTemplate: defaultEngineSettings.branchTemplate,
  concurrency: 4,
  teamConcurrency: 0,
  maxAttempts: 3,
  warnSeconds: 30,
  staleSeconds: 100,
  deadSeconds: 300,
  agentSilenceSeconds: 300,
  agentRetrySeconds: 120,
  pauseOnLimits: true,
  limitPauseMinutes: 15,
  mergeStrategy: 'rebase',
  verifyCommand: [],
  agents: {},
  setupCommand: [],
  copyFiles: [],
  portRange: null,
  allowEmptyResults: false,
  remote: '',
  retentionDays: 7,
  store: '',
  notifications: { reviewReady: true, stale: true, failed: true, mergeProblems: true, needsInput: true },
};

/** Fields whose VS Code setting is spelled differently, for the message about a bad value. */
const settingNames: Partial<Record<keyof ForemanConfiguration, string>> = {
  warnSeconds: 'heartbeat.warnSeconds',
  staleSeconds: 'heartbeat.staleSeconds',
  deadSeconds: 'heartbeat.deadSeconds',
  agentSilenceSeconds: 'heartbeat.agentSilenceSeconds',
  agentRetrySeconds: 'heartbeat.agentRetrySeconds',
  pauseOnLimits: 'limits.pause',
  limitPauseMinutes: 'limits.pauseMinutes',
  setupCommand: 'setup.command',
  copyFiles: 'setup.copyFiles',
  portRange: 'setup.portRange',
  retentionDays: 'retention.finishedDays',
};

export function readConfiguration(scope: vscode.ConfigurationScope | undefined, report: (message: string) => void): ForemanConfiguration {
  const config = vscode.workspace.getConfiguration('foreman', scope);
  const raw = {
    baseBranch: config.get('baseBranch'),
    worktreeRoot: config.get('worktreeRoot'),
    branchTemplate: config.get('branchTemplate'),
    concurrency: config.get('concurrency'),
    teamConcurrency: config.get('teamConcurrency'),
    maxAttempts: config.get('maxAttempts'),
    warnSeconds: config.get('heartbeat.warnSeconds'),
    staleSeconds: config.get('heartbeat.staleSeconds'),
    deadSeconds: config.get('heartbeat.deadSeconds'),
    agentSilenceSeconds: config.get('heartbeat.agentSilenceSeconds'),
    agentRetrySeconds: config.get('heartbeat.agentRetrySeconds'),
    pauseOnLimits: config.get('limits.pause'),
    limitPauseMinutes: config.get('limits.pauseMinutes'),
    mergeStrategy: config.get('mergeStrategy'),
    verifyCommand: config.get('verifyCommand'),
    agents: config.get('agents'),
    setupCommand: config.get('setup.command'),
    copyFiles: config.get('setup.copyFiles'),
    portRange: config.get('setup.portRange'),
    allowEmptyResults: config.get('allowEmptyResults'),
    remote: config.get('remote'),
    retentionDays: config.get('retention.finishedDays'),
    store: config.get('store'),
    notifications: {
      reviewReady: config.get('notifications.reviewReady'),
      stale: config.get('notifications.stale'),
      failed: config.get('notifications.failed'),
      mergeProblems: config.get('notifications.mergeProblems'),
      needsInput: config.get('notifications.needsInput'),
    },
  };
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(defaults) as Array<keyof ForemanConfiguration>) {
    const field = configurationSchema.shape[key].safeParse(raw[key]);
    if (field.success) result[key] = field.data;
    else {
      result[key] = defaults[key];
      report(
        vscode.l10n.t(
          'Setting foreman.{0} is invalid ({1}); using the default.',
          settingNames[key] ?? key,
          field.error.issues[0]?.message ?? vscode.l10n.t('bad value'),
        ),
      );
    }
  }
  return result as ForemanConfiguration;
}

export function engineSettingsOf(configuration: ForemanConfiguration): EngineSettings {
  const warnMs = configuration.warnSeconds * 1000;
  const staleMs = Math.max(configuration.staleSeconds * 1000, warnMs + 1000);
  return {
    ...defaultEngineSettings,
    liveness: { warnMs, staleMs, deadMs: Math.max(configuration.deadSeconds * 1000, staleMs + 1000) },
    agentStall: {
      silenceMs: configuration.agentSilenceSeconds * 1000,
      retryMs: configuration.agentRetrySeconds * 1000,
      pauseOnLimits: configuration.pauseOnLimits,
      limitPauseMs: Math.round(configuration.limitPauseMinutes * 60_000),
    },
    defaultMaxAttempts: configuration.maxAttempts,
    concurrency: configuration.concurrency,
    ...(configuration.teamConcurrency > 0 ? { teamConcurrency: configuration.teamConcurrency } : {}),
    branchTemplate: configuration.branchTemplate,
    retainFinishedMs: Math.round(configuration.retentionDays * 86_400_000),
  };
}

/** The crew's half of the settings, as `.foreman/settings.json` would give it to a headless owner. */
export function crewSettingsOf(configuration: ForemanConfiguration): CrewSettingsFile {
  return {
    mergeStrategy: configuration.mergeStrategy,
    verifyCommand: configuration.verifyCommand,
    worktreeRoot: configuration.worktreeRoot || undefined,
    agents: configuration.agents,
    setupCommand: configuration.setupCommand,
    copyFiles: configuration.copyFiles,
    portRange: configuration.portRange ?? undefined,
    allowEmptyResults: configuration.allowEmptyResults,
    ...(configuration.remote ? { remote: configuration.remote } : {}),
  };
}

/**
 * The store this window opens instead of `.foreman/store.json`'s, or undefined to follow the file.
 * A bad value was reported by `readConfiguration` and replaced by the default (empty).
 */
export function storeOverrideOf(configuration: ForemanConfiguration): StoreConfig | undefined {
  const checked = storeSettingConfig(configuration.store);
  return checked.ok ? checked.value : undefined;
}
