/**
 * Issue 28, "a missing segment passes the audit", through the real CLI: archive segments form a
 * chain (each seals its store and the previous segment's hash), so a segment removed, reordered or
 * from another store fails `validate-transitions --archive` naming it, `history` of a task whose
 * segment is missing says so, and a stray segment past the recorded chain is refused with what to
 * do, until it is moved aside, after which retention goes on after the recorded chain.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { type Run, foreman, makeRepo } from './harness';

const ok = async (repo: string, args: string[]): Promise<string> => {
  const run = await foreman(repo, args);
  assert.equal(run.code, 0, `foreman ${args.join(' ')}: ${run.stdout}${run.stderr}`);
  return run.stdout;
};

/** A workspace whose archive holds one segment per task in `ids`, archived in that order. */
async function archivedRepo(ids: readonly string[]): Promise<string> {
  const repo = makeRepo();
  await ok(repo, ['init']);
  for (const [index, id] of ids.entries()) {
    await ok(repo, ['task', 'add', `Task ${id}`, '--id', id]);
    await ok(repo, ['cancel', id]);
    assert.match(await ok(repo, ['archive', '--older-than', '0s']), new RegExp(`\\(segment ${index + 1}\\)`));
  }
  return repo;
}

const segment = (repo: string, batch: number): string => join(repo, '.foreman', 'archive', `${String(batch).padStart(6, '0')}.jsonl`);
const segmentFiles = (repo: string): string[] =>
  readdirSync(join(repo, '.foreman', 'archive'))
    .filter((name) => /^\d{6}\.jsonl$/.test(name))
    .sort();

