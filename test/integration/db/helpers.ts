/** Shared set-up for the store's integration tests: temp folders and small writes. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after } from 'node:test';
import { ok } from '../../../src/core/result';
import type { Result } from '../../../src/core/result';
import type { Tx } from '../../../src/engine/ports';

const roots: string[] = [];
after(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
});

/** A fresh `<temp>/.foreman` path (not created), removed when the test file ends. */
export function tempForemanDir(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'foreman-db-'));
  roots.push(root);
  return path.join(root, '.foreman');
}

/** A copy of a store folder as a crash would leave it: whatever is on disk, without a close(). */
export function copyOf(dir: string): string {
  const copy = tempForemanDir();
  fs.cpSync(dir, copy, { recursive: true });
  return copy;
}

export function insertTask(id: string, sortOrder = 1): (tx: Tx) => Result<number> {
  return (tx) =>
    ok(
      tx.run(`INSERT INTO tasks (id, title, status, sort_order, created_at) VALUES (?, ?, 'queued', ?, ?)`, [
        id,
        `Task ${id}`,
        sortOrder,
        1000 + sortOrder,
      ]),
    );
}

export function collectLog(): { lines: string[]; log: (line: string) => void } {
  const lines: string[] = [];
  return { lines, log: (line) => lines.push(line) };
}
