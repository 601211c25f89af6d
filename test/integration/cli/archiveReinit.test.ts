/**
 * Issue 28, "a re-init deletes the archive", through the real CLI: the store files are removed and
 * `foreman init` makes a new store in a folder that still holds the old store's archive and
 * exports. The new store moves them aside (never deletes them, never appends after their seq), its
 * own transitions reach a new `transitions.jsonl`, and `history` of an old task still answers,
 * saying whose it is. Before this issue: `history a` exited 4 and b never reached the export.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { foreman, foremanJson, makeRepo } from './harness';

const ok = async (repo: string, args: string[]): Promise<string> => {
  const run = await foreman(repo, args);
  assert.equal(run.code, 0, `foreman ${args.join(' ')}: ${run.stdout}${run.stderr}`);
  return run.stdout;
};

/** The `store` of each line of an export file. */
const storesOf = (file: string): unknown[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { store?: unknown }).store);

test(
  "a re-init with an archive moves the old store's archive and exports aside, and history still finds its tasks",
  { timeout: 240_000 },
  async () => {
    const repo = makeRepo();
    const dir = join(repo, '.foreman');
    const first = JSON.parse(await ok(repo, ['init', '--json'])) as { storeId: string };
    assert.match(first.storeId, /^[0-9a-f]{16}$/);
    await ok(repo, ['task', 'add', 'Task a', '--id', 'a']);
    await ok(repo, ['cancel', 'a']);
    assert.match(await ok(repo, ['archive', '--older-than', '0s']), /archived 1 task, .*\(segment 1\)/);
    const oldSegment = readFileSync(join(dir, 'archive', '000001.jsonl'), 'utf8');
    const oldExport = readFileSync(join(dir, 'transitions.jsonl'), 'utf8');
    assert.deepEqual(new Set(storesOf(join(dir, 'transitions.jsonl'))), new Set([first.storeId]), 'every export line names its store');

    // An idempotent init keeps the archive as this store's, after checking it.
    const again = await ok(repo, ['init']);
    assert.match(again, /kept the archive in \.foreman\/archive\/ \(1 segments\) as this store's/);
    assert.doesNotMatch(again, /moved aside/);

    // The store files go; the archive and the exports stay.
    for (const name of readdirSync(dir)) if (/^foreman\.(db|journal|ack)/.test(name)) rmSync(join(dir, name), { force: true });
    const reinit = await foreman(repo, ['init']);
    assert.equal(reinit.code, 0, reinit.stderr);
    const moved =
      /moved aside to (\.foreman\/moved-[^/]+)\/ what is not this store's \(([0-9a-f]{16})\): archive, transitions\.jsonl, bus\.jsonl/.exec(
        reinit.stdout,
      );
    assert.ok(moved, `init says what it moved aside and where: ${reinit.stdout}`);
    assert.match(reinit.stdout, /Nothing was deleted/);
    const [, movedDir = '', secondStore = ''] = moved;
    assert.notEqual(secondStore, first.storeId, 'the new store has an identity of its own');
    // Moved whole, byte for byte; nothing of them is left where the new store writes.
    assert.equal(readFileSync(join(repo, movedDir, 'archive', '000001.jsonl'), 'utf8'), oldSegment);
    assert.equal(readFileSync(join(repo, movedDir, 'transitions.jsonl'), 'utf8'), oldExport);
    const note = JSON.parse(readFileSync(join(repo, movedDir, 'moved.json'), 'utf8')) as { from: string; store: string; by: string };
    assert.deepEqual([note.from, note.store, note.by], [first.storeId, secondStore, 'foreman init']);
    assert.equal(existsSync(join(dir, 'archive')), false);
    assert.equal(existsSync(join(dir, 'transitions.jsonl')), false);

    await ok(repo, ['task', 'add', 'Task b', '--id', 'b']);
    await ok(repo, ['cancel', 'b']);
    assert.match(await ok(repo, ['archive', '--older-than', '0s']), /archived 1 task, .*\(segment 1\)/);

    // b's transitions reach the new store's export, and only the new store's lines are in it.
    const exported = readFileSync(join(dir, 'transitions.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { entity_id: string; store: string; seq: number });
    assert.deepEqual(
      exported.map((line) => [line.entity_id, line.store, line.seq]),
      [
        ['b', secondStore, 1],
        ['b', secondStore, 2],
      ],
    );
    // The moved-aside archive is untouched by the new store's first segment.
    assert.equal(readFileSync(join(repo, movedDir, 'archive', '000001.jsonl'), 'utf8'), oldSegment);

    // `history a` answers from the moved-aside folder, and says whose history it is.
    const history = await foreman(repo, ['history', 'a']);
    assert.equal(history.code, 0, history.stderr);
    assert.match(
      history.stdout,
      new RegExp(
        `^task a "Task a": cancelled at \\S+; archived in segment 1 of store ${first.storeId}, whose archive and exports foreman init moved aside to ${movedDir.replace(/\./g, '\\.')}/ on \\S+; this store \\(${secondStore}\\) does not hold it\\n`,
      ),
    );
    assert.match(history.stdout, /a {2}idle → queued {2}\(enqueue\)/);
    assert.match(history.stdout, /a {2}queued → cancelled {2}\(cancel\)/);
    const bHistory = await foremanJson<{ archivedTask: { segment: number } | null }>(repo, ['history', 'b']);
    assert.equal(bHistory.archivedTask?.segment, 1);

    // The new store's trail is whole, and its own.
    const trail = await foreman(repo, ['validate-transitions', '--archive', '.foreman/transitions.jsonl']);
    assert.equal(trail.code, 0, trail.stderr);
    assert.match(trail.stdout, /2 transitions, all valid, and the archive's segments are whole/);
  },
);

test(
  'an export file of another store is never appended to: export and archive refuse it, naming the file',
  { timeout: 120_000 },
  async () => {
    const repo = makeRepo();
    const file = join(repo, '.foreman', 'transitions.jsonl');
    await ok(repo, ['init']);
    await ok(repo, ['task', 'add', 'Task c', '--id', 'c']);
    // Another store's export, put here after init (copied in from elsewhere).
    const foreign = `${JSON.stringify({ seq: 40, entity_id: 'x', store: '00000000000000aa' })}\n`;
    writeFileSync(file, foreign);
    for (const args of [['export'], ['archive', '--older-than', '0s']]) {
      const refused = await foreman(repo, args);
      assert.equal(refused.code, 3, `${args.join(' ')}: ${refused.stdout}${refused.stderr}`);
      assert.match(refused.stderr, /transitions\.jsonl ends with a line of another store \(00000000000000aa; this store is [0-9a-f]{16}\)/);
      assert.match(
        refused.stderr,
        /Move the file aside \(for example `mv \S+transitions\.jsonl \S+transitions\.jsonl\.old`\) and run again/,
      );
    }
    assert.equal(readFileSync(file, 'utf8'), foreign, 'the foreign file is left as it was');
    rmSync(file);
    assert.match(await ok(repo, ['export']), /exported 1 transitions/);
  },
);
