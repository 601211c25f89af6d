/**
 * The store backends, one entry per kind `.foreman/store.json` names (issue 31): how the store is
 * opened, what a shared one adds beside it (the server's lease clock, a merge lock across
 * machines, the other owners' commits as they happen) and how `foreman doctor` checks it. The one
 * place a store is opened: the owner (src/host/ownerStore.ts), `foreman init` and `foreman doctor`
 * all go through `storeBackend`, so a new backend is its `src/infra/<backend>/` and one entry here.
 */
import { type Result, ok, refused } from '../../core/result';
import type { LeaseClock } from '../../engine/ownerLease';
import type { Store } from '../../engine/ports';
import { SqlJsStore, type SqlJsStoreOptions, StoreError } from '../db';
import type { MergeLock } from '../git/mergeLock';
import { PgListener } from '../pg/listener';
import type { ChangeNotice } from '../pg/notice';
import { PgMergeLock } from '../pg/mergeLock';
import { PgStore } from '../pg/pgStore';
import { pgLeaseClock } from '../pg/serverClock';
import { type DoctorCheck, type StoreCheckOptions, checkPostgres, checkSqlJs } from './storeChecks';
import { type StoreConfig, withPassword } from './storeConfig';

/** What opening a store takes from whoever opens it; each backend reads what applies to it. */
export interface StoreOpenOptions {
  /** This owner's id on a shared store (its rows in the owners table); a one-shot `init` has none. */
  readonly ownerId?: string;
  /** `foreman init`'s password, for its own connection only: never written. */
  readonly password?: string;
  readonly log?: (line: string) => void;
  /** The embedded store's part: checkpoint at close, saving lost and regained, a failed fsync (SqlJsStoreOptions). */
  readonly embedded?: Pick<SqlJsStoreOptions, 'closeCheckpointBytes' | 'onSavingChange' | 'onBroken'>;
}

/** An open store, and the clock its owners keep their leases by when it is not this machine's. */
export interface OpenedStore {
  readonly store: Store;
  readonly leaseClock?: LeaseClock;
}

/** A store made ready before the owner lock is taken; `open` under the lock, or `discard`. */
export interface PreparedStore {
  /** The store, or `storeUnreachable` (refused) when a server is down or refuses the login. */
  open(options: StoreOpenOptions): Promise<Result<OpenedStore>>;
  discard(): void;
}

export interface StoreBackend {
  /** Several machines' owners share it: each owner has an identity (ownerIdentity) and a lease. */
  readonly shared: boolean;
  /** How messages name it: `sqljs`, or the server's URL (never with a password). */
  readonly name: string;
  /**
   * With `loadAhead`, everything slow that can happen before the lock (issue 10): the embedded store
   * loads its image and replays its journal, and catches up under the lock.
   */
  prepare(dir: string, options: { readonly loadAhead: boolean }): Promise<PreparedStore>;
  /** Who may merge now across machines; without one, this process's queue decides. */
  mergeLock?(): MergeLock;
  /** The other owners' commits as they happen, each heard once (`changed` names the rows). */
  listen?(self: string, onChange: (notice: ChangeNotice) => void, log: (line: string) => void): { close(): Promise<void> };
  /** `foreman doctor`'s checks of it: reachable, its schema, the clock against it. */
  check(dir: string, options: StoreCheckOptions): Promise<DoctorCheck[]>;
}

/** Opens the store at once, under a lock already held (`foreman init`). */
export async function openStore(backend: StoreBackend, dir: string, options: StoreOpenOptions): Promise<Result<OpenedStore>> {
  return (await backend.prepare(dir, { loadAhead: false })).open(options);
}

/** An open that fails because the server is down or refuses the login is an answer saying so, not a crash. */
async function unreachableAsRefusal(open: () => Promise<OpenedStore>): Promise<Result<OpenedStore>> {
  try {
    return ok(await open());
  } catch (error) {
    if (error instanceof StoreError && error.code === 'unreachable') return refused('storeUnreachable', error.message);
    throw error;
  }
}

const sqlJs: StoreBackend = {
  shared: false,
  name: 'sqljs',
  async prepare(dir, { loadAhead }) {
    const preloaded = loadAhead ? await SqlJsStore.preload(dir) : undefined;
    return {
      open: (options) =>
        unreachableAsRefusal(async () => ({
          store: await SqlJsStore.open(dir, {
            ...(options.log ? { log: options.log } : {}),
            ...options.embedded,
            ...(preloaded ? { preloaded } : {}),
          }),
        })),
      discard: () => preloaded?.loaded.connection.close(),
    };
  },
  check: (dir, options) => checkSqlJs(dir, () => SqlJsStore.open(dir), options),
};

function postgres(config: Extract<StoreConfig, { kind: 'postgres' }>): StoreBackend {
  const ssl = config.ssl !== undefined ? { ssl: config.ssl } : {};
  return {
    shared: true,
    name: config.url,
    // The server holds the state: nothing to load before the lock.
    prepare: () =>
      Promise.resolve({
        open: (options) =>
          unreachableAsRefusal(() => {
            const store = PgStore.open(withPassword(config.url, options.password), {
              ...ssl,
              ...(options.ownerId ? { ownerId: options.ownerId } : {}),
            });
            return Promise.resolve({ store, leaseClock: pgLeaseClock(store) });
          }),
        discard: () => undefined,
      }),
    // One merge at a time across the machines: an advisory lock on the shared server.
    mergeLock: () => new PgMergeLock({ url: config.url, ...ssl }),
    listen: (self, onChange, log) => new PgListener(config.url, { self, onChange, log, ...ssl }),
    check: (_dir, options) => Promise.resolve(checkPostgres(config, options)),
  };
}

/** Each kind's `store.json`, by its kind. */
type ConfigOf = { [C in StoreConfig as C['kind']]: C };

/** How each kind's entry is made from its `store.json`. */
const backends: { readonly [K in keyof ConfigOf]: (config: ConfigOf[K]) => StoreBackend } = {
  sqljs: () => sqlJs,
  postgres,
};

function backendOf<K extends keyof ConfigOf>(kind: K, config: ConfigOf[K]): StoreBackend {
  return backends[kind](config);
}

/** The backend `config` names. */
export function storeBackend(config: StoreConfig): StoreBackend {
  return backendOf(config.kind, config);
}
