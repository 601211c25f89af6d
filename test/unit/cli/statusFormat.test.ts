import assert from 'node:assert/strict';
import { test } from 'node:test';
import { zeroUsage } from '../../../src/core/agentEvents';
import { printResult } from '../../../src/cli/format';
import type { ResultOf } from '../../../src/core/requests';
import type { StatusSnapshot } from '../../../src/engine/statusView';
import { makeStatus } from '../dashboard/fixtures';

function print<C extends 'status' | 'worker.list' | 'metrics'>(command: C, value: ResultOf<C>): string[] {
  const lines: string[] = [];
  printResult({ out: (line) => lines.push(line), err: (line) => lines.push(`ERR ${line}`) }, command, { ok: true, value }, false);
  return lines;
}

const status = makeStatus({ workers: 3, tasks: 6 });
const working = status.workers.find((worker) => worker.state === 'WORKING')!;
const waiting = {
  ...working,
  id: 'asker',
  needsInput: { message: 'Allow Bash: git push?', at: 1 },
  livenessReason: 'waiting for you: Allow Bash: git push?',
};
const snapshot: StatusSnapshot = {
  ...status,
  workers: [...status.workers, waiting],
  usage: { inputTokens: 10_000, outputTokens: 2_400, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.42 },
};

test('status shows what each agent does, who waits for you, and what the runs cost', () => {
  const lines = print('status', snapshot);
  assert.match(lines[1]!, /^usage: 12\.4k tokens · \$0\.42 \(10,000 in · 2,400 out tokens · \$0\.4200\)$/);
  const row = (id: string) => lines.find((line) => line.startsWith(`${id} `))!;
  assert.match(row(working.id), /1\.5k tokens · \$0\.01\s+Bash: npm test\s+OK/);
  assert.match(row('asker'), /waiting for you: Allow Bash: git push\?\s+OK$/);
  assert.match(
    lines.find((line) => line.startsWith('WORKER'))!,
    /USAGE\s+NOW\s+LIVENESS/,
  );
});

test('worker list has the same columns; a run without usage shows a dash', () => {
  const lines = print('worker.list', [{ ...working, usage: zeroUsage, activity: null }]);
  assert.match(lines[0]!, /HEARTBEAT\s+USAGE\s+NOW\s+LIVENESS/);
  assert.match(lines[1]!, /ago\s+-\s+-\s+OK/);
});

test("metrics include the agents' tokens and cost", () => {
  const metrics = {
    transitions: [],
    timeInState: [],
    rejected: { total: 0, byCode: {} },
    idempotency: { hits: 0, keys: 0 },
    queue: {},
    throughputPerHour: 0,
    usage: { inputTokens: 900, outputTokens: 100, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.05 },
    archived: {},
  };
  assert.ok(print('metrics', metrics).includes('agent usage: 1k tokens · $0.05 (900 in · 100 out tokens · $0.0500)'));
  assert.ok(print('metrics', { ...metrics, usage: zeroUsage }).includes('agent usage: none reported'));
});

test('status ends with a line per task in an overlap: the other task, its worker, the files; louder where lines meet', () => {
  const [first, second] = status.tasks;
  const shared = { title: 'Other', plan: null } as const;
  const lines = print('status', {
    ...status,
    tasks: [
      {
        ...first!,
        id: 'a',
        workerId: 'w1',
        overlaps: [{ ...shared, taskId: 'b', workerId: 'w2', files: ['src/app.ts', 'src/b.ts', 'src/c.ts', 'src/d.ts'], hunks: true }],
      },
      {
        ...second!,
        id: 'b',
        workerId: 'w2',
        overlaps: [{ ...shared, taskId: 'a', workerId: 'w1', files: ['src/app.ts'], hunks: false, plan: 'rebase-when-merged' }],
      },
    ],
  });
  const at = lines.findIndex((line) => line.startsWith('overlaps ('));
  assert.ok(at > 0, lines.join('\n'));
  assert.deepEqual(lines.slice(at + 1, at + 3), [
    '!! a (w1) changes the same lines as b (w2) in src/app.ts, src/b.ts, src/c.ts and 1 more',
    '   b (w2) touches the same files as a (w1): src/app.ts; rebase-when-merged',
  ]);
  assert.equal(
    print('status', status).some((line) => line.startsWith('overlaps (')),
    false,
    'nothing when nothing overlaps',
  );
});
