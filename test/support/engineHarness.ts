import { after } from 'node:test';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CommandInput, type CommandName, type ReadCommand, answerSchemaOf, parseCommand } from '../../src/core/requests';
import { describeIssues } from '../../src/core/zodIssues';
import type { Result } from '../../src/core/result';
import { Engine } from '../../src/engine/engine';
import type { ResultOf } from '../../src/core/requests';
import type { ArchiveSink, Store } from '../../src/engine/ports';
import { defaultEngineSettings, type EngineSettings } from '../../src/engine/settings';
import { SqlJsStore } from '../../src/infra/db';
import { FileArchiveSink, FileBlobStore, JsonlExportSink } from '../../src/infra/fs';
import { GitPortAdapter } from '../../src/infra/git/gitPort';
import { PgStore } from '../../src/infra/pg/pgStore';
import { initRepository } from './engineOwner';
import { ManualClock } from './manualClock';
import { type TestPostgres, createDatabase, startPostgres } from './postgres';

export interface EngineHarness {
  readonly dir: string;
  readonly engine: Engine;
  readonly store: Store;
  readonly clock: ManualClock;
  /** Parses like every boundary does, then executes through the engine's front door; a successful answer must parse with its schema. */
  run<C extends CommandName>(command: C, args: CommandInput<C>, requestId?: string): Promise<Result<ResultOf<C>>>;
  /** Like run, but the request must succeed; returns its value. */
  value<T = unknown, C extends CommandName = CommandName>(command: C, args: CommandInput<C>): Promise<T>;
  /** A read-only request answered now (`Engine.query`); it must succeed. */
  query<C extends ReadCommand>(command: C, args: CommandInput<C>): ResultOf<C>;
  blobCount(): number;
  close(): void;
}

/**
 * Which store the engine suites run on: sql.js (the default), or PostgreSQL with
 * FOREMAN_TEST_STORE=postgres (issue 14) — the same suites, not a copy; `npm test` runs both.
 */
export const testStore: 'sqljs' | 'postgres' = process.env.FOREMAN_TEST_STORE === 'postgres' ? 'postgres' : 'sqljs';

/** One server per test process, started on first use and stopped when the process's tests end. */
let server: Promise<TestPostgres> | undefined;
after(async () => {
  if (server) await (await server).stop();
});
let databases = 0;

/** A fresh database on the test process's PostgreSQL server, as a store. */
async function postgresStore(): Promise<Store> {
  server ??= startPostgres();
  const { url } = await server;
  return PgStore.open(createDatabase(url, `engine_${process.pid}_${++databases}`));
}

/**
 * A real engine on a real store (sql.js, or PostgreSQL: `testStore`) and a real git repository in
 * a temp folder; only the clock is driven by the test. No agents are launched.
 */
export async function openEngine(
  overrides: Partial<EngineSettings> = {},
  ports: { archive?: (foremanDir: string) => ArchiveSink } = {},
): Promise<EngineHarness> {
  const dir = mkdtempSync(join(tmpdir(), 'foreman-engine-'));
  initRepository(dir);
  const foremanDir = join(dir, '.foreman');
  const store = testStore === 'postgres' ? await postgresStore() : await SqlJsStore.open(foremanDir);
  const clock = new ManualClock();
  const settings = { ...defaultEngineSettings, ...overrides };
  let seed = 1;
  const engine = new Engine({
    store,
    settings,
    blobs: new FileBlobStore(join(foremanDir, 'blobs')),
    exports: new JsonlExportSink(foremanDir),
    archive: ports.archive?.(foremanDir) ?? new FileArchiveSink(foremanDir),
    git: new GitPortAdapter(dir, () => 'main', { branchTemplate: settings.branchTemplate }),
    crew: { mergeStrategy: 'rebase' },
    clock,
    random: () => (seed = (seed * 16807) % 2147483647) / 2147483647,
  });
  const parsed = <C extends CommandName>(command: C, args: CommandInput<C>, requestId?: string) => {
    const result = parseCommand(command, args, requestId ? { requestId } : {});
    if (!result.ok) throw new Error(result.message);
    return result.request;
  };
  /** Every answer the engine suites get is held to its command's answer schema (src/core/requests/<group>.ts). */
  const run = async <C extends CommandName>(command: C, args: CommandInput<C>, requestId?: string): Promise<Result<ResultOf<C>>> => {
    const result = await engine.execute(parsed(command, args, requestId));
    const answer = result.ok && answerSchemaOf(command).safeParse(result.value);
    if (answer && !answer.success) throw new Error(`${command}'s answer breaks its schema: ${describeIssues(answer.error, 'answer')}`);
    return result;
  };
  return {
    dir,
    engine,
    store,
    clock,
    run,
    async value<T>(command: CommandName, args: CommandInput<CommandName>): Promise<T> {
      const result = await run(command, args);
      if (!result.ok) throw new Error(`${command} failed: ${result.code}: ${result.message}`);
      return result.value as T;
    },
    query<C extends ReadCommand>(command: C, args: CommandInput<C>): ResultOf<C> {
      const result = engine.query(parsed(command, args));
      if (!result.ok) throw new Error(`${command} failed: ${result.code}: ${result.message}`);
      return result.value;
    },
    blobCount: () => readdirSync(join(foremanDir, 'blobs')).length,
    close() {
      engine.dispose();
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