function assertRefusedTrail(run: Run, ...problems: RegExp[]): void {
  assert.equal(run.code, 3, `${run.stdout}${run.stderr}`);
  assert.doesNotMatch(run.stdout, /all valid/);
  for (const problem of problems) assert.match(run.stderr, problem);
  assert.match(run.stderr, /foreman: archive \+ live log: \d+ problems with the archive's segments/);
}

test('a missing segment fails the audit naming it, and history says which segment held the task', { timeout: 240_000 }, async () => {
  const repo = await archivedRepo(['a', 'b', 'c']);
  const whole = await foreman(repo, ['validate-transitions', '--archive']);
  assert.equal(whole.code, 0, whole.stderr);
  assert.match(whole.stdout, /archive \+ live log: 6 transitions, all valid, and the archive's segments are whole/);

  // A middle segment removed.
  rmSync(segment(repo, 2));
  assertRefusedTrail(
    await foreman(repo, ['validate-transitions', '--archive']),
    /archive: segment 2 \(\S+000002\.jsonl\) is missing: the store recorded segments 1–3; restore it from a backup/,
  );
  const lost = await foreman(repo, ['history', 'b']);
  assert.equal(lost.code, 3, lost.stdout);
  assert.match(lost.stderr, /'b' was archived in segment 2, which is missing or unreadable \(\S+000002\.jsonl\); restore it from a backup/);
  assert.doesNotMatch(lost.stderr, /No worker or task/);
  // A task in a segment that is there is shown, with a word that the archive has a gap.
  const kept = await foreman(repo, ['history', 'c']);
  assert.equal(kept.code, 0, kept.stderr);
  assert.match(kept.stdout, /^task c "Task c": cancelled at \S+; archived in segment 3\n/);
  assert.match(kept.stderr, /history: segment 2 of the archive cannot be read/);

  // The last segment removed: the store's record still names it.
  rmSync(segment(repo, 3));
  assertRefusedTrail(
    await foreman(repo, ['validate-transitions', '--archive']),
    /segment 2 \(\S+\) is missing/,
    /segment 3 \(\S+\) is missing/,
  );
  // The first segment removed, as the issue's `rm 000003.jsonl` of a first segment.
  rmSync(segment(repo, 1));
  const none = await foreman(repo, ['validate-transitions', '--archive']);
  assertRefusedTrail(none, /segment 1 \(\S+\) is missing/);
  const unknown = await foreman(repo, ['history', 'never']);
  assert.equal(unknown.code, 4);
  assert.match(
    unknown.stderr,
    /No worker or task with id 'never', live or archived\. segments 1, 2 and 3 of the archive cannot be read, and may hold it/,
  );
});

test('reordered or foreign segments fail the audit naming them; nothing is deleted', { timeout: 240_000 }, async () => {
  const repo = await archivedRepo(['a', 'b', 'c']);
  const other = await archivedRepo(['x', 'y']);
  // Two segments swapped by name.
  const first = readFileSync(segment(repo, 1), 'utf8');
  const third = readFileSync(segment(repo, 3), 'utf8');
  writeFileSync(segment(repo, 1), third);
  writeFileSync(segment(repo, 3), first);
  assertRefusedTrail(
    await foreman(repo, ['validate-transitions', '--archive']),
    /archive: \S+000001\.jsonl holds segment 3, not 1 \(renamed or reordered\); its lines are left out/,
    /archive: \S+000003\.jsonl holds segment 1, not 3 \(renamed or reordered\)/,
  );
  writeFileSync(segment(repo, 1), first);
  writeFileSync(segment(repo, 3), third);
  assert.equal((await foreman(repo, ['validate-transitions', '--archive'])).code, 0, 'put back, the chain is whole again');

  // Another store's segment 2 in place of this store's.
  copyFileSync(segment(other, 2), segment(repo, 2));
  assertRefusedTrail(
    await foreman(repo, ['validate-transitions', '--archive']),
    /archive: \S+000002\.jsonl belongs to another store \([0-9a-f]{16}; this store is [0-9a-f]{16}\); its lines are left out/,
  );
  assert.deepEqual(segmentFiles(repo), ['000001.jsonl', '000002.jsonl', '000003.jsonl']);
});

test(
  'a stray segment past the recorded chain is refused with what to do, and once moved aside retention goes on after the chain',
  { timeout: 240_000 },
  async () => {
    const repo = await archivedRepo(['a', 'b']);
    const other = await archivedRepo(['x']);
    copyFileSync(segment(other, 1), segment(repo, 999));
    await ok(repo, ['task', 'add', 'Task c', '--id', 'c']);
    await ok(repo, ['cancel', 'c']);

    const refused = await foreman(repo, ['archive', '--older-than', '0s']);
    assert.equal(refused.code, 3, `${refused.stdout}${refused.stderr}`);
    assert.match(
      refused.stderr,
      /archive: \S+000999\.jsonl is numbered past segment 3, the next this store would write; this store's archive ends at segment 2, and a segment past it must continue it\. Nothing was archived\. Move that file aside \(for example `mv \S+000999\.jsonl \S+000999\.jsonl\.stray`.*\) and run again: retention then goes on after segment 2\./,
    );
    assert.deepEqual(segmentFiles(repo), ['000001.jsonl', '000002.jsonl', '000999.jsonl'], 'nothing deleted, nothing written');
    assertRefusedTrail(
      await foreman(repo, ['validate-transitions', '--archive']),
      /archive: \S+000999\.jsonl holds segment 1, not 999 \(renamed or reordered\), and is past segment 2, the last this store recorded: a stray, left out; move it aside/,
    );

    // Moved aside as told: the next pass archives c as segment 3, chained after segment 2.
    renameSync(segment(repo, 999), `${segment(repo, 999)}.stray`);
    assert.match(await ok(repo, ['archive', '--older-than', '0s']), /archived 1 task, .*\(segment 3\)/);
    assert.deepEqual(segmentFiles(repo), ['000001.jsonl', '000002.jsonl', '000003.jsonl']);
    const trail = await foreman(repo, ['validate-transitions', '--archive']);
    assert.equal(trail.code, 0, trail.stderr);
    assert.match(trail.stdout, /6 transitions, all valid, and the archive's segments are whole/);
  },
);

test('the archive folder replaced by a file, and a window too long, are told as such', { timeout: 120_000 }, async () => {
  const repo = makeRepo();
  await ok(repo, ['init']);
  await ok(repo, ['task', 'add', 'Task a', '--id', 'a']);
  await ok(repo, ['cancel', 'a']);
  const tooLong = await foreman(repo, ['archive', '--older-than', '99999999999999999999d']);
  assert.equal(tooLong.code, 2);
  assert.match(tooLong.stderr, /--older-than: '99999999999999999999d' reaches back past any date Foreman can hold; give at most 100000d/);
  assert.doesNotMatch(tooLong.stderr, /olderThanMs/);

  const folder = join(repo, '.foreman', 'archive');
  writeFileSync(folder, 'not a folder\n');
  for (const args of [
    ['archive', '--older-than', '0s'],
    ['validate-transitions', '--archive'],
    ['history', 'a'],
  ]) {
    const run = await foreman(repo, args);
    assert.equal(run.code, 3, `${args.join(' ')}: ${run.stdout}${run.stderr}`);
    assert.match(
      run.stderr,
      new RegExp(`${folder.replace(/[.]/g, '\\.')} is not a folder: Foreman keeps its archive segments there\\. Move that file aside`),
    );
    assert.doesNotMatch(run.stderr, /ENOTDIR|cannot read ''/);
  }
  assert.equal(readFileSync(folder, 'utf8'), 'not a folder\n', 'the file is left as it was');
  renameSync(folder, `${folder}.file`);
  mkdirSync(folder);
  assert.match(await ok(repo, ['archive', '--older-than', '0s']), /archived 1 task, .*\(segment 1\)/);
});
