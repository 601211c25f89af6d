/**
 * An adapter per agent kind (ARCHITECTURE §6). Each owns what differs between agents: the argv,
 * how the prompt is passed, how its output is read as events, how a session resumes, and how its
 * end is judged — including telling a configuration problem (a flag it does not know, no login)
 * from an attempt that merely failed, so the first fails the task at once instead of burning retries.
 */
import type { z } from 'zod';
import type { AgentConfinement } from '../../../core/agentConfinement';
import type { AgentEventInput, RunFailure } from '../../../core/agentEvents';
import type { ModelPrices } from '../../../core/modelPrices';
import type { AgentLaunch, AgentVerdict } from '../../../engine/ports';

export const agentKinds = ['claude', 'codex', 'aider', 'command'] as const;
export type AgentKind = (typeof agentKinds)[number];

/** How the prompt reaches the agent: an argv element (`{prompt}`), its stdin, or a file (`{promptFile}`). */
export const promptDeliveries = ['argument', 'stdin', 'file'] as const;
export type PromptDelivery = (typeof promptDeliveries)[number];

/** The per-attempt files an adapter may use (all under `.foreman/logs/<task>/`). */
export interface RunFiles {
  readonly promptFile: string;
  /** Where the adapter writes files of its own for this run (Claude's settings, Codex's last message). */
  readonly runDir: string;
  readonly stem: string;
}

/**
 * One launch as an adapter sees it: the engine's launch (a session to continue is resumed only when
 * it still exists; plan first is ignored by kinds that cannot), with what the launch plan found.
 */
export interface AdapterRun extends Omit<AgentLaunch, 'agent' | 'env'> {
  /** The `foreman` executable the agent reports through (absolute). */
  readonly foremanCommand: string;
  readonly files: RunFiles;
  /** The agent's environment (HOME decides where its sessions live). */
  readonly environment: Readonly<Record<string, string>>;
}

/** `confined`: Claude Code's sandbox where available, else the allow-list; `allowList`: always the list; `open`: the broad list. */
export const claudePermissionsSettings = ['confined', 'allowList', 'open'] as const;
export type ClaudePermissionsSetting = (typeof claudePermissionsSettings)[number];

/** Kind-specific options of a profile. */
export interface AdapterOptions {
  /** Extra argv from the profile, after the adapter's own and before the prompt. */
  readonly extraArgs: readonly string[];
  /** Claude Code: the tools allowed without asking. */
  readonly allowedTools?: readonly string[];
  /** Claude Code: `--max-budget-usd`. */
  readonly maxBudgetUsd?: number;
  /** Claude Code: how the agent is confined (profile `permissions`; default `confined`). */
  readonly permissions?: ClaudePermissionsSetting;
  /** Claude Code, sandboxed: hosts its commands may reach (the network is off otherwise). */
  readonly allowedHosts?: readonly string[];
  /** Claude Code: the board's MCP tools (`foreman mcp`) for the agent, allowed without asking. */
  readonly boardTools?: boolean;
  /** Codex: prices per model that replace or add to the built-in table (src/core/modelPrices.ts). */
  readonly prices?: Readonly<ModelPrices>;
}

export interface PlannedArgs {
  readonly args: string[];
  /** Files to write before the launch, by path. */
  readonly files: ReadonlyMap<string, string>;
  /** The session this run starts with, when the adapter chooses it (Claude's `--session-id`). */
  readonly sessionId?: string;
  /** Whether it continues `resumeSession` (false: a fresh start, also when that session is gone). */
  readonly resumed: boolean;
  /** Extra environment for the agent (and its hooks). */
  readonly env?: Readonly<Record<string, string>>;
  /** How the run is confined, shown on the worker's card (core/agentConfinement.ts). */
  readonly confinement: AgentConfinement;
  /** The prompt to send as the first message on stdin (an adapter with `input`), instead of in argv. */
  readonly stdinPrompt?: string;
  /**
   * The agent asks for permissions on stdin (`input.permissions`): Claude Code with
   * `--permission-prompt-tool stdio`, so its plan comes to Foreman for approval.
   */
  readonly asksOnStdin?: boolean;
  /**
   * A parser bound to this run, when reading its output needs what only the plan knows (Codex:
   * the thread's usage already counted, the model's price); otherwise `parser(resumed)` is used.
   */
  readonly parser?: StreamParser;
}

