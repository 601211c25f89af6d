/** The pure overlap computation (src/core/overlapIndex.ts): files shared, hunks met, pairs ignored, plans. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { OverlapIndex, rangesIntersect, rangesOfDiff, repoRelative } from '../../../src/core/overlapIndex';
import { taskOverlapSchema } from '../../../src/core/overlaps';

const subject = (taskId: string, workerId: string | null = `w-${taskId}`) => ({ taskId, workerId, title: `Title ${taskId}` });

test('two tasks touching the same file overlap on both sides; a third on another file overlaps nothing', () => {
  const index = new OverlapIndex();
  index.set(subject('a'), [{ path: 'src/x.ts' }, { path: 'README.md' }]);
  const changed = index.set(subject('b'), [{ path: 'src/x.ts' }]);
  index.set(subject('c'), [{ path: 'src/y.ts' }]);
  assert.deepEqual(changed.sort(), ['a', 'b'], 'the second edit names both tasks as changed');
  assert.deepEqual(index.overlapsOf('a'), [
    { taskId: 'b', workerId: 'w-b', title: 'Title b', files: ['src/x.ts'], hunks: false, plan: null },
  ]);
  assert.deepEqual(
    index.overlapsOf('b').map((overlap) => overlap.taskId),
    ['a'],
  );
  assert.deepEqual(index.overlapsOf('c'), []);
  for (const overlap of index.overlapsOf('a')) taskOverlapSchema.parse(overlap);
});

test('hunks: intersecting line ranges make the louder warning, disjoint ones do not', () => {
  const index = new OverlapIndex();
  index.set(subject('a'), [{ path: 'f', ranges: [{ start: 1, end: 3 }] }]);
  index.set(subject('b'), [{ path: 'f', ranges: [{ start: 3, end: 3 }] }]);
  index.set(subject('d'), [{ path: 'f', ranges: [{ start: 10, end: 12 }] }]);
  const ofA = new Map(index.overlapsOf('a').map((overlap) => [overlap.taskId, overlap.hunks]));
  assert.equal(ofA.get('b'), true);
  assert.equal(ofA.get('d'), false);
  // Only a name known (an edit event before the diff is read): the file overlaps, the hunks are not claimed.
  index.add(subject('e'), [{ path: 'f' }]);
  assert.equal(index.overlapsOf('e').find((overlap) => overlap.taskId === 'a')?.hunks, false);
});

test('add merges an edit into what is known; remove and ignore stop the reports; plans show on their side', () => {
  const index = new OverlapIndex();
  index.set(subject('a'), [{ path: 'f', ranges: [{ start: 1, end: 1 }] }]);
  assert.deepEqual(index.add(subject('b'), [{ path: 'f' }]).sort(), ['a', 'b']);
  assert.deepEqual(index.add(subject('b'), [{ path: 'f' }]), [], 'the same file again changes nothing');
  index.setPlan('b', 'a', 'rebase-when-merged');
  assert.equal(index.overlapsOf('b')[0]?.plan, 'rebase-when-merged');
  assert.equal(index.overlapsOf('a')[0]?.plan, null);
  index.ignore('a', 'b');
  assert.deepEqual(index.overlapsOf('a'), []);
  assert.deepEqual(index.overlapsOf('b'), []);
  assert.equal(index.overlapsOf('a', { includeIgnored: true }).length, 1);
  assert.deepEqual(index.remove('a'), ['b']);
  assert.deepEqual(index.overlapsOf('b', { includeIgnored: true }), []);
});

test('at most 50 shared files are named', () => {
  const index = new OverlapIndex();
  const files = Array.from({ length: 80 }, (_, i) => ({ path: `f${String(i).padStart(3, '0')}` }));
  index.set(subject('a'), files);
  index.set(subject('b'), files);
  assert.equal(index.overlapsOf('a')[0]?.files.length, 50);
  taskOverlapSchema.parse(index.overlapsOf('a')[0]);
});

test('rangesOfDiff reads -U0 hunk headers as base line ranges', () => {
  const diff = [
    'diff --git a/f.txt b/f.txt',
    '--- a/f.txt',
    '+++ b/f.txt',
    '@@ -1 +1 @@',
    '-old',
    '+new',
    '@@ -5,2 +5,0 @@',
    '@@ -9,0 +8,3 @@',
    'diff --git a/gone.txt b/gone.txt',
    '--- a/gone.txt',
    '+++ /dev/null',
    '@@ -1,4 +0,0 @@',
    'diff --git a/new.txt b/new.txt',
    '--- /dev/null',
    '+++ b/new.txt',
    '@@ -0,0 +1,2 @@',
  ].join('\n');
  const ranges = rangesOfDiff(diff);
  assert.deepEqual(ranges.get('f.txt'), [
    { start: 1, end: 1 },
    { start: 5, end: 6 },
    { start: 9, end: 9 },
  ]);
  assert.deepEqual(ranges.get('new.txt'), [{ start: 0, end: 0 }]);
  assert.equal(ranges.has('gone.txt'), false, 'a deleted file is named by --name-only, not here');
  assert.equal(rangesIntersect([{ start: 1, end: 2 }], [{ start: 3, end: 4 }]), false);
});

test('repoRelative keeps paths inside the worktree, repository-relative with /', () => {
  const worktree = join('/tmp', 'wt');
  assert.equal(repoRelative(worktree, join(worktree, 'src', 'a.ts')), 'src/a.ts');
  assert.equal(repoRelative(worktree, 'src/a.ts'), 'src/a.ts');
  assert.equal(repoRelative(worktree, '/etc/passwd'), undefined);
  assert.equal(repoRelative(worktree, '../other/a.ts'), undefined);
  assert.equal(repoRelative(worktree, '.git/config'), undefined);
  assert.equal(repoRelative(worktree, worktree), undefined);
});
