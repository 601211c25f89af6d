/**
 * The session the extension opens when its window owns a workspace (OwnerSession: lock, store,
 * engine, endpoint), on a repository in a temp folder initialised as `foreman init` does. The
 * workspace is untrusted, so no agent is ever launched: the benches drive it with requests.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CommandInput, type CommandName, parseCommand } from '../../src/core/requests';
import type { ResultOf } from '../../src/core/requests';
import { crewSettingsOf, defaultEngineSettings } from '../../src/engine/settings';
import type { ForemanSession } from '../../src/extension/session';
import { OwnerSession } from '../../src/extension/sessions/ownerSession';
import { initWorkspace } from '../../src/infra/workspace';

/** Liveness thresholds no bench run reaches: nobody's liveness moves by itself, each change is the bench's own. */
export const quietLiveness = { warnMs: 3_600_000, staleMs: 7_200_000, deadMs: 10_800_000 };

/** `git init` at `root` with one empty commit on `main`. */
export function gitRepository(root: string): void {
  execFileSync('git', ['init', '-q', '-b', 'main', root]);
  execFileSync('git', ['-C', root, '-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-q', '--allow-empty', '-m', 'init']);
}

/** A git repository with one commit on `main` and Foreman initialised in it; `remove` deletes it. */
export async function benchRepository(prefix: string): Promise<{ root: string; remove: () => void }> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const remove = () => rmSync(root, { recursive: true, force: true });
  try {
    gitRepository(root);
    const report = await initWorkspace(root);
    if (!report.ok) throw new Error(`foreman init: ${report.message}`);
    return { root, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

/** The owner session over the workspace at `root`, as an untrusted window opens it (`quiet`: with `quietLiveness`). */
export async function openOwnerSession(root: string, options: { quiet?: boolean } = {}): Promise<OwnerSession> {
  const engine = options.quiet ? { ...defaultEngineSettings, liveness: quietLiveness } : defaultEngineSettings;
  const opened = await OwnerSession.open({
    root,
    name: 'bench',
    trusted: false,
    settings: { engine, crew: crewSettingsOf({}) },
    log: () => undefined,
  });
  if (!opened.ok) throw new Error(`the owner session did not open: ${opened.message}`);
  return opened.value;
}

/** Parses a request as every boundary does and runs it through the session; it must succeed. */
export async function must<C extends CommandName>(session: ForemanSession, command: C, args: CommandInput<C>): Promise<ResultOf<C>> {
  const parsed = parseCommand(command, args, { actor: 'bench' });
  if (!parsed.ok) throw new Error(`${command}: ${parsed.message}`);
  const result = await session.execute(parsed.request);
  if (!result.ok) throw new Error(`${command}: ${result.message}`);
  return result.value;
}
