/**
 * One PostgreSQL server for a test file: started before its tests and stopped after them, once
 * what they handed to `closeAfter` is closed (the last handed, the first closed: an owner before
 * the store it runs on). `database()` is a fresh, empty database of its own on that server.
 */
import { after, before } from 'node:test';
import { type TestPostgres, createDatabase, startPostgres } from './postgres';

export interface PostgresPerFile {
  /** The running server (after `before`). */
  server(): TestPostgres;
  /** A fresh empty database named `<prefix>_<pid>_<n>`; its URL. */
  database(): string;
  closeAfter(close: () => unknown): void;
}

export function postgresPerFile(prefix: string): PostgresPerFile {
  let server: TestPostgres | undefined;
  const closing: Array<() => unknown> = [];
  let databases = 0;
  before(async () => {
    server = await startPostgres();
  });
  after(async () => {
    for (const close of closing.reverse()) await close();
    await server?.stop();
  });
  const running = (): TestPostgres => {
    if (!server) throw new Error('the PostgreSQL server is not started yet: use it inside a test');
    return server;
  };
  return {
    server: running,
    database: () => createDatabase(running().url, `${prefix}_${process.pid}_${++databases}`),
    closeAfter: (close) => closing.push(close),
  };
}
