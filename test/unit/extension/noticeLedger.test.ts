// The workspace's record of raised notifications (src/extension/noticeLedger.ts), on real files:
// two ledgers on one folder stand for two windows; the first to claim a notice raises it.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { NoticeLedger } from '../../../src/extension/noticeLedger';

const foremanDir = mkdtempSync(join(tmpdir(), 'foreman-notices-'));
after(() => rmSync(foremanDir, { recursive: true, force: true }));

test('a notice is claimed once per workspace: the second window is refused, another notice is not', () => {
  const firstWindow = new NoticeLedger(foremanDir);
  const secondWindow = new NoticeLedger(foremanDir);
  assert.equal(firstWindow.claim('reviewReady:t-1:1:IN_REVIEW'), true);
  assert.equal(secondWindow.claim('reviewReady:t-1:1:IN_REVIEW'), false);
  assert.equal(firstWindow.claim('reviewReady:t-1:1:IN_REVIEW'), false);
  assert.equal(secondWindow.claim('reviewReady:t-1:2:IN_REVIEW'), true, 'a new attempt is a new notice');
});

test('claims older than a week are pruned when a window opens the folder', () => {
  const ledger = new NoticeLedger(foremanDir);
  assert.equal(ledger.claim('stale:w1:1:STALE'), true);
  const dir = join(foremanDir, 'notices');
  const weekAgo = new Date(Date.now() - 8 * 24 * 60 * 60 * 1000);
  for (const name of readdirSync(dir)) utimesSync(join(dir, name), weekAgo, weekAgo);
  const reopened = new NoticeLedger(foremanDir);
  assert.deepEqual(readdirSync(dir), []);
  assert.equal(reopened.claim('stale:w1:1:STALE'), true);
});

test('a folder whose claims cannot be written (a file where the folder goes) still raises its notices', () => {
  const blocked = mkdtempSync(join(tmpdir(), 'foreman-blocked-'));
  try {
    writeFileSync(join(blocked, 'notices'), '');
    assert.equal(new NoticeLedger(blocked).claim('failed:t-9:1:failed'), true);
  } finally {
    rmSync(blocked, { recursive: true, force: true });
  }
});
