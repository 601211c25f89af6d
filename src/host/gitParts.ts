/**
 * The git reads and writes the CLI's `wip` command does without an engine. A module of its own, so
 * the command's spec (which the thin CLI bundles) can load it on demand without pulling in the rest
 * of src/host: src/host stays the CLI's only way into src/infra, dynamic imports included.
 */
export { listWip, restoreWip } from '../infra/git/snapshots';
export { commonDirectory } from '../infra/git/gitClient';
