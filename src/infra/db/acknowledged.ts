/**
 * The refusals of a store that holds less than it acknowledged (issue 10): `foreman.ack` (see
 * ackFile.ts) against what the image plus the journals reach. Each message names the files, the
 * missing seqs, and both ways on: restore from a backup, or accept the loss explicitly.
 */
import type { AckRead } from './ackFile';
import { ackName } from './ackFile';
import { StoreError } from './storeError';
import { imageName, journalName } from './storeFiles';
import type { StoreFiles } from './storeFiles';

/** Older generations a person could look at, for the messages. */
function backupNote(files: StoreFiles): string {
  const names = [...files.images, ...files.journals].filter((file) => file.generation > 0).map((file) => file.name);
  return names.length
    ? `the older generations kept here (${names.sort().join(', ')}) hold only what earlier checkpoints had`
    : 'no older generation is kept here';
}

/**
 * Refuses a load that reaches less than `foreman.ack` says was acknowledged (ackFile.ts explains
 * why the mark is never higher than what a healthy store holds). `from` names what was loaded.
 */
export function assertAcknowledged(
  dir: string,
  files: StoreFiles,
  ack: AckRead,
  ackRequired: boolean,
  reached: number,
  from: string,
  describeJournal: () => string,
): void {
  const ackPath = `${dir}/${ackName}`;
  const accept = (what: string): string => `${what}, run: echo ${reached} > ${ackPath}`;
  if (ack.kind === 'unreadable') {
    throw new StoreError(
      'damaged',
      `${ackName} in ${dir} does not hold a seq (it reads "${ack.text}"), so Foreman cannot tell whether the journal holds ` +
        `every acknowledged write; ${from} plus the journals reach seq ${reached}. Nothing was changed. ` +
        accept('If you know that no write after that was acknowledged'),
    );
  }
  if (ack.kind === 'missing') {
    if (!ackRequired) return;
    throw new StoreError(
      'damaged',
      `${ackName} is missing from ${dir}, so Foreman cannot tell whether the journal holds every acknowledged write; ` +
        `${from} plus the journals reach seq ${reached} (${describeJournal()}). Nothing was changed. ` +
        `Restore ${ackName} from a backup of the folder, or, ${accept('if you know that no write after that was acknowledged')}`,
    );
  }
  if (ack.seq <= reached) return;
  throw new StoreError(
    'damaged',
    `The Foreman database in ${dir} has lost acknowledged writes: ${ackName} records that every write up to seq ${ack.seq} ` +
      `was acknowledged, but ${from} plus the journals reach only seq ${reached} (${describeJournal()}). ` +
      'Nothing was changed: Foreman does not open a store that holds less than it acknowledged. ' +
      `To restore, put back ${journalName} (and ${imageName}) from a backup of ${dir} taken after seq ${ack.seq}; ` +
      `${backupNote(files)}. ` +
      accept(`To go on without seqs ${reached + 1} to ${ack.seq} instead`),
  );
}

/** A folder with no image and no journal is new, unless `foreman.ack` says writes were acknowledged there. */
export function assertNothingAcknowledged(dir: string, ack: AckRead): void {
  if (ack.kind === 'missing' || (ack.kind === 'seq' && ack.seq === 0)) return;
  const said = ack.kind === 'seq' ? `records that every write up to seq ${ack.seq} was acknowledged` : `reads "${ack.text}"`;
  throw new StoreError(
    'damaged',
    `The Foreman database in ${dir} is gone: there is no ${imageName} and no ${journalName} (nor older generations), but ` +
      `${ackName} ${said}. Nothing was changed. Restore the files from a backup of ${dir}; to start an empty ` +
      `database instead, remove ${dir}/${ackName}.`,
  );
}
