/**
 * An owner of a shared PostgreSQL store for the owners tests (owners.test.ts and its child
 * processes): a real engine with an owner identity on its own PgStore and its own clone (a git
 * repository in a temp folder), no agents, the system clock, leases by the server's clock.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CommandInput, type CommandName, parseCommand } from '../../../src/core/requests';
import type { Result } from '../../../src/core/result';
import { Engine } from '../../../src/engine/engine';
import type { OwnerIdentity } from '../../../src/engine/ports';
import type { ResultOf } from '../../../src/engine/results';
import { defaultEngineSettings, type EngineSettings } from '../../../src/engine/settings';
import { FileArchiveSink, FileBlobStore, JsonlExportSink } from '../../../src/infra/fs';
import { GitPortAdapter } from '../../../src/infra/git/gitPort';
import { PgStore } from '../../../src/infra/pg/pgStore';
import { pgLeaseClock } from '../../../src/infra/pg/serverClock';

export interface OwnerEngine {
  readonly engine: Engine;
  readonly store: PgStore;
  run<C extends CommandName>(command: C, args: CommandInput<C>): Promise<Result<ResultOf<C>>>;
  close(): void;
}

export function openOwnerEngine(url: string, owner: OwnerIdentity, overrides: Partial<EngineSettings> = {}): OwnerEngine {
  const dir = mkdtempSync(join(tmpdir(), `foreman-${owner.id}-`));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'owner@test');
  git('config', 'user.name', 'Owner Test');
  writeFileSync(join(dir, '.gitignore'), '.foreman/\n');
  git('add', '.gitignore');
  git('commit', '-q', '-m', 'initial');
  const foremanDir = join(dir, '.foreman');
  const store = PgStore.open(url, { ownerId: owner.id });
  const settings = { ...defaultEngineSettings, ...overrides };
  const engine = new Engine({
    store,
    settings,
    blobs: new FileBlobStore(join(foremanDir, 'blobs')),
    exports: new JsonlExportSink(foremanDir),
    archive: new FileArchiveSink(foremanDir),
    git: new GitPortAdapter(dir, () => 'main', { branchTemplate: settings.branchTemplate }),
    crew: { mergeStrategy: 'rebase' },
    owner,
    leaseClock: pgLeaseClock(store),
  });
  return {
    engine,
    store,
    run(command, args) {
      const parsed = parseCommand(command, args, { actor: owner.id });
      if (!parsed.ok) throw new Error(parsed.message);
      return engine.execute(parsed.request);
    },
    close() {
      engine.dispose();
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
