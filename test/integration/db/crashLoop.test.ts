/**
 * A randomized crash loop over the store's owner and one-shot paths (issue 10): a few hundred
 * runs of one workload, each killed at a random file-system step, each followed by a recovery
 * that must hold every acknowledged write and nothing that was never attempted.
 *
 * The kill happens in-process, which is what keeps hundreds of them fast: every call that changes
 * the disk (write, fsync, rename, remove, truncate, create, link, chmod) goes through a switch that
 * counts steps; at the chosen step the process "dies": that call does not happen (a large write
 * happens in part, a torn append) and every later change fails too, so no clean-up code can touch
 * the files, exactly as after SIGKILL. What is on disk then is opened by a fresh store. Process
 * kills proper (SIGKILL of a real writer, of `foreman serve` and of one-shot CLI calls) are in
 * crash.test.ts, checkpointKill.test.ts and the CLI's storeRecovery.test.ts.
 */
import assert from 'node:assert/strict';
import nodeFs from 'node:fs';
import { it } from 'node:test';
import type { TestContext } from 'node:test';
import { SqlJsStore } from '../../../src/infra/db/index';
import { insertTask, tempForemanDir } from './helpers';

const runs = 300;

/** Thrown by the kill switch; any error once the switch has fired means "the process died". */
class Killed extends Error {}

const mutating = [
  'writeSync',
  'fsyncSync',
  'renameSync',
  'rmSync',
  'ftruncateSync',
  'writeFileSync',
  'mkdirSync',
  'linkSync',
  'fchmodSync',
  'chmodSync',
] as const;

interface KillSwitch {
  readonly steps: () => number;
  readonly fired: () => boolean;
}

/** Counts disk-changing calls and dies at `killAt` (never when undefined: a dry run to count steps). */
function installKillSwitch(t: TestContext, killAt: number | undefined, random: () => number): KillSwitch {
  let step = 0;
  let dead = false;
  const fs = nodeFs as unknown as Record<string, (...args: unknown[]) => unknown>;
  const wrap = (name: string, isChange: (args: unknown[]) => boolean): void => {
    const original = fs[name]!;
    t.mock.method(
      nodeFs,
      name as never,
      ((...args: unknown[]) => {
        if (!isChange(args)) return original.apply(nodeFs, args);
        if (dead) throw new Killed(`${name} after the kill`);
        step++;
        if (step !== killAt) return original.apply(nodeFs, args);
        dead = true;
        const buffer = args[1];
        // A large write (a journal record, an image) may be cut anywhere: a torn append.
        if (name === 'writeSync' && buffer instanceof Uint8Array && buffer.length > 64 && random() < 0.5) {
          const offset = typeof args[2] === 'number' ? args[2] : 0;
          const length = typeof args[3] === 'number' ? args[3] : buffer.length - offset;
          original.call(nodeFs, args[0], buffer, offset, Math.floor(random() * length), args[4]);
        }
        throw new Killed(`killed at step ${step} (${name})`);
      }) as never,
    );
  };
  for (const name of mutating) wrap(name, () => true);
  // Opening for reading changes nothing; opening to write may create a file.
  wrap('openSync', (args) => typeof args[1] === 'string' && args[1] !== 'r');
  return { steps: () => step, fired: () => dead };
}

/** What a run wrote: ids attempted in order, and those whose write returned (acknowledged). */
interface Ledger {
  readonly attempted: string[];
  readonly acknowledged: string[];
}

function write(store: SqlJsStore, ledger: Ledger, id: string): void {
  ledger.attempted.push(id);
  store.write(insertTask(id));
  ledger.acknowledged.push(id);
}

/**
 * The workload: an owner that writes through automatic checkpoints (a tiny threshold) and closes,
 * then one-shot calls that preload, catch up, write and close with a long-journal threshold, the
 * last one checkpointing at close, then an owner again that reopens what they left.
 */
async function workload(dir: string, ledger: Ledger): Promise<void> {
  const owner = await SqlJsStore.open(dir, { checkpointBytes: 1500 });
  for (let index = 0; index < 8; index++) write(owner, ledger, `owner-${index}`);
  owner.write(insertTask('heartbeat-like'), { durable: false });
  ledger.attempted.push('heartbeat-like');
  owner.close();
  // Each call preloads while the previous one still holds the lock and writes, as racing calls do,
  // so it has to catch up on the previous call's records under the lock.
  let preloaded = await SqlJsStore.preload(dir);
  for (let call = 0; call < 4; call++) {
    const next = call < 3 ? await SqlJsStore.preload(dir) : undefined;
    const oneShot = await SqlJsStore.open(dir, {
      closeCheckpointBytes: call === 3 ? 1 : 1024 * 1024,
      ...(preloaded ? { preloaded } : {}),
    });
    write(oneShot, ledger, `call-${call}-a`);
    write(oneShot, ledger, `call-${call}-b`);
    oneShot.close();
    preloaded = next;
  }
  const again = await SqlJsStore.open(dir);
  write(again, ledger, 'last');
  again.close();
}

/** Same seeded sequence every run of the suite, so a failure names a run that can be replayed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x100000000;
  };
}

it(`loses no acknowledged write across ${runs} kills at random file-system steps (owner and one-shot paths)`, async (t) => {
  const dry = installKillSwitch(t, undefined, Math.random);
  const dryLedger: Ledger = { attempted: [], acknowledged: [] };
  await workload(tempForemanDir(), dryLedger);
  const totalSteps = dry.steps();
  t.mock.restoreAll();
  assert.ok(totalSteps > 100, `the workload changes the disk in ${totalSteps} steps`);

  const random = seeded(20261123);
  const stepsHit = new Set<number>();
  let acknowledgedChecked = 0;
  let lost = 0;
  for (let run = 0; run < runs; run++) {
    const killAt = 1 + Math.floor(random() * totalSteps);
    const dir = tempForemanDir();
    const ledger: Ledger = { attempted: [], acknowledged: [] };
    const killSwitch = installKillSwitch(t, killAt, random);
    try {
      await workload(dir, ledger);
    } catch (error) {
      if (!killSwitch.fired()) throw error;
    } finally {
      t.mock.restoreAll();
    }
    assert.ok(killSwitch.fired(), `run ${run}: the kill at step ${killAt} of ${totalSteps} did not happen`);
    stepsHit.add(killAt);

    // Recovery: a fresh open of whatever the kill left, as the next process would do.
    let present: string[] = [];
    if (nodeFs.existsSync(dir)) {
      const store = await SqlJsStore.open(dir).catch((error: unknown) => {
        throw new Error(`run ${run} (kill at step ${killAt}): the store did not open after the kill: ${String(error)}`);
      });
      present = store.read((reader) => reader.all<{ id: string }>('SELECT id FROM tasks ORDER BY rowid').map((row) => row.id));
      store.close();
    }
    const missing = ledger.acknowledged.filter((id) => !present.includes(id));
    lost += missing.length;
    acknowledgedChecked += ledger.acknowledged.length;
    assert.deepEqual(missing, [], `run ${run} (kill at step ${killAt}): acknowledged writes lost`);
    const phantom = present.filter((id) => !ledger.attempted.includes(id));
    assert.deepEqual(phantom, [], `run ${run}: rows that were never written`);
    assert.deepEqual(present, ledger.attempted.slice(0, present.length), `run ${run}: recovered rows are not a prefix of the writes`);
  }
  t.diagnostic(
    `kill points tried: ${runs} (${stepsHit.size} distinct of ${totalSteps} disk-changing steps); ` +
      `acknowledged writes checked: ${acknowledgedChecked}; lost: ${lost}`,
  );
});
