/**
 * Which tool calls Foreman lets a Claude Code worker make without asking a person. In print mode
 * Claude Code cannot ask anyone: a tool its rules do not allow is denied on the spot and the run
 * carries on without it (measured with 2.1.197). So the PreToolUse hook asks instead: a call the
 * gate does not allow makes the worker wait for a person's answer (needs-input), and the hook
 * returns that answer as Claude Code's permission decision.
 *
 * The gate is never looser than Claude: deny rules win over allow rules; a Bash command is allowed
 * only when every simple command in it is (shellCommand.ts); under the allow-list confinement a
 * command that names a path outside the worktree asks; a file edit outside the worktree asks.
 * Tools that only read or plan are whatever the CLI lists in its `system/init` event minus a small
 * hand list of tools that act, so a tool a new CLI adds (TaskCreate, Skill…) never waits for a person.
 *
 * Rules use Claude Code's syntax: `Tool`, `Tool(*)`, `Bash(prefix:*)`, `Bash(glob *)`,
 * `Bash(exact)`, `Edit(path glob)` (covering every file-editing tool), `WebFetch(domain:host)`,
 * `mcp__server`. A rule it does not understand covers nothing, so such a call asks a person.
 */
import { isAbsolute, relative, resolve } from 'node:path';
import { sandboxedForemanRefusal } from './sandboxedForeman';
import { type CommandPart, splitCommand } from './shellCommand';

/** How a worker is confined: Claude Code's sandbox, an allow-list without bare Bash, or open (opted into). */
export const confinements = ['sandbox', 'allowList', 'open'] as const;
export type Confinement = (typeof confinements)[number];

/** What the hook needs to decide, handed over by the launch in one environment variable (JSON). */
export interface ClaudeGate {
  readonly confinement: Confinement;
  readonly allow: readonly string[];
  readonly deny: readonly string[];
  /** File edits (and, under the allow-list, paths in Bash commands) stay inside it. */
  readonly worktree?: string;
  /** What `~` means in paths and rules. */
  readonly home?: string;
  /** Claude's stream-json output: its first `system/init` line lists the CLI's tools. */
  readonly streamFile?: string;
  /** Bash runs without asking because the sandbox confines it (Claude's `autoAllowBashIfSandboxed`). */
  readonly sandboxedBash?: boolean;
}

export type GateDecision = { readonly decision: 'allow' } | { readonly decision: 'deny'; readonly reason: string } | { readonly decision: 'ask' };

/** Always allowed, whatever the list: it is how the agent reports to Foreman. */
export const foremanRule = 'Bash(foreman:*)';

/** Tools that change something or reach out; every other tool the CLI lists only reads or plans. */
const actingTools: ReadonlySet<string> = new Set([
  'Bash',
  'Write',
  'Edit',
  'MultiEdit',
  'NotebookEdit',
  'WebFetch',
  'WebSearch',
  'EnterWorktree',
  'ExitWorktree',
  'CronCreate',
  'CronDelete',
  'ScheduleWakeup',
  'KillShell',
]);
/** Tools an `Edit(...)` rule covers, as in Claude Code. */
const fileTools: ReadonlySet<string> = new Set(['Edit', 'Write', 'MultiEdit', 'NotebookEdit']);
/** Paths outside the worktree a command may name without asking. */
const harmlessPaths: ReadonlySet<string> = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/stdin']);

/** Whether a tool changes something (so it goes through the rules); `initTools` are the CLI's own. */
export function actsOnTheWorld(toolName: string, initTools: readonly string[] | undefined): boolean {
  if (actingTools.has(toolName) || toolName.startsWith('mcp__')) return true;
  // A tool the CLI did not list is unknown: it goes through the rules like one that acts.
  return !(initTools ?? []).includes(toolName);
}

const rulePattern = /^([A-Za-z_][\w-]*)(?:\((.*)\))?$/s;

interface Rule {
  readonly name: string;
  readonly specifier: string | undefined;
}

function parseRule(text: string): Rule | undefined {
  const [, name, specifier] = rulePattern.exec(text.trim()) ?? [];
  if (name === undefined) return undefined;
  return { name, specifier: specifier === undefined || specifier === '*' || specifier === '**' ? undefined : specifier.trim() };
}

/** A glob (`*` anything, as Claude's Bash wildcards) as a whole-string pattern. */
function wildcard(glob: string, star: string, doubleStar = star): RegExp {
  const source = glob
    .split(/(\*\*\/?|\*|\?)/)
    .map((piece) =>
      piece === '**/' ? doubleStar : piece === '**' ? '.*' : piece === '*' ? star : piece === '?' ? '[^/]' : piece.replace(/[.+^${}()|[\]\\]/g, '\\$&'),
    )
    .join('');
  return new RegExp(`^${source}$`, 's');
}

