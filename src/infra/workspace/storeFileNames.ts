/**
 * The names of the store's files in `.foreman/` (src/infra/db/storeFiles.ts works with them).
 * Kept apart so that finding a workspace (paths.ts) does not load the store.
 */
export const imageName = 'foreman.db';
export const journalName = 'foreman.journal';
export const tempImageName = 'foreman.db.tmp';
/**
 * The journal segment that takes over at a checkpoint (infra/db/checkpointer.ts). It belongs to
 * generation 0 with `foreman.journal`: from the moment writes go to it until the checkpoint renames
 * it to `foreman.journal`, the two together hold every record newer than `foreman.db`.
 */
export const nextJournalName = 'foreman.journal.next';
/** The choice of store (storeConfig.ts): with PostgreSQL, the only file that marks a workspace initialised. */
export const storeConfigName = 'store.json';

/**
 * True for the names only a store creates: any generation of the image or journal, the temp image
 * of an interrupted checkpoint, the next journal segment, and the acknowledged mark (ackFile.ts).
 */
export function isStoreFileName(name: string): boolean {
  return (
    /^foreman\.(db|journal)(\.(0|[1-9]\d{0,5}))?$/.test(name) ||
    name === tempImageName ||
    name === nextJournalName ||
    name === 'foreman.ack'
  );
}
