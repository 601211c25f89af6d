import { randomBytes } from 'node:crypto';
import { ok } from '../core/result';
import type { Reader, Tx } from './ports';
import { readMeta, writeMeta } from './queries';
import type { Transactor } from './transactor';

/**
 * The store's identity (issue 28): a random id in `meta.store_id`, written by `foreman init` (and,
 * for a store made before identities, by the first write that needs it). Every archive segment and
 * every export line names it, so a folder that holds another store's archive or exports (the store
 * files were removed and `init` made a new one) is told apart from this store's own: the new
 * store never appends after another's seq, and never deletes another's segments.
 */
const storeIdKey = 'store_id';

export function readStoreId(reader: Reader): string | undefined {
  return readMeta(reader, storeIdKey);
}

/** This store's id, made now when it has none yet: 64 random bits in hex. */
export function ensureStoreId(tx: Tx): string {
  const known = readStoreId(tx);
  if (known !== undefined) return known;
  const id = randomBytes(8).toString('hex');
  writeMeta(tx, storeIdKey, id);
  return id;
}

/**
 * A gate for the work that writes files naming the store (exports, archive segments): the store's
 * identity is committed first, once, in a transaction of its own.
 */
export function identityFirst(tx: Transactor): <T>(work: () => T) => T {
  let known = false;
  return (work) => {
    if (!known) {
      const made = tx.internal('store', (unit) => ok(ensureStoreId(unit.tx)), { quiet: true });
      known = made.ok;
    }
    return work();
  };
}
