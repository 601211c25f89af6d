/** The durable store and the ownership lock (ARCHITECTURE §2). */
export { SqlJsStore } from './sqlJsStore';
export type { SqlJsStoreOptions } from './sqlJsStore';
export { StoreError, storeFailure } from './storeError';
export type { StoreErrorCode } from './storeError';
export { migrations } from './migrations/index';
export type { Migration } from './migrations/index';
export { acquireOwnerLock, readOwner } from './ownerLock';
export type { OwnerInfo, OwnerLock } from './ownerLock';
export { waitForOwnerLock } from './waitForOwnerLock';
