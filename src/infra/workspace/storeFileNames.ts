/**
 * The names of the store's files in `.foreman/` (src/infra/db/storeFiles.ts works with them).
 * Kept apart so that finding a workspace (paths.ts) does not load the store.
 */
export const imageName = 'foreman.db';
export const journalName = 'foreman.journal';
export const tempImageName = 'foreman.db.tmp';

/**
 * True for the names only a store creates: any generation of the image or journal, the temp image
 * of an interrupted checkpoint, and the acknowledged mark (ackFile.ts).
 */
export function isStoreFileName(name: string): boolean {
  return /^foreman\.(db|journal)(\.(0|[1-9]\d{0,5}))?$/.test(name) || name === tempImageName || name === 'foreman.ack';
}
