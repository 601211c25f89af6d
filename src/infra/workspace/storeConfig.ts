/**
 * Which store a clone's owner opens (issue 14): `.foreman/store.json`. Absent, the embedded sql.js
 * store in `.foreman/` (the default, for one machine). `{ "kind": "postgres", "url": … }`, a
 * PostgreSQL server that several machines' owners share. The file is per clone and never committed.
 *
 * The URL never holds the password, in this file or anywhere Foreman writes: `foreman init` strips
 * it and says where it goes instead (PGPASSWORD or ~/.pgpass, which the connection reads), and a
 * file or setting that holds one is refused. TLS: the URL's `sslmode`/`sslrootcert`/… parameters,
 * and/or an `ssl` object here (src/infra/pg/tls.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { type Result, invalid, ok } from '../../core/result';
import { writeFileAtomic } from '../fs/atomicFile';
import type { PgTls } from '../pg/tls';
import { storeConfigName } from './storeFileNames';

export const storeFileName = storeConfigName;

/** The store a clone uses: the embedded one, or a shared PostgreSQL server. */
export type StoreConfig =
  | { readonly kind: 'sqljs' }
  | {
      readonly kind: 'postgres';
      /** `postgres://user@host:port/database?sslmode=…`, without a password. */
      readonly url: string;
      readonly ssl?: PgTls;
    };

/** Query parameters `pg` takes as a password; like the URL's own, they never reach a file. */
const passwordParameters = ['password', 'sslpassword'];

const absolutePath = z.string().refine((value) => path.isAbsolute(value), 'must be an absolute path');

const tlsSchema: z.ZodType<PgTls> = z.union([
  z.boolean(),
  z
    .object({
      rejectUnauthorized: z.boolean().optional(),
      servername: z.string().min(1).optional(),
      caFile: absolutePath.optional(),
      certFile: absolutePath.optional(),
      keyFile: absolutePath.optional(),
    })
    .strict(),
]);

/** Where a URL keeps a password, if it does: the user-info part or a query parameter. */
function passwordPlace(url: URL): string | undefined {
  if (url.password) return 'the part before @';
  const parameter = passwordParameters.find((name) => url.searchParams.has(name));
  return parameter ? `the ${parameter} parameter` : undefined;
}

const postgresUrl = z.string().superRefine((value, context) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    context.addIssue({ code: 'custom', message: 'is not a URL (postgres://user@host:5432/database)' });
    return;
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    context.addIssue({ code: 'custom', message: `must start with postgres:// (got ${url.protocol}//)` });
    return;
  }
  const place = passwordPlace(url);
  if (place) {
    context.addIssue({
      code: 'custom',
      message: `holds a password (${place}); remove it and give it in PGPASSWORD or ~/.pgpass instead`,
    });
  }
});

const storeFileSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('sqljs') }).strict(),
  z.object({ kind: z.literal('postgres'), url: postgresUrl, ssl: tlsSchema.optional() }).strict(),
]);

/** The store `.foreman/store.json` selects; sql.js when there is no such file. A bad file is refused, naming it and the field. */
export function readStoreConfig(foremanDir: string): Result<StoreConfig> {
  const file = path.join(foremanDir, storeFileName);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ok({ kind: 'sqljs' });
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return invalid('badStoreConfig', `${file} is not valid JSON: ${(error as Error).message}`, { file });
  }
  const parsed = storeFileSchema.safeParse(json);
  if (!parsed.success) return invalid('badStoreConfig', `${file}: ${issuesOf(parsed.error)}`, { file });
  return ok(parsed.data);
}

/** Each problem with its field (the file itself for an unknown key); `kind` names what it may be. */
function issuesOf(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.length ? issue.path.join('.') : 'the file';
      const message = issue.path.join('.') === 'kind' ? 'must be "postgres" or "sqljs"' : issue.message;
      return `${field}: ${message}`;
    })
    .join('; ');
}

/** Records the choice: `store.json` for PostgreSQL, no file for sql.js (the default). */
export function writeStoreConfig(foremanDir: string, config: StoreConfig): void {
  const file = path.join(foremanDir, storeFileName);
  if (config.kind === 'sqljs') {
    fs.rmSync(file, { force: true });
    return;
  }
  // A last check: whatever the caller did, no password lands in the file.
  const checked = storeFileSchema.parse(config);
  writeFileAtomic(file, `${JSON.stringify(checked, null, 2)}\n`);
}

/** A store named on the command line or in a setting, with the password cut from it. */
export interface StoreChoice {
  readonly config: StoreConfig;
  /** True when the given URL held a password, which was dropped: the user must give it another way. */
  readonly passwordRemoved: boolean;
  /**
   * That password, for this process's own connection only (`foreman init` connects with it once);
   * it is never written.
   */
  readonly password?: string;
}

/**
 * Reads `--store <url|sqljs>`: `sqljs`, or a postgres:// URL whose password (and password
 * parameters) are removed; everything else in the URL (sslmode, sslrootcert, …) is kept.
 */
export function parseStoreArgument(text: string): Result<StoreChoice> {
  if (text === 'sqljs' || text === 'sql.js') return ok({ config: { kind: 'sqljs' }, passwordRemoved: false });
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return invalid('badStore', 'store: expected sqljs or a URL such as postgres://user@host:5432/database');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    return invalid('badStore', `store: expected sqljs or a postgres:// URL (got ${url.protocol}//…)`);
  }
  const passwordRemoved = passwordPlace(url) !== undefined;
  const password = url.password ? safeDecode(url.password) : (url.searchParams.get('password') ?? undefined);
  url.password = '';
  for (const name of passwordParameters) url.searchParams.delete(name);
  return ok({ config: { kind: 'postgres', url: url.toString() }, passwordRemoved, ...(password ? { password } : {}) });
}

/** `url` with `password` in it, for a connection made in memory (never for a file or a message). */
export function withPassword(url: string, password: string | undefined): string {
  if (password === undefined) return url;
  const parsed = new URL(url);
  parsed.password = encodeURIComponent(password);
  return parsed.toString();
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The `foreman.store` setting of a VS Code window: empty (use `.foreman/store.json`), `sqljs`, or
 * a URL without a password (a setting is a file too). Undefined for empty.
 */
export function storeSettingConfig(value: string): Result<StoreConfig | undefined> {
  if (value.trim() === '') return ok(undefined);
  const choice = parseStoreArgument(value.trim());
  if (!choice.ok) return choice;
  if (choice.value.passwordRemoved) {
    return invalid('badStore', 'holds a password; remove it and give it in PGPASSWORD or ~/.pgpass instead');
  }
  return ok(choice.value.config);
}

/** What the password-less URL leaves to the environment, for the message after `init`. */
export const passwordAdvice =
  'Give it to each process that opens the store in PGPASSWORD, or in ~/.pgpass ' + '(a line host:port:database:user:password, chmod 600).';
