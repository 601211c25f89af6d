// The dashboard webview as the UI tests read and drive it: its frame, scrolling, theme, and what
// its cards and heartbeat strips show.
import type { Frame, FrameLocator } from 'playwright-core';
import type { Workbench } from './workbench';

/** The bits of a page the test touches inside `evaluate` (the project's tsconfig has no DOM types). */
interface PageGlobals {
  scrollTo(x: number, y: number): void;
  requestAnimationFrame(callback: () => void): number;
  readonly document: { readonly body: { readonly scrollHeight: number } };
  readonly parent: unknown;
}

/** Each worker card's state, by worker id. */
export async function workerStates(dashboard: FrameLocator): Promise<Record<string, string>> {
  const entries = await dashboard
    .locator('.worker-card')
    .evaluateAll((cards): Array<[string, string]> =>
      cards.map((c) => [c.getAttribute('data-worker') ?? '', /state-(\S+)/.exec(c.getAttribute('class') ?? '')?.[1] ?? '']),
    );
  return Object.fromEntries(entries);
}

/** The webview's own page (inside VS Code's webview host frame). */
export async function contentFrame(workbench: Workbench): Promise<Frame> {
  const host = await (await workbench.page.locator('iframe.webview.ready').elementHandle()).contentFrame();
  const frame = await (await host!.locator('iframe#active-frame').elementHandle()).contentFrame();
  return frame!;
}

export async function scrollDashboard(workbench: Workbench, where: 'top' | 'bottom'): Promise<void> {
  await (
    await contentFrame(workbench)
  ).evaluate((to) => {
    const page = globalThis as unknown as PageGlobals;
    page.scrollTo(0, to === 'top' ? 0 : page.document.body.scrollHeight);
    // Resolved once the page has drawn the scrolled frame.
    return new Promise<void>((resolve) => page.requestAnimationFrame(() => resolve()));
  }, where);
}

/** Clears VS Code's notification toasts and waits until none is on screen (they slide out). */
export async function clearNotifications(workbench: Workbench): Promise<void> {
  await workbench.runCommand('Notifications: Clear All Notifications');
  await workbench.page.locator('.notification-toast').first().waitFor({ state: 'detached', timeout: 10_000 });
}

/** Picks a colour theme from the palette and waits until the dashboard wears it. */
export async function pickTheme(workbench: Workbench, dashboard: FrameLocator, label: string, bodyClass: string): Promise<void> {
  await workbench.page.keyboard.press('F1');
  const input = workbench.page.locator('.quick-input-widget input[type="text"]');
  await input.fill('>Preferences: Color Theme');
  await workbench.page.locator('.quick-input-list .monaco-list-row').filter({ hasText: 'Preferences: Color Theme' }).first().click();
  await input.fill(label);
  await workbench.page.locator('.quick-input-list .monaco-list-row').filter({ hasText: label }).first().click();
  await dashboard.locator(`body.${bodyClass}`).waitFor({ timeout: 15_000 });
  await clearNotifications(workbench);
}

/** Each heartbeat strip: where a beat was due and where silence is shaded, in the strip's units. */
export async function readStrips(dashboard: FrameLocator): Promise<Array<{ due: number[][]; gaps: number[][]; worker: string }>> {
  return dashboard.locator('.worker-card svg.strip').evaluateAll((elements) =>
    elements.map((element) => ({
      due: (element.getAttribute('data-due') ?? '')
        .split(',')
        .filter(Boolean)
        .map((range: string): number[] => range.split(':').map(Number)),
      gaps: [...element.querySelectorAll('rect.strip-gap')].map((rect) => [
        Number(rect.getAttribute('x')),
        Number(rect.getAttribute('x')) + Number(rect.getAttribute('width')),
      ]),
      worker: element.closest('.worker-card')?.getAttribute('data-worker') ?? '',
    })),
  );
}
