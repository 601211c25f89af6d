/**
 * One owner process of bench/twoOwners.bench.ts: a real engine (with an owner identity on
 * PostgreSQL, or alone on a durable sql.js store) whose workers `<prefix>-0…` each claim one task
 * through the engine's front door, then heartbeat `rounds` times each, round-robin. Prints the
 * latencies of both phases, their wall-clock spans, and this process's CPU time over the heartbeats.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Store } from '../src/engine/ports';
import { defaultEngineSettings } from '../src/engine/settings';
import { SqlJsStore } from '../src/infra/db';
import { PgStore } from '../src/infra/pg/pgStore';
import { benchClone, benchEngine, executorOf } from './support/benchEngine';

const [mode, target = '', ownerId = '', host = '', prefix = '', countText, roundsText, startAtText] = process.argv.slice(2);
if ((mode !== 'pg' && mode !== 'sqljs') || !target || !ownerId || !host || !prefix)
  throw new Error('usage: twoOwnersChild.ts <pg|sqljs> <url|foremanDir> <owner> <host> <prefix> <workers> <rounds> <startAtMs>');
const count = Number(countText);
const rounds = Number(roundsText);

async function main(): Promise<void> {
  const dir = benchClone(`bench-${ownerId}`);
  const foremanDir = mode === 'pg' ? join(dir, '.foreman') : target;
  const store: Store = mode === 'pg' ? PgStore.open(target, { ownerId }) : await SqlJsStore.open(target);
  const engine = benchEngine(store, defaultEngineSettings, dir, foremanDir, mode === 'pg' ? { id: ownerId, host } : undefined);
  const execute = executorOf(engine, ownerId);
  // Every process starts at the same moment (after each has loaded), so the owners overlap.
  while (Date.now() < Number(startAtText)) await new Promise((resolve) => setTimeout(resolve, 5));

  const claims: number[] = [];
  const claimsStarted = Date.now();
  for (let i = 0; i < count; i++) {
    const begun = performance.now();
    const claimed = await execute('claim', { worker: `${prefix}-${i}` });
    if (claimed) claims.push(performance.now() - begun);
  }
  const claimsEnded = Date.now();

  const heartbeats: number[] = [];
  const cpuBefore = process.cpuUsage();
  const heartbeatsStarted = Date.now();
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < count; i++) {
      const begun = performance.now();
      await execute('heartbeat', { worker: `${prefix}-${i}`, status: 'working' });
      heartbeats.push(performance.now() - begun);
    }
  }
  const heartbeatsEnded = Date.now();
  const cpu = process.cpuUsage(cpuBefore);
  engine.dispose();
  store.close();
  rmSync(dir, { recursive: true, force: true });
  process.stdout.write(
    JSON.stringify({
      claims,
      claimsSpan: [claimsStarted, claimsEnded],
      heartbeats,
      heartbeatsSpan: [heartbeatsStarted, heartbeatsEnded],
      heartbeatCpuMs: (cpu.user + cpu.system) / 1000,
    }),
  );
}

void main();
