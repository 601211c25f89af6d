/**
 * The settings file Foreman generates for a Claude Code run (in `.foreman/`, never in the user's
 * `.claude/`), and the gate its PreToolUse hook applies (core/claudePermissions.ts). Confined by
 * default (issue 27): Claude Code's own sandbox where the platform has one — Bash confined to the
 * worktree with the network off unless the profile names hosts — and where it has none, an
 * allow-list without bare Bash. A profile opts into the broad list with `"permissions": "open"`.
 * Which confinement is in force goes to the agent's environment (`confinementVariable`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import { type ClaudeGate, type Confinement, claudeGateVariable, foremanRule } from '../../../core/claudePermissions';
import { sandboxExcludedCommands } from '../../../core/sandboxedForeman';
import { claudeSandboxAvailable } from '../sandboxProbe';
import type { AdapterOptions, AdapterRun } from './adapter';
import { boardToolsRule } from './claudeBoardTools';

/** The broad list of `"permissions": "open"`: every edit and any Bash command, unconfined. */
export const defaultClaudeAllowedTools: readonly string[] = ['Read', 'Edit', 'MultiEdit', 'Write', 'NotebookEdit', 'Bash'];

/**
 * The allow-list confinement's Bash rules: the usual build, test and inspection commands. Not
 * `git push` (work leaves through review), not `node -e`, `sh -c`, `find -exec` or a package
 * runner of any script: each runs arbitrary code. A command naming a path outside the worktree
 * asks a person whatever its rule (the gate's path check). `npm test` runs the project's own
 * scripts, which the agent can edit: only the sandbox truly confines — which is why it is preferred.
 */
export const confinedBashRules: readonly string[] = [
  ...['npm test', 'npm run', 'npm ci', 'npm install', 'npm ls', 'npx tsc', 'npx eslint', 'npx prettier', 'npx vitest', 'npx jest', 'npx mocha'],
  ...['pnpm test', 'pnpm run', 'pnpm install', 'yarn test', 'yarn run', 'yarn install', 'node --test'],
  ...['pytest', 'python -m pytest', 'python3 -m pytest', 'cargo build', 'cargo test', 'cargo check', 'go build', 'go test', 'go vet', 'make test'],
  ...['git status', 'git diff', 'git log', 'git show', 'git add', 'git commit', 'git rev-parse', 'git ls-files', 'git branch --show-current'],
  ...['ls', 'cat', 'head', 'tail', 'wc', 'grep', 'rg', 'sed -n', 'sort', 'uniq', 'diff', 'tree', 'file', 'stat', 'du'],
  ...['pwd', 'cd', 'echo', 'printf', 'true', 'mkdir', 'touch', 'cp', 'mv', 'rm', 'which', 'date'],
].map((command) => `Bash(${command}:*)`);

/** The tools allowed without asking under the allow-list confinement besides Bash rules. */
const confinedTools: readonly string[] = ['Read', ...confinedBashRules];

/** Hook events Foreman listens to, and the ones that take a tool matcher. */
const hookEvents = ['PreToolUse', 'PostToolUse', 'Notification', 'PermissionRequest', 'Stop'] as const;
const matcherEvents: ReadonlySet<string> = new Set(['PreToolUse', 'PostToolUse', 'PermissionRequest']);

/**
 * Claude Code runs a hook's command through a shell, so the one string we hand it holds only a
 * quoted absolute path and fixed words; which worker and attempt it reports for come from the
 * environment the hook inherits (FOREMAN_WORKER_ID, FOREMAN_ATTEMPT), never from text we splice.
 */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

export function allowList(allowedTools: readonly string[]): string[] {
  return [...new Set([...allowedTools, foremanRule])];
}

/**
 * Hooks that only report run in the background (`async`), so the agent does not wait for them;
 * PreToolUse decides (it may wait for a person's answer) and Stop comes last, as the process
 * ends, when a background hook would be cut off.
 */
const backgroundHooks: ReadonlySet<string> = new Set(['PostToolUse', 'Notification']);

/** Seconds a hook may take: PreToolUse waits for a person's answer to a permission request. */
const hookTimeoutSeconds: Record<(typeof hookEvents)[number], number> = {
  PreToolUse: 3600,
  PostToolUse: 30,
  Notification: 30,
  PermissionRequest: 30,
  Stop: 30,
};

/** Claude Code's `sandbox` settings (schema read from 2.1.197). */
export interface SandboxSettings {
  readonly enabled: true;
  readonly autoAllowBashIfSandboxed: boolean;
  /** No `dangerouslyDisableSandbox` escape: every command the model runs is sandboxed. */
  readonly allowUnsandboxedCommands: false;
  /** The probe said it works; if it still cannot start, the run fails rather than runs unconfined. */
  readonly failIfUnavailable: true;
  readonly filesystem: { readonly allowWrite: readonly string[] };
  readonly network: { readonly allowedDomains: readonly string[] };
  /** The agent's `foreman` reports, which cannot reach the owner from inside (core/sandboxedForeman.ts). */
  readonly excludedCommands: readonly string[];
}