/** A Bash rule's specifier against one simple command. */
function bashSpecifierCovers(specifier: string, part: CommandPart): boolean {
  if (part.dynamic) return false;
  const command = part.words.join(' ');
  if (specifier.endsWith(':*')) {
    const prefix = specifier.slice(0, -2).trim();
    return command === prefix || command.startsWith(`${prefix} `);
  }
  if (specifier.includes('*')) return wildcard(specifier, '.*').test(command);
  return command === specifier;
}

export interface CallContext {
  /** The cwd Claude reported (hook payload); the worktree when absent. */
  readonly cwd?: string;
  /** The CLI's tools from its init event; undefined when not known (then only rules allow). */
  readonly initTools?: readonly string[];
}

function expandHome(path: string, gate: ClaudeGate): string | undefined {
  if (path === '~' || path.startsWith('~/')) return gate.home === undefined ? undefined : `${gate.home}${path.slice(1)}`;
  return path;
}

/** A path rule's glob (`//abs`, `~/x`, `/from-project-root`, `./x`, `x`) against an absolute path. */
function pathSpecifierCovers(specifier: string, path: string, gate: ClaudeGate, cwd: string): boolean {
  let glob: string | undefined;
  if (specifier.startsWith('//')) glob = specifier.slice(1);
  else if (specifier.startsWith('~')) glob = expandHome(specifier, gate);
  else if (specifier.startsWith('/')) glob = gate.worktree === undefined ? undefined : `${gate.worktree}${specifier}`;
  else glob = resolve(cwd, specifier);
  if (glob === undefined) return false;
  // Like gitignore: a pattern without a slash inside matches at any depth; `dir/**` covers all below.
  const pattern = wildcard(glob, '[^/]*', '(?:.*/)?');
  return pattern.test(path) || (!glob.includes('*') && isInside(path, glob));
}

function isInside(path: string, folder: string): boolean {
  const rest = relative(folder, path);
  return rest === '' || (!rest.startsWith('..') && !isAbsolute(rest));
}

