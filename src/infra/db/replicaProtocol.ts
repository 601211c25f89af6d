/** The messages between a store and its replica on a worker thread (replica.ts, replicaWorker.ts). */

/** Given to the worker as `workerData`. */
export interface ReplicaStart {
  /** The store's folder: the replica loads its image and journals. */
  readonly dir: string;
  /** The seq the store held when it started the replica; later records arrive as messages. */
  readonly baseSeq: number;
}

/**
 * Store to replica, in commit order: the records committed since the last message go together, as
 * the journal holds them (`encodeRecord`'s bytes, one after another).
 */
export type ReplicaRequest =
  { readonly kind: 'records'; readonly bytes: Uint8Array } | { readonly kind: 'image'; readonly id: number; readonly seq: number };

/** Replica to store. */
export type ReplicaReply =
  | { readonly kind: 'ready'; readonly seq: number }
  | { readonly kind: 'image'; readonly id: number; readonly seq: number; readonly bytes: Uint8Array; readonly sha256: Uint8Array }
  | { readonly kind: 'failed'; readonly reason: string };
