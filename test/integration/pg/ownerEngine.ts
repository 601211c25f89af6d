/**
 * An owner of a shared PostgreSQL store for the owners tests (owners.test.ts and its child
 * processes): a real engine with an owner identity on its own PgStore and its own clone (a git
 * repository in a temp folder), no agents, the system clock, leases by the server's clock.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandInput, CommandName } from '../../../src/core/requests';
import type { Result } from '../../../src/core/result';
import type { Engine } from '../../../src/engine/engine';
import type { OwnerIdentity } from '../../../src/engine/ports';
import type { ResultOf } from '../../../src/core/requests';
import { defaultEngineSettings, type EngineSettings } from '../../../src/engine/settings';
import { PgStore } from '../../../src/infra/pg/pgStore';
import { pgLeaseClock } from '../../../src/infra/pg/serverClock';
import { initRepository, openOwnerEngine as openEngineOf } from '../../support/engineOwner';

export interface OwnerEngine {
  readonly engine: Engine;
  readonly store: PgStore;
  run<C extends CommandName>(command: C, args: CommandInput<C>): Promise<Result<ResultOf<C>>>;
  close(): void;
}

export function openOwnerEngine(url: string, owner: OwnerIdentity, overrides: Partial<EngineSettings> = {}): OwnerEngine {
  const dir = mkdtempSync(join(tmpdir(), `foreman-${owner.id}-`));
  initRepository(dir);
  const store = PgStore.open(url, { ownerId: owner.id });
  const settings = { ...defaultEngineSettings, ...overrides };
  const engine = openEngineOf({ dir, store, settings, identity: owner, leaseClock: pgLeaseClock(store) });
  return {
    engine,
    store,
    run: (command, args) => engine.run(command, args),
    close() {
      engine.dispose();
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh database at `url` brought to Foreman's schema (opening a store migrates it). */
export function migrated(url: string): string {
  openOwnerEngine(url, { id: 'migrator', host: 'nowhere' }).close();
  return url;
}
