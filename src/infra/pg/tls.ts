/**
 * TLS for the PostgreSQL connection, as `.foreman/store.json` gives it (src/infra/workspace/storeConfig.ts).
 * Certificates and keys are named by path and read when connecting, so no key material is copied
 * into Foreman's files. The URL's own `sslmode`/`sslrootcert`/`sslcert`/`sslkey` parameters reach
 * `pg` unchanged and win over these when both are given (pg reads the URL last).
 */
import * as fs from 'node:fs';
import type { ConnectionOptions } from 'node:tls';

/** `true`: TLS with the system's CAs; an object: what to verify and with which files. */
export type PgTls =
  | boolean
  | {
      /** false accepts any server certificate (encryption without authentication). Default true. */
      readonly rejectUnauthorized?: boolean;
      /** The name the server's certificate must carry, when it differs from the URL's host. */
      readonly servername?: string;
      /** Absolute paths of PEM files: the CA to trust, and this machine's client certificate and key. */
      readonly caFile?: string;
      readonly certFile?: string;
      readonly keyFile?: string;
    };

/** The `ssl` option of a `pg` client; reads the files it names (a missing file throws, naming it). */
export function tlsOptionsOf(tls: PgTls): boolean | ConnectionOptions {
  if (typeof tls === 'boolean') return tls;
  const read = (file: string | undefined): string | undefined => (file === undefined ? undefined : fs.readFileSync(file, 'utf8'));
  const options: ConnectionOptions = {};
  if (tls.rejectUnauthorized !== undefined) options.rejectUnauthorized = tls.rejectUnauthorized;
  if (tls.servername !== undefined) options.servername = tls.servername;
  const ca = read(tls.caFile);
  const cert = read(tls.certFile);
  const key = read(tls.keyFile);
  if (ca !== undefined) options.ca = ca;
  if (cert !== undefined) options.cert = cert;
  if (key !== undefined) options.key = key;
  return options;
}