/** What an adapter reads from an agent's output while it runs. */
export interface StreamParser {
  /** One line of the agent's stdout; returns the events in it (none for noise). */
  line(text: string): AgentEventInput[];
}

/**
 * How to talk to an agent on its stdin while it runs (Claude Code's stream-json input): the prompt
 * goes there as the first message, a person's messages and interrupts follow. Each returns the
 * bytes to write, one line.
 */
export interface AgentInput {
  message(text: string): string;
  interrupt(requestId: string): string;
  /** How it asks for a permission on its stdout and takes the answer on stdin, when it can. */
  readonly permissions?: PermissionPrompts;
}

/** A tool call the agent asks a person (through Foreman) to allow. */
export interface PermissionRequest {
  readonly requestId: string;
  readonly toolName: string;
  readonly input: Readonly<Record<string, unknown>>;
}

/** The agent's side of permission prompts on its own streams (Claude Code's `can_use_tool`). */
export interface PermissionPrompts {
  /** The request in one line of its stdout; undefined for any other line. */
  request(line: string): PermissionRequest | undefined;
  /** Allows it; `planApproved`: the plan is approved, so the agent leaves plan mode to carry it out. */
  allow(request: PermissionRequest, planApproved: boolean): string;
  deny(request: PermissionRequest, message: string): string;
}

export interface AgentAdapter {
  readonly kind: AgentKind;
  /**
   * The executable of the built-in profile named after the kind (`foreman.agents.<kind>` overrides
   * it field by field); profiles.ts reads it from here, so a new kind is declared in its adapter only.
   */
  readonly command: string;
  /** How the adapter passes the prompt itself (a profile of this kind cannot choose). */
  readonly prompt: PromptDelivery;
  /** Present when the agent takes messages on stdin mid-run; its prompt then goes there too, not in argv. */
  readonly input?: AgentInput;
  /** Whether stdout is a stream of JSON events (kept apart from stderr and parsed live). */
  readonly streamsEvents: boolean;
  /** Whether its tool calls already reach Foreman through hooks, so the stream need not heartbeat for them. */
  readonly hooksReportActivity: boolean;
  plan(run: AdapterRun, options: AdapterOptions): PlannedArgs;
  parser(resumed: boolean): StreamParser;
  /** The end of a run: its exit, what it said, the end of its output. */
  judge(evidence: RunEvidence): AgentVerdict;
  /** The run's last message from a file of its own, for a kind whose stream may not carry it (Codex). */
  lastMessage?(files: RunFiles): string | undefined;
}

/** The run's own verdict as its result event gave it. */
export interface RunResult {
  readonly summary: string;
  readonly isError: boolean;
  /** What it stopped on, read from structured fields, when only a setting (or time) can fix it. */
  readonly failure?: RunFailure;
}

export interface RunEvidence {
  readonly code: number | null;
  readonly signal: string | null;
  /** The exit as people read it: "pid 4121 exited 1 at 12:03:04". */
  readonly reason: string;
  /** The run's result event, if the agent wrote one. */
  readonly result?: RunResult;
  /** The last message the agent wrote. */
  readonly lastMessage?: string;
  /** The last usage or rate limit it reported, with its reset time when it said one. */
  readonly limit?: { readonly message: string; readonly resetsAt?: number };
  /** Errors the agent reported in its events. */
  readonly errors: readonly string[];
  /** The last few KB of stderr and non-event output. */
  readonly outputTail: string;
}

/** One line of an agent's JSON output checked against its kind's schema; undefined for noise. */
export function parseEventLine<T>(text: string, schema: z.ZodType<T>): T | undefined {
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
