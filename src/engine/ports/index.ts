/**
 * The engine's view of the outside world. Implementations live in src/infra; tests may pass
 * strict fakes only where the real part is out of reach.
 */
export type {
  SqlValue,
  Row,
  Backend,
  NativeSql,
  Sql,
  FileSpace,
  Reader,
  Tx,
  WriteOptions,
  ChangedRows,
  OwnerIdentity,
  Store,
} from './store';
export { sqlText } from './store';
export { type Clock, systemClock } from '../../base/clock';
export type { BlobStore, ExportStream, ExportedLine, ExportSink, ArchiveSink } from './files';
export type { WorkRef, MergeStrategy, MergeSource, GitPort } from './git';
export type { AgentVerdict, AgentExit, AgentLaunch, LaunchedAgent, AgentTalk, AgentPort, WorktreeSetupPort } from './agents';
