import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseRequest, type CommandInput, type CommandName } from '../../src/core/requests';
import type { Result } from '../../src/core/result';
import { Engine } from '../../src/engine/engine';
import { defaultEngineSettings, type EngineSettings } from '../../src/engine/settings';
import { SqlJsStore } from '../../src/infra/db';
import { FileBlobStore, JsonlExportSink } from '../../src/infra/fs';
import { ManualClock } from './manualClock';

export interface EngineHarness {
  readonly dir: string;
  readonly engine: Engine;
  readonly store: SqlJsStore;
  readonly clock: ManualClock;
  /** Parses like every boundary does, then executes. */
  run<C extends CommandName>(command: C, args: CommandInput<C>, requestId?: string): Result<unknown>;
  /** Like run, but the request must succeed; returns its value. */
  value<T = unknown, C extends CommandName = CommandName>(command: C, args: CommandInput<C>): T;
  blobCount(): number;
  close(): void;
}

/** A real engine on a real sql.js store in a temp folder; only the clock is driven by the test. */
export async function openEngine(overrides: Partial<EngineSettings> = {}): Promise<EngineHarness> {
  const dir = mkdtempSync(join(tmpdir(), 'foreman-engine-'));
  const foremanDir = join(dir, '.foreman');
  const store = await SqlJsStore.open(foremanDir);
  const clock = new ManualClock();
  let seed = 1;
  const engine = new Engine({
    store,
    settings: { ...defaultEngineSettings, ...overrides },
    blobs: new FileBlobStore(join(foremanDir, 'blobs')),
    exports: new JsonlExportSink(foremanDir),
    clock,
    random: () => (seed = (seed * 16807) % 2147483647) / 2147483647,
  });
  const run = <C extends CommandName>(command: C, args: CommandInput<C>, requestId?: string): Result<unknown> => {
    const parsed = parseRequest({ command, args, ...(requestId ? { requestId } : {}) });
    if (!parsed.ok) throw new Error(parsed.message);
    return engine.execute(parsed.request);
  };
  return {
    dir,
    engine,
    store,
    clock,
    run,
    value<T>(command: CommandName, args: CommandInput<CommandName>): T {
      const result = run(command, args);
      if (!result.ok) throw new Error(`${command} failed: ${result.code}: ${result.message}`);
      return result.value as T;
    },
    blobCount: () => readdirSync(join(foremanDir, 'blobs')).length,
    close() {
      engine.dispose();
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
