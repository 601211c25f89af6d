/**
 * The tree menus offer an action exactly where the transition tables allow it: every `when`
 * clause of a worker or task row in package.json is checked against the rules `src/core/actions.ts`
 * derives from the worker and task machines, for every state and context marker a row can have.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { type TaskRule, type WorkerRule, taskRules, workerRules } from '../../../src/core/actions';
import { taskStatuses } from '../../../src/core/taskMachine';
import { workerStates } from '../../../src/core/workerMachine';
import { taskContextValue, workerContextValue } from '../../../src/extension/tree/workerContextValue';

interface MenuItem {
  readonly command: string;
  readonly when: string;
  readonly group?: string;
}

const manifest = JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8')) as {
  contributes: { menus: Record<string, MenuItem[]> };
};
const rowMenus = manifest.contributes.menus['view/item/context'] ?? [];

/** The `viewItem =~ /…/` patterns of a clause; the clauses here are `view == X && (p1 || p2 …)`. */
function patterns(when: string): RegExp[] {
  return [...when.matchAll(/viewItem =~ \/((?:[^/\\]|\\.)+)\//g)].map((match) => new RegExp(match[1] ?? ''));
}

function matches(item: MenuItem, contextValue: string): boolean {
  return patterns(item.when).some((pattern) => pattern.test(contextValue));
}

/** Worker rows: which rule each command follows (the inline Show Changes is for review decisions). */
const workerMenuRules: Readonly<Record<string, WorkerRule>> = {
  'foreman.assign': 'assign',
  'foreman.start': 'start',
  'foreman.approve': 'approve',
  'foreman.requestChanges': 'requestChanges',
  'foreman.merge': 'merge',
  'foreman.reset': 'reset',
  'foreman.retryTask': 'retry',
  'foreman.cancel': 'cancel',
  'foreman.sendMessage': 'talk',
  'foreman.interruptAgent': 'talk',
  'foreman.openSessionInTerminal': 'takeOver',
  'foreman.showChanges inline@3': 'awaitsDecision',
  'foreman.showChanges': 'holdsTask',
  'foreman.showLog': 'holdsTask',
  'foreman.openTerminal': 'any',
  'foreman.openWorktree': 'any',
};

/** Task rows: the rule, and whether a task blocked by its predecessor gets the action too. */
const taskMenuRules: Readonly<Record<string, { rule: TaskRule; blockedToo: boolean }>> = {
  'foreman.assign': { rule: 'assign', blockedToo: false },
  'foreman.retryTask': { rule: 'retry', blockedToo: false },
  'foreman.cancelTask': { rule: 'cancel', blockedToo: true },
};

describe('tree menus follow the transition tables', () => {
  // The overlap answers follow the row's `.overlap` marker, not a state: their own test is below.
  const isOverlap = (item: MenuItem) => item.command.startsWith('foreman.overlap.');
  const workerItems = rowMenus.filter(
    (item) => item.when.includes('view == foreman.workers') && !item.command.endsWith('Input') && !isOverlap(item),
  );
  const taskItems = rowMenus.filter(
    (item) => item.when.includes('view == foreman.queue') && item.command !== 'foreman.newTaskAfter' && !isOverlap(item),
  );

  it('has a rule for every worker and task row action', () => {
    assert.ok(workerItems.length >= 12 && taskItems.length >= 3, 'the menus were found');
    for (const item of workerItems) {
      assert.ok(workerMenuRules[`${item.command} ${item.group}`] ?? workerMenuRules[item.command], `no rule for ${item.command}`);
    }
    for (const item of taskItems) assert.ok(taskMenuRules[item.command], `no rule for ${item.command}`);
  });

  for (const waiting of [false, true]) {
    for (const readOnly of [false, true]) {
      it(`offers each worker action in exactly its states (waiting: ${waiting}, read-only window: ${readOnly})`, () => {
        for (const item of workerItems) {
          const rule = workerMenuRules[`${item.command} ${item.group}`] ?? workerMenuRules[item.command] ?? 'any';
          const offered = workerStates.filter((state) =>
            matches(item, workerContextValue({ state, needsInput: waiting ? { message: 'Allow?', at: 1 } : null }, readOnly)),
          );
          assert.deepEqual(offered, workerRules[rule], `${item.command} (${item.group}) follows '${rule}'`);
        }
      });
    }
  }

  it('a worker next to its failed manual task is marked only where Retry can rerun it, and offered Retry there too', () => {
    const failure = { taskId: 'broken', title: 'Broken', status: 'queued', reason: 'exit 1' };
    const retryItems = workerItems.filter((item) => item.command === 'foreman.retryTask');
    assert.ok(retryItems.length > 0);
    for (const readOnly of [false, true]) {
      const marked = workerStates.filter((state) =>
        workerContextValue({ state, needsInput: null, lastTaskFailed: failure }, readOnly).includes('.lastFailed'),
      );
      assert.deepEqual(marked, workerRules.retryLastTask, 'the marker follows retryLastTask');
      for (const item of retryItems) {
        const offered = workerStates.filter((state) =>
          matches(item, workerContextValue({ state, needsInput: null, lastTaskFailed: failure }, readOnly)),
        );
        const expected = workerStates.filter((state) => workerRules.retry.includes(state) || workerRules.retryLastTask.includes(state));
        assert.deepEqual(offered, expected, `${item.command} (${item.group}) on a marked row`);
      }
    }
    // Every other action of a marked row stays what its state offers.
    for (const item of workerItems.filter((candidate) => candidate.command !== 'foreman.retryTask')) {
      const rule = workerMenuRules[`${item.command} ${item.group}`] ?? workerMenuRules[item.command] ?? 'any';
      const offered = workerStates.filter((state) =>
        matches(item, workerContextValue({ state, needsInput: null, lastTaskFailed: failure }, false)),
      );
      assert.deepEqual(offered, workerRules[rule], `${item.command} (${item.group}) on a marked row`);
    }
  });

  it('offers each task action in exactly its statuses', () => {
    for (const item of taskItems) {
      const { rule, blockedToo } = taskMenuRules[item.command] ?? { rule: 'cancel', blockedToo: true };
      const offered = taskStatuses.filter((status) => matches(item, `task.${status}`));
      assert.deepEqual(offered, taskRules[rule], `${item.command} follows '${rule}'`);
      const offeredBlocked = taskStatuses.filter((status) => matches(item, `task.${status}.blocked`));
      assert.deepEqual(offeredBlocked, blockedToo ? taskRules[rule] : [], `${item.command} on a blocked task`);
    }
  });

  it('offers the overlap answers on exactly the rows marked .overlap, and a marked row keeps the rest of its menu', () => {
    const overlap = { taskId: 'other-task', workerId: 'w2', title: 'Other', files: ['a.ts'], hunks: false, plan: null };
    const overlapItems = rowMenus.filter(isOverlap);
    const commands = [...new Set(overlapItems.map((item) => item.command))].sort();
    assert.deepEqual(commands, ['foreman.overlap.ignore', 'foreman.overlap.rebaseWhenMerged', 'foreman.overlap.runAfter']);
    for (const view of ['foreman.workers', 'foreman.queue']) {
      assert.equal(overlapItems.filter((item) => item.when.includes(`view == ${view}`)).length, 3, `three answers in ${view}`);
    }
    for (const waiting of [false, true]) {
      for (const readOnly of [false, true]) {
        for (const state of workerStates) {
          const needsInput = waiting ? { message: 'Allow?', at: 1 } : null;
          const plain = workerContextValue({ state, needsInput }, readOnly);
          const marked = workerContextValue({ state, needsInput, overlaps: [overlap] }, readOnly);
          for (const item of overlapItems.filter((candidate) => candidate.when.includes('foreman.workers'))) {
            assert.ok(matches(item, marked), `${item.command} on ${marked}`);
            assert.ok(!matches(item, plain), `${item.command} not on ${plain}`);
          }
          for (const item of workerItems) assert.equal(matches(item, marked), matches(item, plain), `${item.command} on ${marked}`);
        }
      }
    }
    for (const status of taskStatuses) {
      for (const blockedBy of [null, 'before']) {
        const plain = taskContextValue({ status, blockedBy });
        const marked = taskContextValue({ status, blockedBy, overlaps: [overlap] });
        for (const item of overlapItems.filter((candidate) => candidate.when.includes('foreman.queue'))) {
          assert.ok(matches(item, marked) && !matches(item, plain), `${item.command} on ${marked} only`);
        }
        for (const item of taskItems) assert.equal(matches(item, marked), matches(item, plain), `${item.command} on ${marked}`);
      }
    }
  });
});
