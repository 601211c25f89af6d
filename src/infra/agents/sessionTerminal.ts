/**
 * Open Session in Terminal (issue 27): a person continues a worker's agent session by hand, in the
 * agent's own interactive CLI — `claude --resume <id>` or `codex resume <id>` — in the worker's
 * worktree, with the profile's command and environment (its API key, its endpoint). An argv, never
 * a shell string: the terminal's process is the CLI itself (VS Code's shellPath + shellArgs).
 *
 * The interactive CLI runs with the person's own settings, not the ones Foreman generates for its
 * runs: Foreman's hooks, gate and sandbox do not apply to what the person does there.
 */
import { type Result, ok, refused } from '../../core/result';
import type { AgentProfile } from './profiles';

/** A worker as the command sees it: its session, and which CLI wrote it. */
export interface SessionOwner {
  readonly id: string;
  readonly sessionId?: string;
  readonly sessionKind?: string;
}

/** What VS Code's createTerminal gets. */
export interface SessionTerminalSpec {
  readonly name: string;
  readonly shellPath: string;
  readonly shellArgs: readonly string[];
  readonly cwd: string;
  /** Added to the terminal's environment: the profile's `env`. */
  readonly env: Readonly<Record<string, string>>;
}

/** How each CLI resumes a session interactively. */
const resumeArgs: Readonly<Record<string, (sessionId: string) => string[]>> = {
  claude: (sessionId) => ['--resume', sessionId],
  codex: (sessionId) => ['resume', sessionId],
};

/**
 * The terminal for a worker's session. `profile`: the worker's agent profile, whose command and
 * env are used when it is of the session's kind (else the CLI's own name on PATH, no extra env).
 */
export function sessionTerminal(worker: SessionOwner, profile: AgentProfile | undefined, worktree: string): Result<SessionTerminalSpec> {
  const { sessionId, sessionKind } = worker;
  if (!sessionId || !sessionKind) {
    return refused('noSession', `${worker.id} has no agent session to open: its agent has not reported one (yet).`);
  }
  const args = resumeArgs[sessionKind];
  if (!args)
    return refused(
      'sessionNotResumable',
      `${worker.id}'s session is a '${sessionKind}' one; only Claude Code and Codex sessions can be opened in a terminal.`,
    );
  const own = profile?.kind === sessionKind ? profile : undefined;
  return ok({
    name: `Foreman: ${worker.id} (taken over)`,
    shellPath: own?.command ?? sessionKind,
    shellArgs: args(sessionId),
    cwd: worktree,
    env: { ...(own?.env ?? {}) },
  });
}