function hostOf(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

/** Whether one rule covers a call that is not Bash (Bash goes part by part). */
function ruleCovers(rule: Rule, toolName: string, input: Readonly<Record<string, unknown>>, gate: ClaudeGate, cwd: string): boolean {
  const sameTool =
    toolName === rule.name ||
    (rule.name.startsWith('mcp__') && toolName.startsWith(`${rule.name}__`)) ||
    (rule.name === 'Edit' && fileTools.has(toolName));
  if (!sameTool) return false;
  if (rule.specifier === undefined) return true;
  if (fileTools.has(toolName) || toolName === 'Read') {
    const path = filePathOf(input);
    return path !== undefined && pathSpecifierCovers(rule.specifier, resolve(cwd, path), gate, cwd);
  }
  if (toolName === 'WebFetch' && rule.specifier.startsWith('domain:')) {
    const domain = rule.specifier.slice('domain:'.length);
    const host = hostOf(input['url']);
    return host !== undefined && (host === domain || host.endsWith(`.${domain}`));
  }
  return false;
}

function filePathOf(input: Readonly<Record<string, unknown>>): string | undefined {
  const path = input['file_path'] ?? input['notebook_path'] ?? input['path'];
  return typeof path === 'string' ? path : undefined;
}

/** Words of a command that name a path outside the worktree (`/etc`, `~/x`, `../x`, `--out=/x`). */
export function pathsOutside(part: CommandPart, gate: ClaudeGate, cwd: string): string[] {
  if (gate.worktree === undefined) return [];
  const worktree = gate.worktree;
  const candidates = [...part.words, ...part.redirects].flatMap((word) => {
    const afterEquals = word.includes('=') ? [word.slice(word.indexOf('=') + 1)] : [];
    return [word, ...afterEquals];
  });
  return candidates.filter((word) => {
    const looksLikePath = word.startsWith('/') || word.startsWith('~') || /(^|\/)\.\.(\/|$)/.test(word);
    if (!looksLikePath || harmlessPaths.has(word)) return false;
    const expanded = expandHome(word, gate);
    return expanded === undefined || !isInside(resolve(cwd, expanded), worktree);
  });
}

function bashDecision(command: string, gate: ClaudeGate, cwd: string, rules: { allow: Rule[]; deny: Rule[] }): GateDecision {
  const unconfinedForeman = gate.confinement === 'sandbox' ? sandboxedForemanRefusal(command) : undefined;
  if (unconfinedForeman) return { decision: 'deny', reason: unconfinedForeman };
  const split = splitCommand(command);
  const wholeCommand: CommandPart = { words: [command.trim()], redirects: [], dynamic: false };
  const parts = split.ok ? split.parts : [wholeCommand];
  for (const part of [...parts, ...(split.ok ? [] : [wholeCommand])]) {
    const denied = rules.deny.find((rule) => rule.name === 'Bash' && (rule.specifier === undefined || bashSpecifierCovers(rule.specifier, part)));
    if (denied) return { decision: 'deny', reason: `denied by the rule Bash${denied.specifier === undefined ? '' : `(${denied.specifier})`}` };
  }
  if (!split.ok) return gate.sandboxedBash || rules.allow.some((rule) => rule.name === 'Bash' && rule.specifier === undefined) ? { decision: 'allow' } : { decision: 'ask' };
  const partAllowed = (part: CommandPart): boolean => {
    if (gate.sandboxedBash) return true;
    if (gate.confinement === 'allowList' && pathsOutside(part, gate, cwd).length > 0) return false;
    return rules.allow.some((rule) => rule.name === 'Bash' && (rule.specifier === undefined || bashSpecifierCovers(rule.specifier, part)));
  };
  return parts.every(partAllowed) ? { decision: 'allow' } : { decision: 'ask' };
}

/** What the gate says about one tool call. */
export function gateDecision(gate: ClaudeGate, toolName: string, input: Readonly<Record<string, unknown>>, context: CallContext = {}): GateDecision {
  const cwd = context.cwd ?? gate.worktree ?? '/';
  const parse = (texts: readonly string[]) => texts.map(parseRule).filter((rule): rule is Rule => rule !== undefined);
  const rules = { allow: parse([...gate.allow, foremanRule]), deny: parse(gate.deny) };
  if (toolName === 'Bash' && typeof input['command'] === 'string') return bashDecision(input['command'], gate, cwd, rules);
  const denied = rules.deny.find((rule) => ruleCovers(rule, toolName, input, gate, cwd));
  if (denied) return { decision: 'deny', reason: `denied by the rule ${denied.name}${denied.specifier === undefined ? '' : `(${denied.specifier})`}` };
  if (!actsOnTheWorld(toolName, context.initTools)) return { decision: 'allow' };
  const explicitlyAllowed = rules.allow.some((rule) => ruleCovers(rule, toolName, input, gate, cwd));
  if (fileTools.has(toolName) && gate.confinement !== 'open' && gate.worktree !== undefined) {
    const path = filePathOf(input);
    // Claude's acceptEdits mode lets edits inside the working folder through; outside it, only a rule naming the path.
    if (path !== undefined && isInside(resolve(cwd, path), gate.worktree)) return { decision: 'allow' };
    const named = rules.allow.some((rule) => rule.specifier !== undefined && ruleCovers(rule, toolName, input, gate, cwd));
    return named ? { decision: 'allow' } : { decision: 'ask' };
  }
  return explicitlyAllowed ? { decision: 'allow' } : { decision: 'ask' };
}

/**
 * The gate from its environment variable; undefined (no gate: Claude Code decides) when it is
 * missing or unreadable. A bare JSON array is the allow-list of earlier launches.
 */
export function parseGate(text: string | undefined): ClaudeGate | undefined {
  if (!text) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const strings = (list: unknown): list is string[] => Array.isArray(list) && list.every((item) => typeof item === 'string');
  if (strings(value)) return { confinement: 'open', allow: value, deny: [] };
  if (typeof value !== 'object' || value === null) return undefined;
  const gate = value as Record<string, unknown>;
  const confinement = confinements.find((name) => name === gate['confinement']);
  if (confinement === undefined || !strings(gate['allow']) || !strings(gate['deny'])) return undefined;
  const optional = (key: string) => (typeof gate[key] === 'string' ? { [key]: gate[key] } : {});
  return {
    confinement,
    allow: gate['allow'],
    deny: gate['deny'],
    ...optional('worktree'),
    ...optional('home'),
    ...optional('streamFile'),
    ...(gate['sandboxedBash'] === true ? { sandboxedBash: true } : {}),
  };
}

/** The tools of Claude's `system/init` line among the first lines of its stream; undefined if none yet. */
export function initToolsOf(streamHead: string): string[] | undefined {
  for (const line of streamHead.split('\n')) {
    if (!line.includes('"init"')) continue;
    try {
      const event = JSON.parse(line) as Record<string, unknown>;
      const tools = event['tools'];
      if (event['type'] === 'system' && event['subtype'] === 'init' && Array.isArray(tools)) {
        return tools.filter((tool): tool is string => typeof tool === 'string');
      }
    } catch {
      continue;
    }
  }
  return undefined;
}

/** The environment variable that hands the gate to the hook (JSON, `ClaudeGate`). */
export const claudeGateVariable = 'FOREMAN_CLAUDE_GATE';
/** The earlier variable: a JSON array of allow rules (still read, for agents launched before). */
export const allowedToolsVariable = 'FOREMAN_CLAUDE_ALLOWED_TOOLS';

/** What the PreToolUse hook prints: Claude Code's permission decision for the call. */
export function permissionDecision(decision: 'allow' | 'deny', reason: string): string {
  return JSON.stringify({
    hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: decision, permissionDecisionReason: reason },
  });
}
