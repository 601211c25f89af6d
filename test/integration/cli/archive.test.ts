/**
 * Retention through the real CLI (issue 13): `foreman archive` moves finished work to
 * .foreman/archive/, `status` no longer lists it, `metrics` still counts it, and
 * `validate-transitions --archive` checks the whole trail (the archive and the live log).
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Metrics } from '../../../src/engine/metrics';
import { FileArchiveSink } from '../../../src/infra/fs/archiveSegments';
import type { StatusSnapshot } from '../../../src/engine/statusView';
import { foreman, foremanJson, makeRepo } from './harness';

test('archive: finished work leaves the live state, the metrics and the audit trail stay whole', { timeout: 120_000 }, async () => {
  const repo = makeRepo();
  assert.equal((await foreman(repo, ['init'])).code, 0);
  for (const id of ['one', 'two', 'three']) assert.equal((await foreman(repo, ['task', 'add', `Task ${id}`, '--id', id])).code, 0);
  for (const id of ['one', 'two']) assert.equal((await foreman(repo, ['cancel', id])).code, 0);

  // The default window is a week: nothing is due yet.
  const early = await foreman(repo, ['archive']);
  assert.equal(early.code, 0, early.stderr);
  assert.match(early.stdout, /nothing is due for the archive/);

  const archived = await foreman(repo, ['archive', '--older-than', '0s']);
  assert.equal(archived.code, 0, archived.stderr);
  assert.match(archived.stdout, /archived 2 tasks, \d+ transitions and \d+ messages to \.foreman\/archive\/ \(segment 1\)/);
  assert.match(archived.stdout, /live: 1 task, /);
  assert.deepEqual(readdirSync(join(repo, '.foreman', 'archive')).sort(), ['000001.jsonl', 'index.jsonl']);

  const status = await foremanJson<StatusSnapshot>(repo, ['status', '--all']);
  assert.deepEqual(
    status.tasks.map((task) => task.id),
    ['three'],
  );
  // What `status` and `transitions` no longer find, `history` reads from the archive, and they say so.
  const listed = await foreman(repo, ['status']);
  assert.match(listed.stdout, /2 finished tasks are in the archive, not listed here: foreman history <id> shows one/);
  const gone = await foreman(repo, ['transitions', '--entity', 'one']);
  assert.equal(gone.code, 4);
  assert.match(gone.stderr, /`foreman history one` reads the archive too/);
  const history = await foreman(repo, ['history', 'one']);
  assert.equal(history.code, 0, history.stderr);
  assert.match(
    history.stdout,
    /^task one "Task one": cancelled at \S+; archived in segment 1\n\d+ {2}\S+ {2}one {2}idle → queued {2}\(enqueue\)/,
  );
  assert.match(history.stdout, /one {2}queued → cancelled {2}\(cancel\)/);
  const liveOnly = await foremanJson<{ archivedTask: unknown; transitions: Array<{ entity_id: string }> }>(repo, ['history', 'three']);
  assert.equal(liveOnly.archivedTask, null);
  assert.deepEqual(
    liveOnly.transitions.map((event) => event.entity_id),
    ['three'],
  );
  const unknown = await foreman(repo, ['history', 'four']);
  assert.equal(unknown.code, 4);
  assert.match(unknown.stderr, /No worker or task with id 'four', live or archived/);

  const metrics = await foremanJson<Metrics>(repo, ['metrics']);
  assert.deepEqual(metrics.archived, { cancelled: 2 });
  assert.equal(metrics.transitions.find((pair) => pair.entity === 'task' && pair.to === 'cancelled')?.count, 2);

  const trail = await foreman(repo, ['validate-transitions', '--archive']);
  assert.equal(trail.code, 0, trail.stderr);
  assert.match(trail.stdout, /archive \+ live log: \d+ transitions, all valid/);
  // The export file holds the same transitions: given beside the archive, each counts once.
  const withExport = await foreman(repo, ['validate-transitions', '.foreman/transitions.jsonl', '--archive']);
  assert.equal(withExport.code, 0, withExport.stderr);

  // A segment a crash left unapplied holds rows that are still live: each counts once when both
  // copies agree; a copy that differs is named.
  const count = (text: string) => Number(/(\d+) transitions, all valid/.exec(text)?.[1]);
  const live = await foremanJson<Array<Record<string, unknown>>>(repo, ['transitions', '--limit', '1000']);
  const sink = new FileArchiveSink(join(repo, '.foreman'));
  const first = sink.read(1);
  assert.ok(first.state === 'sealed' && first.end.store, 'segment 1 is sealed and names its store');
  const store = first.end.store;
  const crashLeft = (lines: string[]) => ({ batch: 2, lines, store, previous: first.hash, firstSeq: Number(live[0]!['seq']), tasks: [] });
  sink.write(crashLeft([JSON.stringify({ kind: 'transition', ...live[0] })]));
  const twice = await foreman(repo, ['validate-transitions', '--archive']);
  assert.equal(twice.code, 0, twice.stderr);
  assert.equal(count(twice.stdout), count(trail.stdout));
  sink.discard(2);
  sink.write(crashLeft([JSON.stringify({ kind: 'transition', ...live[0], actor: 'someone-else' })]));
  const differs = await foreman(repo, ['validate-transitions', '--archive']);
  assert.equal(differs.code, 2);
  assert.match(differs.stderr, new RegExp(`seq ${String(live[0]!['seq'])} differs between two sources`));
  sink.discard(2);

  const bad = await foreman(repo, ['archive', '--older-than', 'a week']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--older-than: 'a week' is not a duration; give one such as 90s, 30m, 2h or 7d/);
  const nothing = await foreman(repo, ['validate-transitions']);
  assert.equal(nothing.code, 2);
  assert.match(nothing.stderr, /give a transitions file, or --archive/);
});
