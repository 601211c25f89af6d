// A tiny test runner for suites that run inside the extension host (mocha is not a dependency).
// VS Code only needs the suite module to export `run(): Promise<void>`; a rejected promise fails the
// run (exit code 1). Output goes to console.log, which reaches the harness's stdout: the extension
// host's console is forwarded to the workbench, and from there to `codeAutomationLog`.
import { inspect } from 'node:util';
import { pollUntil } from '../../support/pollUntil';

type TestFn = () => unknown; // may return a promise
interface TestCase {
  name: string;
  fn: TestFn;
  timeoutMs: number;
}

const registered: TestCase[] = [];

/** Registers a test; tests run in registration order, one at a time. */
export function test(name: string, fn: TestFn, options: { timeoutMs?: number } = {}): void {
  registered.push({ name, fn, timeoutMs: options.timeoutMs ?? 20_000 });
}

/** Runs every registered test, prints one line per test and a summary line, throws if any failed. */
export async function runRegistered(suite: string): Promise<void> {
  let passed = 0;
  let failed = 0;
  console.log(`${suite}`);
  for (const testCase of registered) {
    const started = Date.now();
    try {
      await withTimeout(Promise.resolve().then(testCase.fn), testCase.timeoutMs, testCase.name);
      passed += 1;
      console.log(`  ✔ ${testCase.name} (${Date.now() - started} ms)`);
    } catch (error) {
      failed += 1;
      console.log(`  ✖ ${testCase.name} (${Date.now() - started} ms)\n${indent(describe(error))}`);
    }
  }
  // runInVsCode.mjs reads this exact line to count results for `npm test`'s summary.
  console.log(`# in-vscode ${suite}: ${passed} passed, ${failed} failed`);
  if (failed > 0) throw new Error(`${failed} of ${registered.length} tests failed in ${suite}`);
}

/**
 * Polls until `check` returns a truthy value. Inside the host a check may throw while the extension
 * is still activating, so an exception means "not yet" here; the last one is named on timeout.
 */
export async function waitFor<T>(check: () => T | Promise<T>, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  let lastError: unknown;
  const found = await pollUntil(
    async () => {
      try {
        const value = await check();
        return value ? { value } : undefined;
      } catch (error) {
        lastError = error;
        return undefined;
      }
    },
    { what, timeoutMs, detail: () => (lastError ? describe(lastError) : '') },
  );
  return found.value;
}

function withTimeout<T>(promise: Promise<T>, ms: number, name: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`test "${name}" timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const describe = (error: unknown) => (error instanceof Error ? (error.stack ?? error.message) : inspect(error));
const indent = (text: string) => text.replace(/^/gm, '      ');
