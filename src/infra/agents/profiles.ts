/**
 * Agent profiles (ARCHITECTURE §6, setting `foreman.agents`): how to start one kind of agent as an
 * argv array, how it gets its prompt, and the built-in profiles Foreman ships. Profiles are checked
 * when they are resolved, so a mistyped setting is reported before any task is claimed for it.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { modelPricesSchema } from '../../core/modelPrices';
import { type Result, invalid, ok } from '../../core/result';
import { describeIssue } from '../../core/zodIssues';
import { type AgentKind, type PromptDelivery, adapters, agentKinds, claudePermissionsSettings, promptDeliveries } from './kinds';
import { placeholderNames, placeholdersIn } from './placeholders';

export { expandPlaceholders, placeholderNames, type PlaceholderName, type PlaceholderValues } from './placeholders';
export { promptDeliveries, type PromptDelivery } from './kinds';

/** `process`: launched and supervised by Foreman; `terminal`: run by the extension in a VS Code terminal. */
export const agentModes = ['process', 'terminal'] as const;
export type AgentMode = (typeof agentModes)[number];

/** The placeholder each delivery needs in the argv; stdin needs none. */
const requiredPlaceholder: Record<PromptDelivery, string | undefined> = { argument: 'prompt', file: 'promptFile', stdin: undefined };

/** Strict, so a misspelt key (`arg`, `environment`) is reported rather than silently ignored. */
const profileFields = z.strictObject({
  /** Which adapter runs it: an agent CLI Foreman knows, or `command` (the argv exactly as given). */
  kind: z.enum(agentKinds).default('command'),
  /** The executable, looked up on PATH when it has no slash; never run through a shell. Default for a known kind: its CLI's name. */
  command: z.string().min(1, 'the command must not be empty').optional(),
  /** `command`: argv after the command, placeholders substituted inside single elements. Other kinds: extra flags before the prompt. */
  args: z.array(z.string()).default([]),
  /** Extra environment for this agent; Foreman's own FOREMAN_* variables win over it. */
  env: z.record(z.string(), z.string()).optional(),
  /** Optional in settings: inferred from the placeholders the args use (see inferDelivery). */
  prompt: z.enum(promptDeliveries).optional(),
  mode: z.enum(agentModes).default('process'),
  /** Claude Code: tools it may use without asking (its permission rules, e.g. `Bash(npm test:*)`). */
  allowedTools: z.array(z.string().min(1, 'a tool rule must not be empty')).optional(),
  /** Claude Code: stop a run once it has cost this many US dollars (`--max-budget-usd`). */
  maxBudgetUsd: z.number().positive('a budget is more than 0').optional(),
  /** Claude Code: `confined` (default: its sandbox, else an allow-list), `allowList`, or `open` (broad rights, shown as a warning). */
  permissions: z.enum(claudePermissionsSettings).optional(),
  /** Claude Code: the board's MCP tools (`foreman mcp`) for the agent — a planner that queues tasks and chains. */
  boardTools: z.boolean().optional(),
  /** Claude Code, sandboxed: hosts the agent's commands may reach (`registry.npmjs.org`); none by default. */
  allowedHosts: z.array(z.string().min(1, 'a host must not be empty')).optional(),
  /**
   * Codex: US dollars per million tokens by model id, `{ "gpt-6-sol": { "input": 2, "cachedInput": 0.2, "output": 10 } }`,
   * replacing or adding to Foreman's table (src/core/modelPrices.ts) — for a negotiated rate or a model it does not list.
   */
  prices: modelPricesSchema.optional(),
});

/** A profile as the setting holds it: only `command` is required, as in package.json's schema. */
export type AgentProfileInput = z.input<typeof profileFields>;

/**
 * Without an explicit delivery, the args say it: `{prompt}` → argument, `{promptFile}` → file,
 * neither → stdin, so a bare `{ "command": "my-agent" }` still receives its prompt.
 */
function inferDelivery(args: readonly string[]): PromptDelivery {
  const used = placeholdersIn(args);
  if (used.includes('prompt')) return 'argument';
  if (used.includes('promptFile')) return 'file';
  return 'stdin';
}

export const agentProfileSchema = profileFields.transform((fields, context) => {
  // A terminal profile is the argv a person wants to watch, as given: no adapter rewrites it.
  const kind: AgentKind = fields.mode === 'terminal' ? 'command' : fields.kind;
  const used = placeholdersIn(fields.args);
  const unknown = used.filter((name) => !(placeholderNames as readonly string[]).includes(name));
  for (const name of unknown) {
    context.addIssue({
      code: 'custom',
      path: ['args'],
      message: `unknown placeholder '{${name}}' (known: ${placeholderNames.map((known) => `{${known}}`).join(', ')})`,
    });
  }
  if (fields.prices && kind !== 'codex') {
    context.addIssue({ code: 'custom', path: ['prices'], message: `prices apply to "kind": "codex" only (Claude Code reports its own cost)` });
  }
  if (kind !== 'command') {
    if (used.includes('prompt') || used.includes('promptFile')) {
      context.addIssue({
        code: 'custom',
        path: ['args'],
        message: `a '${kind}' profile passes the prompt itself and its args are extra flags; remove {prompt}/{promptFile}, or set "kind": "command" to give the whole argv`,
      });
    }
    if (fields.kind !== 'claude' && (fields.allowedTools || fields.maxBudgetUsd !== undefined || fields.permissions || fields.allowedHosts || fields.boardTools)) {
      context.addIssue({
        code: 'custom',
        path: ['allowedTools'],
        message: `allowedTools, maxBudgetUsd, permissions, allowedHosts and boardTools apply to "kind": "claude" only`,
      });
    }
    if (context.issues.length > 0) return z.NEVER;
    return { ...fields, kind, command: fields.command ?? kind, prompt: adapters[kind].prompt };
  }
  if (fields.command === undefined) {
    context.addIssue({ code: 'custom', path: ['command'], message: 'a "command" profile needs the executable to run' });
    return z.NEVER;
  }
  const prompt = fields.prompt ?? inferDelivery(fields.args);
  const needed = requiredPlaceholder[prompt];
  if (needed !== undefined && !used.includes(needed)) {
    // Without it the agent would start with no task at all and "succeed" at nothing.
    context.addIssue({ code: 'custom', path: ['args'], message: `prompt '${prompt}' needs the placeholder '{${needed}}' in args` });
  }
  if (context.issues.length > 0) return z.NEVER;
  return { ...fields, kind, command: fields.command, prompt };
});

