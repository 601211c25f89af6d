import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { it } from 'node:test';
import { SqlJsStore } from '../../../src/infra/db/index';
import { copyOf, tempForemanDir } from './helpers';

const writer = path.join(__dirname, 'fixtures', 'crashWriter.ts');
const kills = 50;

function randomBetween(low: number, high: number): number {
  return low + Math.random() * (high - low);
}

/** Where a run's kill is aimed; `commits` means at a random moment of the write loop. */
type Target = 'commits' | 'open' | 'checkpoint';

/**
 * Runs the writer until SIGKILL and returns the highest counter it acknowledged. Most kills land
 * while it commits (automatic checkpoints included); some are aimed at its open (replay, recovery)
 * or at an explicit checkpoint (export, fsync, renames).
 */
function runUntilKilled(dir: string, target: Target): Promise<{ acknowledged: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', writer, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let acknowledged = 0;
    let pending = '';
    let stderr = '';
    let timer: NodeJS.Timeout | undefined;
    const killAfter = (ms: number): void => {
      timer ??= setTimeout(() => child.kill('SIGKILL'), ms);
    };
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (line === 'opening' && target === 'open') killAfter(randomBetween(0, 40));
        else if (line === 'checkpointing' && target === 'checkpoint') killAfter(randomBetween(0, 6));
        else if (line === 'ready' && target !== 'checkpoint') killAfter(randomBetween(20, 300));
        else if (/^\d+$/.test(line)) acknowledged = Math.max(acknowledged, Number(line));
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (signal !== 'SIGKILL') reject(new Error(`writer exited by itself (code ${code}, signal ${signal}): ${stderr}`));
      else resolve({ acknowledged, stderr });
    });
  });
}

/** Opens what the crash left (on a copy, so the next run inherits the damage, if any) and checks it. */
async function verify(dir: string, acknowledged: number, round: number, inPlace = false): Promise<number> {
  const store = await SqlJsStore.open(inPlace ? dir : copyOf(dir));
  try {
    const counter = Number(
      store.read((reader) => reader.get<{ value: string }>(`SELECT value FROM meta WHERE key = 'counter'`))?.value ?? 0,
    );
    const present = new Set(
      store.read((reader) => reader.all<{ entity_id: string }>('SELECT entity_id FROM transitions')).map((row) => row.entity_id),
    );
    const integrity = store.read((reader) => reader.all<{ integrity_check: string }>('PRAGMA integrity_check'));
    const context = `round ${round}: acknowledged ${acknowledged}, counter ${counter}, rows ${present.size}`;
    assert.ok(counter >= acknowledged, `${context}: an acknowledged write was lost`);
    for (let i = 1; i <= acknowledged; i++) assert.ok(present.has(`t${i}`), `${context}: transition t${i} is missing`);
    assert.equal(present.size, counter, `${context}: the counter and the transitions disagree (a half-applied write)`);
    assert.deepEqual(integrity, [{ integrity_check: 'ok' }], context);
    return counter;
  } finally {
    store.close();
  }
}

it(`loses no acknowledged write across ${kills} SIGKILLs at random moments`, { timeout: 120_000 }, async (t) => {
  const dir = tempForemanDir();
  let acknowledged = 0;
  let tornTails = 0;
  let midCheckpoint = 0;
  for (let round = 1; round <= kills; round++) {
    const run = await runUntilKilled(dir, round % 5 === 0 ? 'open' : round % 5 === 2 ? 'checkpoint' : 'commits');
    acknowledged = Math.max(acknowledged, run.acknowledged);
    tornTails += (run.stderr.match(/incomplete last record/g) ?? []).length;
    if (fs.existsSync(path.join(dir, 'foreman.db.tmp')) || !fs.existsSync(path.join(dir, 'foreman.db'))) midCheckpoint++;
    await verify(dir, acknowledged, round);
  }
  assert.ok(acknowledged > kills * 20, `too few writes to mean anything: ${acknowledged}`);
  // The final state, opened in place: what the next real owner would see.
  await verify(dir, acknowledged, kills + 1, true);
  t.diagnostic(
    `${acknowledged} writes acknowledged; ${tornTails} torn journal tails found on reopening; ${midCheckpoint} kills during a checkpoint`,
  );
});
