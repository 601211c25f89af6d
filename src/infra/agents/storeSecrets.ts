/**
 * What Foreman's own environment must not hand to the processes it runs for agents (issue 29): the
 * variables through which libpq-compatible clients find the team's PostgreSQL store and its
 * password. An owner connects with them (src/infra/pg/connect.ts); an agent with a shell would reach
 * the database directly with them, past every guard of the engine. The deny list is documented in
 * docs/team.md; a profile's `env` that names one of them sets it for that agent on purpose.
 *
 * No environment variable of Foreman's carries the store's URL: it is in `.foreman/store.json`
 * (never with its password) or the `foreman.store` setting, neither of which is an environment.
 */

/**
 * libpq's connection variables (PostgreSQL's "Environment Variables" of libpq): where to connect,
 * as whom, with which password or key, and how. Session defaults (PGDATESTYLE, PGTZ, PGGEQO) and
 * the server's own (PGDATA) say nothing about reaching the store and pass.
 */
export const storeConnectionVariables: readonly string[] = [
  'PGHOST',
  'PGHOSTADDR',
  'PGPORT',
  'PGDATABASE',
  'PGUSER',
  'PGPASSWORD',
  'PGPASSFILE',
  'PGREQUIREAUTH',
  'PGCHANNELBINDING',
  'PGSERVICE',
  'PGSERVICEFILE',
  'PGSYSCONFDIR',
  'PGOPTIONS',
  'PGAPPNAME',
  'PGSSLMODE',
  'PGREQUIRESSL',
  'PGSSLNEGOTIATION',
  'PGSSLCOMPRESSION',
  'PGSSLCERT',
  'PGSSLKEY',
  'PGSSLCERTMODE',
  'PGSSLROOTCERT',
  'PGSSLCRL',
  'PGSSLCRLDIR',
  'PGSSLSNI',
  'PGREQUIREPEER',
  'PGSSLMINPROTOCOLVERSION',
  'PGSSLMAXPROTOCOLVERSION',
  'PGGSSENCMODE',
  'PGKRBSRVNAME',
  'PGGSSLIB',
  'PGGSSDELEGATION',
  'PGCONNECT_TIMEOUT',
  'PGCLIENTENCODING',
  'PGTARGETSESSIONATTRS',
  'PGLOADBALANCEHOSTS',
];

const denied = new Set(storeConnectionVariables);

/** Whether `name` is one of them (Windows spells variables in any case). */
export function isStoreConnectionVariable(name: string): boolean {
  return denied.has(process.platform === 'win32' ? name.toUpperCase() : name);
}

/** `environment` without the store's connection variables; undefined values are dropped too. */
export function withoutStoreConnection(environment: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [key, value] of Object.entries(environment)) if (value !== undefined && !isStoreConnectionVariable(key)) kept[key] = value;
  return kept;
}