/** A checked profile: every field present, placeholders known, the prompt delivery consistent with the args. */
export type AgentProfile = z.output<typeof agentProfileSchema>;

/**
 * The demo agent's argv prefix. Bundled, it sits next to the bundle as `demo-agent.js`; from source
 * (tests, `tsx`), it is the TypeScript file, loaded through tsx by absolute URL because the agent's
 * cwd is a worktree where `tsx` does not resolve. Undefined when neither is present.
 */
export function demoAgentArgs(): string[] | undefined {
  const bundled = join(__dirname, 'demo-agent.js');
  if (existsSync(bundled)) return [bundled];
  const source = join(__dirname, 'demoAgent.ts');
  if (!existsSync(source)) return undefined;
  const tsxLoader = pathToFileURL(createRequire(__filename).resolve('tsx')).href;
  return ['--import', tsxLoader, source];
}

/**
 * Profiles Foreman ships. The `--` before the prompt keeps a prompt that starts with `-` (a
 * Markdown list, say) from being read as an option by the agent's argument parser.
 */
export function builtinProfiles(): Record<string, AgentProfileInput> {
  // One per adapter (./kinds), which builds the argv: stream-json and hooks for Claude Code, `exec --json` for Codex.
  const profiles: Record<string, AgentProfileInput> = Object.fromEntries(
    Object.values(adapters).map((adapter) => [adapter.kind, { kind: adapter.kind, command: adapter.command }]),
  );
  const demo = demoAgentArgs();
  if (demo) {
    // process.execPath is Electron inside VS Code; ELECTRON_RUN_AS_NODE makes it behave as node (plain node ignores it).
    profiles['demo'] = {
      command: process.execPath,
      args: [...demo, '{promptFile}'],
      env: { ELECTRON_RUN_AS_NODE: '1' },
      prompt: 'file',
      mode: 'process',
    };
  }
  return profiles;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * New args without a delivery re-infer it, rather than keep a built-in delivery they may not match.
 * Args that place the prompt themselves are a whole argv: such an override runs as a `command`
 * profile (as every profile did before adapters), unless it names its kind.
 */
function overlay(builtin: AgentProfileInput, user: Record<string, unknown>): Record<string, unknown> {
  const base: Record<string, unknown> = { ...builtin };
  if ('args' in user && !('prompt' in user)) delete base['prompt'];
  const args = Array.isArray(user['args']) ? user['args'].filter((arg): arg is string => typeof arg === 'string') : [];
  const placesPrompt = placeholdersIn(args).some((name) => name === 'prompt' || name === 'promptFile');
  if (placesPrompt && !('kind' in user)) base['kind'] = 'command';
  return { ...base, ...user };
}

/**
 * The profile called `name`: a user profile (setting `foreman.agents`) replaces a built-in of the
 * same name field by field, so `{ "claude": { "command": "/opt/bin/claude" } }` keeps the built-in
 * args. The result is validated; problems name the setting path.
 */
export function resolveProfile(name: string, userProfiles: Readonly<Record<string, unknown>> = {}): Result<AgentProfile> {
  const builtins = builtinProfiles();
  const builtin = Object.hasOwn(builtins, name) ? builtins[name] : undefined;
  const user = Object.hasOwn(userProfiles, name) ? userProfiles[name] : undefined;
  if (builtin === undefined && user === undefined) {
    const known = [...new Set([...Object.keys(builtins), ...Object.keys(userProfiles)])].sort();
    const hint = name === 'demo' ? ' (the demo agent script was not found next to Foreman)' : '';
    return invalid('unknownAgentProfile', `There is no agent profile named '${name}'${hint}; known profiles: ${known.join(', ')}.`, {
      profile: name,
    });
  }
  if (user !== undefined && !isRecord(user)) {
    return invalid('invalidAgentProfile', `The agent profile foreman.agents.${name} must be an object with at least a "command".`, {
      profile: name,
    });
  }
  const parsed = agentProfileSchema.safeParse(builtin && user ? overlay(builtin, user) : (user ?? builtin));
  if (parsed.success) return ok(parsed.data);
  const known = Object.keys(profileFields.shape);
  const problems = parsed.error.issues.map((issue) =>
    describeIssue(issue, ['foreman.agents', name, ...issue.path.map(String)].join('.'), known),
  );
  return invalid('invalidAgentProfile', `The agent profile '${name}' is not valid: ${problems.join('; ')}.`, { profile: name, problems });
}
