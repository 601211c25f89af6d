/**
 * The floor the owner benches compare Foreman's claims with: `processes` children of
 * pgClaimsChild.ts claiming queued tasks with raw `FOR UPDATE SKIP LOCKED` until none is left,
 * all starting at `startAt` (after each has loaded, so they overlap).
 */
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { round, tails } from './stats';

const run = promisify(execFile);
const rawChild = path.join(__dirname, '..', 'pgClaimsChild.ts');

/** Things done per second over the whole of some overlapping spans (first start to last end, ms). */
export function spanPerSecond(count: number, spans: ReadonlyArray<readonly [number, number]>): number {
  const seconds = (Math.max(...spans.map((span) => span[1])) - Math.min(...spans.map((span) => span[0]))) / 1000;
  return round(count / seconds, 0);
}

export async function rawClaims(
  url: string,
  processes: number,
  startAt: number,
): Promise<{ perSecond: number; latency: Record<string, number>; claims: number; clientCpuMs: number }> {
  const outputs = await Promise.all(
    Array.from({ length: processes }, (_, i) =>
      run(process.execPath, ['--import', 'tsx', rawChild, 'raw', url, `raw-${i}`, String(startAt)]),
    ),
  );
  const runs = outputs.map(
    ({ stdout }) => JSON.parse(stdout) as { latencies: number[]; startedAt: number; endedAt: number; cpuMs: number },
  );
  const latencies = runs.flatMap((one) => one.latencies);
  return {
    perSecond: spanPerSecond(
      latencies.length,
      runs.map((one) => [one.startedAt, one.endedAt] as const),
    ),
    latency: tails(latencies, 2),
    claims: latencies.length,
    // The claiming processes' CPU over their claims (the client's share of a claim's cost).
    clientCpuMs: round(
      runs.reduce((sum, one) => sum + one.cpuMs, 0),
      0,
    ),
  };
}
