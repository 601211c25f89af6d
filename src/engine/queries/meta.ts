import type { Reader, Tx } from '../ports';

/** The `meta` table: store-wide values by key (`base_branch`, `schema_version`, counters). */

export function readMeta(reader: Reader, key: string): string | undefined {
  return reader.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [key])?.value;
}

/** How many requests were answered from their idempotency key instead of being applied again. */
export function readIdempotencyHits(reader: Reader): number {
  return Number(reader.get<{ value: string }>(`SELECT value FROM meta WHERE key = 'idempotency_hits'`)?.value ?? 0);
}

export function incrementIdempotencyHits(tx: Tx): void {
  tx.run(
    `INSERT INTO meta (key, value) VALUES ('idempotency_hits', '1') ON CONFLICT(key) DO UPDATE SET value = CAST(meta.value AS INTEGER) + 1`,
  );
}

export function writeMeta(tx: Tx, key: string, value: string): void {
  tx.run('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value', [key, value]);
}
