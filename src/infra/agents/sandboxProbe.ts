/**
 * Whether Claude Code's sandbox can run here (issue 27): on Linux it needs bubblewrap and socat
 * (the checks its own startup makes, read from 2.1.197) and namespaces the container allows; on
 * macOS Seatbelt is always there. Probed once per agent PATH for the life of the owner process —
 * an answer that changes needs a package install, and a launch must not pay for a probe each time.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { findCommand } from './agentEnvironment';

const answers = new Map<string, boolean>();

/** How long a probe may take before the sandbox counts as unavailable. */
const probeTimeoutMs = 5_000;

function probe(environment: Readonly<Record<string, string>>): boolean {
  if (process.platform === 'darwin') return existsSync('/usr/bin/sandbox-exec');
  if (process.platform !== 'linux') return false;
  const bwrap = findCommand('bwrap', environment, '/');
  if (bwrap === undefined || findCommand('socat', environment, '/') === undefined) return false;
  // Installed is not enough: a container may forbid the namespaces bubblewrap creates.
  const trial = spawnSync(
    bwrap,
    ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-net', '--unshare-pid', '--die-with-parent', 'true'],
    { stdio: 'ignore', timeout: probeTimeoutMs },
  );
  return trial.status === 0;
}

/** Whether a Claude Code started with this environment can sandbox its commands (cached). */
export function claudeSandboxAvailable(environment: Readonly<Record<string, string>>): boolean {
  const key = environment['PATH'] ?? '';
  const known = answers.get(key);
  if (known !== undefined) return known;
  const answer = probe(environment);
  answers.set(key, answer);
  return answer;
}
