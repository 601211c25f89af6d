import type { CommandName } from './requests';

/**
 * Commands that only read: a read-only window may send them; every other command changes state.
 * Apart from the zod contract in requests.ts so that the thin CLI knows them without loading zod.
 */
export type ReadCommand = 'worker.list' | 'status' | 'transitions' | 'metrics' | 'poll' | 'archive.state';
export const readOnlyCommands: ReadonlySet<CommandName> = new Set<ReadCommand>([
  'worker.list',
  'status',
  'transitions',
  'metrics',
  'poll',
  'archive.state',
]);
