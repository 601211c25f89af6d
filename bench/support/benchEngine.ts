/**
 * Foreman's engine over a given store, as the benches build it: its blobs, exports and archive in
 * `foremanDir`, git at `repoDir` on `main`, nothing started (requests only, no agents); with
 * `owner`, one owner of a shared store.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type CommandInput, type CommandName, parseCommand } from '../../src/core/requests';
import { Engine } from '../../src/engine/engine';
import type { OwnerIdentity, Store } from '../../src/engine/ports';
import type { ResultOf } from '../../src/core/requests';
import type { EngineSettings } from '../../src/engine/settings';
import { FileArchiveSink, FileBlobStore, JsonlExportSink } from '../../src/infra/fs';
import { GitPortAdapter } from '../../src/infra/git/gitPort';

export function benchEngine(store: Store, settings: EngineSettings, repoDir: string, foremanDir: string, owner?: OwnerIdentity): Engine {
  return new Engine({
    store,
    settings,
    blobs: new FileBlobStore(path.join(foremanDir, 'blobs')),
    exports: new JsonlExportSink(foremanDir),
    archive: new FileArchiveSink(foremanDir),
    git: new GitPortAdapter(repoDir, () => 'main', { branchTemplate: settings.branchTemplate }),
    crew: { mergeStrategy: 'rebase' },
    ...(owner ? { owner } : {}),
  });
}

/** A repository with one commit on `main` in a new temp folder (an owner's clone); the caller removes it. */
export function benchClone(name: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `foreman-${name}-`));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(dir, 'README'), 'bench\n');
  git('add', 'README');
  git('-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', 'commit', '-q', '-m', 'initial');
  return dir;
}

/** Runs requests as `actor` through the engine's front door, as a boundary would; a refusal throws. */
export function executorOf(engine: Engine, actor: string) {
  return async <C extends CommandName>(command: C, args: CommandInput<C>): Promise<ResultOf<C>> => {
    const parsed = parseCommand(command, args, { actor });
    if (!parsed.ok) throw new Error(parsed.message);
    const result = await engine.execute(parsed.request);
    if (!result.ok) throw new Error(`${command}: ${result.message}`);
    return result.value;
  };
}
