/**
 * The crash loop's sibling for faults the process lives through (issue 28, item 6): an EIO from
 * one write(2) or one fsync(2), or from every fsync from some point on (a failing disk), at each
 * such step of a workload that writes one at a time and in groups (group commit), checkpoints and
 * closes. The process goes on after the fault, as a real owner would, and every answer it gave is
 * kept. Then the disk is healthy again, a fresh store opens what is there, and:
 *   - every write answered "done" is present (acknowledged lost: 0);
 *   - every write answered "not done" (`notSaved`, or refused by a `broken` store) is absent, and
 *     every one answered "outcome unknown" may be either: an answer that lied is one that said
 *     "not done" for something present (the bug this round fixed: a failed group fsync said so);
 *   - nothing that was never attempted is present;
 *   - no answer was an untyped error that tells a person nothing.
 *
 * Injected in-process by wrapping node:fs, like crashLoop.test.ts: the same EIO from the kernel,
 * through strace, is in test/integration/cli/fsyncFailure.test.ts.
 */
import assert from 'node:assert/strict';
import nodeFs from 'node:fs';
import { it } from 'node:test';
import type { TestContext } from 'node:test';
import { SqlJsStore, StoreError } from '../../../src/infra/db/index';
import { insertTask, tempForemanDir } from './helpers';

type Faulted = 'writeSync' | 'fsyncSync' | 'fsync';
type Mode = 'once' | 'fromThenOn';
type Answer = 'done' | 'notDone' | 'unknown' | 'untyped';

interface FaultSwitch {
  readonly steps: () => number;
  readonly fired: () => boolean;
}

/**
 * Counts writes and fsyncs; at step `faultAt` (never when undefined) that call fails with EIO. The
 * group's fsync runs on the thread pool (`fs.fsync`, issue 34): its failure reaches the callback.
 */
function installFaults(t: TestContext, faultAt: number | undefined, mode: Mode): FaultSwitch {
  let step = 0;
  let fired = false;
  const fs = nodeFs as unknown as Record<string, (...args: unknown[]) => unknown>;
  const eio = (name: Faulted): Error =>
    Object.assign(new Error(`EIO: i/o error, ${name === 'writeSync' ? 'write' : 'fsync'}`), { code: 'EIO', errno: -5 });
  for (const name of ['writeSync', 'fsyncSync', 'fsync'] as const satisfies readonly Faulted[]) {
    const original = fs[name]!;
    t.mock.method(
      nodeFs,
      name as never,
      ((...args: unknown[]) => {
        step++;
        const failing = step === faultAt || (fired && mode === 'fromThenOn' && name !== 'writeSync');
        if (!failing) return original.apply(nodeFs, args);
        fired = true;
        if (name !== 'fsync') throw eio(name);
        const callback = args.at(-1) as (error: Error) => void;
        setImmediate(() => callback(eio(name)));
        return undefined;
      }) as never,
    );
  }
  return { steps: () => step, fired: () => fired };
}

/** Every write attempted, with the answer its caller got. */
class Ledger {
  readonly answers = new Map<string, Answer>();
  readonly codes = new Map<string, string>();

  answer(ids: readonly string[], error: unknown): void {
    const answer = answerOf(error);
    for (const id of ids) {
      this.answers.set(id, answer);
      if (error !== undefined)
        this.codes.set(id, error instanceof StoreError ? error.code : error instanceof Error ? error.message : JSON.stringify(error));
    }
  }

  with(answer: Answer): string[] {
    return [...this.answers].filter(([, given]) => given === answer).map(([id]) => id);
  }
}

function answerOf(error: unknown): Answer {
  if (error === undefined) return 'done';
  if (!(error instanceof StoreError)) return 'untyped';
  if (error.code === 'notSaved' || error.code === 'broken') return 'notDone';
  if (error.code === 'outcomeUnknown') return 'unknown';
  return 'untyped';
}

async function attempt(ledger: Ledger, ids: readonly string[], work: () => unknown): Promise<void> {
  try {
    await work();
    ledger.answer(ids, undefined);
  } catch (error) {
    ledger.answer(ids, error);
  }
}

/**
 * An owner writing one at a time and in groups through automatic checkpoints (a tiny threshold),
 * then a one-shot call that checkpoints at close. A store that cannot open ends the workload.
 */
