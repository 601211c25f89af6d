import { z } from 'zod';
import { idPattern } from '../core/ids';
import { taskStatuses } from '../core/taskMachine';
import { workerStates } from '../core/workerMachine';

/** The fields and names the dashboard's messages (protocol.ts) are made of. */

const id = z.string().regex(idPattern);
/** A workspace folder's path, as the host's sessions know it. */
const folderRoot = z.string().min(1).max(4096);
const text = z.string().max(20_000);
const epochMs = z.number().int().nonnegative();
const count = z.number().int().nonnegative();
/** The common fields of the messages' schemas. */
export const fields = { id, folderRoot, text, epochMs, count };

export const workerStateSchema = z.enum(workerStates as [string, ...string[]]);
export const taskStatusSchema = z.enum(taskStatuses as [string, ...string[]]);
export const livenessSchema = z.enum(['OK', 'WARN', 'STALE', 'DEAD', 'IDLE']);

/** What a person can do from the dashboard; the host maps each to a Foreman command. */
export const ActionName = {
  assign: 'assign',
  start: 'start',
  approve: 'approve',
  requestChanges: 'requestChanges',
  merge: 'merge',
  cancel: 'cancel',
  reset: 'reset',
  retry: 'retry',
  cancelTask: 'cancelTask',
  showChanges: 'showChanges',
  showLog: 'showLog',
  openTerminal: 'openTerminal',
  addWorker: 'addWorker',
  newTask: 'newTask',
  newChain: 'newChain',
  /** Answers an agent that waits for a person (a permission request): let the tool run. */
  allow: 'allow',
  /** Answers an agent that waits for a person: refuse the tool call. */
  deny: 'deny',
  /** A message to a working agent, mid-run (the action's `note` holds it). */
  sendMessage: 'sendMessage',
  /** Ends a working agent's turn, keeping its session; it then waits for a message. */
  interrupt: 'interrupt',
  /** Overlaps (issue 33), on an `overlap` target: stop this task, keep its work, and run it after the other. */
  overlapRunAfter: 'overlapRunAfter',
  /** Rebase this task's worktree onto the base as soon as the other task merges. */
  overlapRebaseWhenMerged: 'overlapRebaseWhenMerged',
  /** Stop warning about this pair. */
  overlapIgnore: 'overlapIgnore',
} as const;
export type ActionName = (typeof ActionName)[keyof typeof ActionName];
export const actionNameSchema = z.enum(Object.values(ActionName) as [ActionName, ...ActionName[]]);
