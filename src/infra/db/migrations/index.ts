/**
 * Every schema change, oldest first (STYLE rule 12). A version is never edited once released;
 * a change is a new entry. Migrations are not journalled: the store checkpoints after applying any.
 */
import { migration0001 } from './0001_initial';
import { migration0002 } from './0002_picker_indexes';
import { migration0003 } from './0003_agent_signals';
import { migration0004 } from './0004_finished_index';
import { migration0005 } from './0005_archive';
import { migration0006 } from './0006_owners';
import { migration0007 } from './0007_unscheduled_picker';
import { migration0008 } from './0008_cache_tokens';
import { migration0009 } from './0009_paused_workers';
import { migration0010 } from './0010_session_confinement';
import { migration0011 } from './0011_plan_first';
import { migration0012 } from './0012_pull_requests';
import { migration0013 } from './0013_overlaps';

export interface Migration {
  /** Consecutive from 1; stored in `meta.schema_version` once applied. */
  readonly version: number;
  readonly sql: string;
}

export const migrations: readonly Migration[] = [
  { version: 1, sql: migration0001 },
  { version: 2, sql: migration0002 },
  { version: 3, sql: migration0003 },
  { version: 4, sql: migration0004 },
  { version: 5, sql: migration0005 },
  { version: 6, sql: migration0006 },
  { version: 7, sql: migration0007 },
  { version: 8, sql: migration0008 },
  { version: 9, sql: migration0009 },
  { version: 10, sql: migration0010 },
  { version: 11, sql: migration0011 },
  { version: 12, sql: migration0012 },
  { version: 13, sql: migration0013 },
];