export function claudeSettings(
  foremanCommand: string,
  allowedTools: readonly string[],
  extra: { readonly sandbox?: SandboxSettings } = {},
): object {
  const command = `${shellQuote(foremanCommand)} hook claude`;
  const hooks = Object.fromEntries(
    hookEvents.map((event) => [
      event,
      [
        {
          ...(matcherEvents.has(event) ? { matcher: '*' } : {}),
          hooks: [{ type: 'command', command, timeout: hookTimeoutSeconds[event], ...(backgroundHooks.has(event) ? { async: true } : {}) }],
        },
      ],
    ]),
  );
  return { permissions: { allow: allowList(allowedTools) }, hooks, ...(extra.sandbox ? { sandbox: extra.sandbox } : {}) };
}

const userSettingsSchema = z.object({
  permissions: z.object({ allow: z.array(z.string()).optional(), deny: z.array(z.string()).optional() }).optional(),
});

/** The allow and deny rules of one of the user's settings files; none when it is missing or unreadable. */
function rulesIn(file: string): { allow: string[]; deny: string[] } {
  try {
    const parsed = userSettingsSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return { allow: parsed.data?.permissions?.allow ?? [], deny: parsed.data?.permissions?.deny ?? [] };
  } catch {
    return { allow: [], deny: [] };
  }
}

/** The user's own rules, as Claude Code reads them: user, project and local settings (deny wins when applied). */
export function userRules(environment: Readonly<Record<string, string>>, worktree: string): { allow: string[]; deny: string[] } {
  const configDir = environment['CLAUDE_CONFIG_DIR'] ?? (environment['HOME'] ? join(environment['HOME'], '.claude') : undefined);
  const files = [
    ...(configDir ? [join(configDir, 'settings.json')] : []),
    join(worktree, '.claude', 'settings.json'),
    join(worktree, '.claude', 'settings.local.json'),
  ];
  const all = files.map(rulesIn);
  return { allow: all.flatMap((rules) => rules.allow), deny: all.flatMap((rules) => rules.deny) };
}

/**
 * A linked worktree's own git folder and the repository's shared one (from its `.git` file), and
 * the main checkout beside it: `git add` in the worktree writes the first two, never the third.
 */
export function worktreeGitFolders(worktree: string): { own: string; common: string; mainCheckout?: string } | undefined {
  try {
    const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(join(worktree, '.git'), 'utf8'))?.[1]?.trim();
    if (pointer === undefined) return undefined;
    const own = resolve(worktree, pointer);
    const commonFile = join(own, 'commondir');
    const common = existsSync(commonFile) ? resolve(own, readFileSync(commonFile, 'utf8').trim()) : own;
    return { own, common, ...(basename(common) === '.git' ? { mainCheckout: dirname(common) } : {}) };
  } catch {
    return undefined;
  }
}

/** The settings file's content, the environment the agent and its hooks get, and the confinement in force. */
export interface ClaudeLaunchSettings {
  readonly settings: object;
  readonly env: Readonly<Record<string, string>>;
  readonly confinement: Confinement;
}

/** The environment variable that says which confinement a run has (`sandbox`, `allowList`, `open`). */
export const confinementVariable = 'FOREMAN_CLAUDE_CONFINEMENT';

export function claudeLaunchSettings(run: AdapterRun, options: AdapterOptions): ClaudeLaunchSettings {
  const wanted = options.permissions ?? 'confined';
  const confinement: Confinement =
    wanted === 'open' ? 'open' : wanted === 'confined' && claudeSandboxAvailable(run.environment) ? 'sandbox' : 'allowList';
  const explicit = options.allowedTools;
  const listed = explicit ?? (confinement === 'open' ? defaultClaudeAllowedTools : confinement === 'allowList' ? confinedTools : ['Read']);
  const base = options.boardTools ? [...listed, boardToolsRule] : listed;
  const user = userRules(run.environment, run.worktree);
  const git = worktreeGitFolders(run.worktree);
  // Sandboxed, Bash runs without asking unless the profile lists its tools itself.
  const sandboxedBash = confinement === 'sandbox' && explicit === undefined;
  const sandbox: SandboxSettings | undefined =
    confinement === 'sandbox'
      ? {
          enabled: true,
          // Claude's own auto-allow lets sandboxed commands write even in plan mode (2.1.197); a plan-first
          // run leaves Bash to the hook, which allows it once the plan is approved (planModeGate.ts).
          autoAllowBashIfSandboxed: sandboxedBash && run.planFirst !== true,
          allowUnsandboxedCommands: false,
          failIfUnavailable: true,
          filesystem: { allowWrite: git ? [git.own, join(git.common, 'objects')] : [] },
          network: { allowedDomains: [...(options.allowedHosts ?? [])] },
          excludedCommands: sandboxExcludedCommands,
        }
      : undefined;
  const home = run.environment['HOME'];
  const gate: ClaudeGate = {
    confinement,
    allow: allowList([...base, ...user.allow]),
    // Foreman's own: no file tool writes into the main checkout, whatever a rule allows.
    deny: [...user.deny, ...(git?.mainCheckout && confinement !== 'open' ? [`Edit(/${git.mainCheckout}/**)`] : [])],
    ...(isAbsolute(run.worktree) ? { worktree: run.worktree } : {}),
    ...(home ? { home } : {}),
    streamFile: join(run.files.runDir, `${run.files.stem}.stream.jsonl`),
    ...(sandboxedBash ? { sandboxedBash } : {}),
  };
  return {
    settings: claudeSettings(run.foremanCommand, base, sandbox ? { sandbox } : {}),
    env: {
      [claudeGateVariable]: JSON.stringify(gate),
      [confinementVariable]: confinement,
    },
    confinement,
  };
}
