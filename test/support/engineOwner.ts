/**
 * Engines as the owners of a shared store, for the tests of several owners (on the test clock:
 * test/integration/engine; on a real server, one per process: test/integration/pg). No node:test
 * here: child processes of those tests load it too, and a test hook would print TAP on their stdout.
 */
import { join } from 'node:path';
import { type CommandInput, type CommandName, parseCommand } from '../../src/core/requests';
import type { Result } from '../../src/core/result';
import { Engine } from '../../src/engine/engine';
import type { LeaseClock } from '../../src/engine/ownerLease';
import type { Clock, OwnerIdentity, Store } from '../../src/engine/ports';
import type { ResultOf } from '../../src/core/requests';
import { defaultEngineSettings, type EngineSettings } from '../../src/engine/settings';
import type { StatusSnapshot } from '../../src/engine/statusView';
import { FileArchiveSink, FileBlobStore, JsonlExportSink } from '../../src/infra/fs';
import { GitPortAdapter } from '../../src/infra/git/gitPort';
import { makeGitRepo } from './gitRepo';

/** A repository with one commit on `main`, for the engine's git steps (worktrees, merges). */
export function initRepository(dir: string): void {
  makeGitRepo(dir, {
    files: { 'README.md': '# engine test\n', '.gitignore': '.foreman/\n' },
    identity: { name: 'Engine Test', email: 'engine@test' },
  });
}

/** The owner lease of the owner tests on the test clock: short, so that taking work back takes few steps. */
export const ownerTestLeaseMs = 3_000;

/** Their settings: that lease, no retry backoff, and liveness far beyond the test (workers without agents stay busy). */
export const ownerTestSettings: EngineSettings = {
  ...defaultEngineSettings,
  ownerLeaseMs: ownerTestLeaseMs,
  backoff: { baseMs: 0, maxMs: 0 },
  liveness: { warnMs: 600_000, staleMs: 1_200_000, deadMs: 2_400_000 },
};

/** One owner's engine of a shared store, driven as its owner would. */
export type OwnerEngine = Engine & {
  /** Parses like every boundary does, as the owner's own request, then executes it. */
  run<C extends CommandName>(command: C, args: CommandInput<C>): Promise<Result<ResultOf<C>>>;
  /** `status`, answered now; it must succeed. */
  status(): StatusSnapshot;
};

export interface OwnerParts {
  /** The owner's clone (a git repository; `.foreman/` in it holds its blobs and exports). */
  readonly dir: string;
  readonly store: Store;
  readonly settings: EngineSettings;
  readonly identity: OwnerIdentity;
  /** The test's clock; default the system's. */
  readonly clock?: Clock;
  /** Leases by another clock (the server's); default the engine's. */
  readonly leaseClock?: LeaseClock;
}

/** A real engine as one owner of a store others share (each owner has its own engine; they share the rows). No agents. */
export function openOwnerEngine(parts: OwnerParts): OwnerEngine {
  const foremanDir = join(parts.dir, '.foreman');
  const { settings, identity } = parts;
  const engine = new Engine({
    store: parts.store,
    settings,
    blobs: new FileBlobStore(join(foremanDir, 'blobs')),
    exports: new JsonlExportSink(foremanDir),
    archive: new FileArchiveSink(foremanDir),
    git: new GitPortAdapter(parts.dir, () => 'main', { branchTemplate: settings.branchTemplate }),
    crew: { mergeStrategy: 'rebase' },
    ...(parts.clock ? { clock: parts.clock } : {}),
    owner: identity,
    ...(parts.leaseClock ? { leaseClock: parts.leaseClock } : {}),
  });
  return Object.assign(engine, {
    run<C extends CommandName>(command: C, args: CommandInput<C>) {
      const parsed = parseCommand(command, args, { actor: identity.id });
      if (!parsed.ok) throw new Error(parsed.message);
      return engine.execute(parsed.request);
    },
    status(): StatusSnapshot {
      const read = engine.query({ command: 'status', args: {}, actor: 'test' });
      if (!read.ok) throw new Error(read.message);
      return read.value;
    },
  });
}

/** Lets the waker's dispatches (queued with setImmediate) run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}
