/**
 * The agent's `foreman` reports under Claude Code's sandbox. Inside it they cannot reach their
 * owner: on Linux its seccomp filter refuses every Unix socket (the owner's endpoint is one;
 * Claude's `allowUnixSockets` list is macOS only, and `allowAllUnixSockets` would open the Docker
 * and D-Bus sockets too, a way out of the sandbox), and its PID namespace hides the owner's
 * process, so the owner looks gone. So these few report commands run outside the sandbox, as the
 * sandbox's `excludedCommands`.
 *
 * The caveat: Claude exempts a whole command line when any one part of it matches, so
 * `foreman heartbeat && rm -rf ~` would run `rm` unconfined too. The gate therefore lets a
 * command that runs `foreman` through only alone and plain — one simple command, its words fixed
 * (no `$VAR`, no substitution), no redirection, `foreman` first — and refuses anything else that
 * names it, with a reason the agent can act on.
 */
import { splitCommand } from './shellCommand';

/** What an agent reports through: progress, a failure, its hand-in, usage, messages, status. */
export const foremanReportCommands = ['heartbeat', 'fail', 'submit', 'usage', 'send', 'poll', 'ack', 'status'] as const;

/** Claude Code's `sandbox.excludedCommands` for them (`prefix:*` rules). */
export const sandboxExcludedCommands: readonly string[] = foremanReportCommands.map((name) => `foreman ${name}:*`);

const refusal =
  'a foreman command runs outside the sandbox, so it must run on its own: one plain `foreman <command> …` line, without &&, ;, |, $VAR, $(…) or redirection';

const namesForeman = (word: string): boolean => word === 'foreman' || word.endsWith('/foreman');

/** Words that run the command after them; Claude looks through several (`timeout 5 foreman …`). */
const wrappers: ReadonlySet<string> = new Set([
  'timeout',
  'time',
  'nice',
  'stdbuf',
  'nohup',
  'command',
  'builtin',
  'noglob',
  'env',
  'exec',
  'xargs',
  'sudo',
]);

/** Whether a simple command runs foreman: first after any `NAME=value`, or anywhere after a wrapper. */
function runsForeman(words: readonly string[]): boolean {
  let index = 0;
  while (index < words.length && /^[A-Za-z_]\w*=/.test(words[index] ?? '')) index += 1;
  const first = words[index];
  if (first === undefined) return false;
  return namesForeman(first) || (wrappers.has(first.slice(first.lastIndexOf('/') + 1)) && words.slice(index + 1).some(namesForeman));
}

/** Why the gate refuses this Bash command under the sandbox, or undefined when it has no say. */
export function sandboxedForemanRefusal(command: string): string | undefined {
  const split = splitCommand(command);
  if (!split.ok) return /(^|[^\w-])foreman\b/.test(command) ? refusal : undefined;
  if (!split.parts.some((part) => runsForeman(part.words))) return undefined;
  const [part, ...others] = split.parts;
  const plain = part !== undefined && others.length === 0 && !part.dynamic && part.redirects.length === 0 && part.words[0] === 'foreman';
  return plain ? undefined : refusal;
}