async function workload(dir: string, ledger: Ledger): Promise<void> {
  const owner = await SqlJsStore.open(dir, { checkpointBytes: 1500 });
  for (let round = 0; round < 4; round++) {
    await attempt(ledger, [`one-${round}`], () => owner.write(insertTask(`one-${round}`)));
    const group = [`group-${round}-a`, `group-${round}-b`];
    // A group's writes are answered once its fsync is done (the endpoint waits for whenSaved).
    const written: string[] = [];
    owner.savingLater(() => {
      for (const id of group) {
        try {
          owner.write(insertTask(id));
          written.push(id);
        } catch (error) {
          ledger.answer([id], error);
        }
      }
    });
    await attempt(ledger, written, () => owner.whenSaved());
  }
  try {
    owner.close();
  } catch {
    // The close's own sync failed: the store says so in its log; the writes were answered above.
  }
  const oneShot = await SqlJsStore.open(dir, { closeCheckpointBytes: 1 });
  await attempt(ledger, ['last'], () => oneShot.write(insertTask('last')));
  try {
    oneShot.close();
  } catch {
    // As above.
  }
}

it('a failed write or fsync (once, or every fsync from then on) never loses an acknowledged write nor lies about one', async (t) => {
  const dry = installFaults(t, undefined, 'once');
  await workload(tempForemanDir(), new Ledger());
  const totalSteps = dry.steps();
  t.mock.restoreAll();
  assert.ok(totalSteps > 40, `the workload writes or fsyncs in ${totalSteps} steps`);

  const tally = { runs: 0, acknowledged: 0, lost: 0, lied: 0, unknown: 0, notDone: 0, untyped: 0 };
  for (const mode of ['once', 'fromThenOn'] as const) {
    for (let faultAt = 1; faultAt <= totalSteps; faultAt++) {
      const dir = tempForemanDir();
      const ledger = new Ledger();
      const faults = installFaults(t, faultAt, mode);
      const what = `${mode} at step ${faultAt} of ${totalSteps}`;
      try {
        await workload(dir, ledger);
      } catch (error) {
        // Only an open may throw out of the workload, and only as a typed store error.
        assert.ok(error instanceof StoreError, `${what}: the workload failed with ${String(error)}`);
      } finally {
        t.mock.restoreAll();
      }
      if (!faults.fired()) continue;
      tally.runs++;

      // The disk is healthy again; the next process opens what is there.
      const store = await SqlJsStore.open(dir).catch((error: unknown) => {
        throw new Error(`${what}: the store did not open after the fault: ${String(error)}`);
      });
      const present = new Set(store.read((reader) => reader.all<{ id: string }>('SELECT id FROM tasks').map((row) => row.id)));
      store.close();

      const lost = ledger.with('done').filter((id) => !present.has(id));
      const lied = ledger.with('notDone').filter((id) => present.has(id));
      const phantom = [...present].filter((id) => !ledger.answers.has(id));
      const untyped = ledger.with('untyped').map((id) => `${id}: ${ledger.codes.get(id)}`);
      tally.lost += lost.length;
      tally.lied += lied.length;
      assert.deepEqual(lost, [], `${what}: acknowledged writes lost`);
      assert.deepEqual(lied, [], `${what}: answered "not done" yet present (${lied.map((id) => ledger.codes.get(id)).join(', ')})`);
      assert.deepEqual(phantom, [], `${what}: rows that were never attempted`);
      assert.deepEqual(untyped, [], `${what}: answers that tell a person nothing`);
      tally.acknowledged += ledger.with('done').length;
      tally.unknown += ledger.with('unknown').length;
      tally.notDone += ledger.with('notDone').length;
    }
  }
  assert.ok(tally.unknown > 0, 'some faults hit an fsync whose writes were answered "outcome unknown"');
  assert.ok(tally.notDone > 0, 'some faults hit a write that was refused cleanly');
  t.diagnostic(
    `fault points tried: ${tally.runs} (${totalSteps} write/fsync steps, once and from then on); ` +
      `acknowledged writes checked: ${tally.acknowledged}, lost: ${tally.lost}; answers that lied: ${tally.lied}; ` +
      `answered unknown: ${tally.unknown}; answered not done: ${tally.notDone}`,
  );
});
