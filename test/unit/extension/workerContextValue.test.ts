import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { workerStates } from '../../../src/core/workerMachine';
import { workerContextValue } from '../../../src/extension/tree/workerContextValue';

interface MenuEntry {
  readonly command: string;
  readonly when?: string;
  readonly group?: string;
}

const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
  contributes: { menus: Record<string, MenuEntry[]> };
};
const workerRowMenus = manifest.contributes.menus['view/item/context']!.filter((entry) => entry.when?.includes('view == foreman.workers'));

/** The worker-row entries whose `viewItem =~ /…/` patterns match a context value (they are joined by `||`). */
function commandsFor(contextValue: string): Set<string> {
  const shown = new Set<string>();
  for (const entry of workerRowMenus) {
    const patterns = [...(entry.when ?? '').matchAll(/viewItem =~ \/(.+?)\/(?=\)| \|\|)/g)].map((match) => new RegExp(match[1]!));
    if (patterns.some((pattern) => pattern.test(contextValue))) shown.add(entry.command);
  }
  return shown;
}

const waiting = { message: 'Bash: rm -rf build', at: 1 };

test('a worker row is marked by its state, then waiting, then read-only', () => {
  assert.equal(workerContextValue({ state: 'WORKING', needsInput: null }, false), 'worker.WORKING');
  assert.equal(workerContextValue({ state: 'WORKING', needsInput: waiting }, false), 'worker.WORKING.waiting');
  assert.equal(workerContextValue({ state: 'WORKING', needsInput: waiting }, true), 'worker.WORKING.waiting.readonly');
  assert.equal(workerContextValue({ state: 'IDLE', needsInput: null }, true), 'worker.IDLE.readonly');
});

test('the menus parse: every worker-row entry has at least one viewItem pattern', () => {
  assert.ok(workerRowMenus.length > 0);
  for (const entry of workerRowMenus) assert.ok(/viewItem =~ \//.test(entry.when ?? ''), `${entry.command}: ${entry.when}`);
  // The patterns are read right: a WORKING row offers what the menus say it does.
  assert.deepEqual([...commandsFor('worker.WORKING')].sort(), [
    'foreman.cancel',
    'foreman.interruptAgent',
    'foreman.openTerminal',
    'foreman.openWorktree',
    'foreman.sendMessage',
    'foreman.showChanges',
    'foreman.showLog',
  ]);
});

test('a waiting row keeps every action of its state and adds Allow and Deny, inline and in the context menu', () => {
  for (const state of workerStates) {
    for (const readOnly of [false, true]) {
      const plain = commandsFor(workerContextValue({ state, needsInput: null }, readOnly));
      const asking = commandsFor(workerContextValue({ state, needsInput: waiting }, readOnly));
      assert.ok(!plain.has('foreman.allowInput') && !plain.has('foreman.denyInput'), `${state}: answers on a row that does not wait`);
      assert.deepEqual([...asking].sort(), [...plain, 'foreman.allowInput', 'foreman.denyInput'].sort(), `${state} readOnly=${readOnly}`);
    }
  }
  for (const command of ['foreman.allowInput', 'foreman.denyInput']) {
    const groups = workerRowMenus.filter((entry) => entry.command === command).map((entry) => entry.group ?? '');
    assert.ok(groups.some((group) => group.startsWith('inline')) && groups.some((group) => !group.startsWith('inline')), command);
  }
});

test('Allow and Deny are in the command palette while Foreman is active', () => {
  const palette = manifest.contributes.menus['commandPalette']!;
  for (const command of ['foreman.allowInput', 'foreman.denyInput']) {
    assert.equal(palette.find((entry) => entry.command === command)?.when, 'foreman.active', command);
  }
});
