// Drives a real VS Code workbench (code-server + Debian chromium via playwright-core) for UI tests.
// Each launch gets its own code-server, profile and browser, so tests can run side by side and never
// see each other's state. Selectors follow REAL-VSCODE-TESTING.md; every helper waits for what it
// needs to see instead of sleeping, because extensions activate seconds after the workbench appears.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { launchChromium } from '../../../scripts/vscode/browser.mjs';
import { startCodeServer, type CodeServer } from '../../../scripts/vscode/codeServer.mjs';
import { installVsix, linkExtensions } from '../../../scripts/vscode/extensions.mjs';
import { newRunDir, repoRoot } from '../../../scripts/vscode/paths.mjs';
import { type ConnectionProxy, startConnectionProxy } from './connectionProxy';

export interface LaunchOptions {
  /** Folder to open as the workspace. */
  folder: string;
  /** Extension folder(s) to load (each needs a package.json with publisher, name, version). */
  extensionPath?: string | string[];
  /** A packaged extension to install with code-server's `--install-extension` instead (what users run). */
  vsix?: string;
  /** A built-in theme label, e.g. "Default Light Modern". */
  theme?: string;
  /** Workspace trust on: the folder opens in Restricted Mode (no startup dialog). Default off. */
  workspaceTrust?: boolean;
  /** Extra user settings. */
  settings?: Record<string, unknown>;
  /**
   * Remote machine settings (`<user-data>/Machine/settings.json`). code-server's window is a remote
   * one: VS Code drops `machine` and `machine-overridable` keys (such as `foreman.agents`) from the
   * user settings there and reads them from this file instead.
   */
  machineSettings?: Record<string, unknown>;
  /** Extra environment for code-server and the extension host. */
  env?: Record<string, string>;
  /** Prefix for screenshot names (default: "workbench"). */
  name?: string;
  /** How long to wait for the workbench to show the folder (default 60 s). */
  timeoutMs?: number;
  /** Open the first window through a proxy that `cutConnection()` can cut (default off). */
  cuttable?: boolean;
}

export interface Workbench {
  page: Page;
  url: string;
  /** Where the extension was installed, for a workbench launched with `vsix`. */
  installedFolder?: string;
  /** Saves test-results/<name>-<shot>.png and returns its path. */
  screenshot(shot: string): Promise<string>;
  /** Runs a command from the palette (F1) by its title as shown there, e.g. "Harness: Say Hello". */
  runCommand(title: string): Promise<void>;
  /** Opens a view container from the activity bar (no-op when it is already open). */
  clickActivityBar(label: string): Promise<void>;
  /** The rows of a tree view, by the view's name ("Workers"). */
  treeRows(viewName: string): Locator;
  /** The visible labels of a tree view's rows, once at least one row shows. */
  treeLabels(viewName: string): Promise<string[]>;
  /** The row of a tree view whose label is exactly `label`. */
  treeRow(viewName: string, label: string): Locator;
  /** Clicks a row's inline action (hovering the row first, as a person would), by the action's title. */
  clickRowAction(viewName: string, label: string, action: string): Promise<void>;
  /** Closes the modal editor (Workspace Trust, Running Extensions…) that VS Code shows over the window. */
  closeModalEditor(): Promise<void>;
  /** The open quick input (palette, quick pick or input box). */
  quickInput(): Locator;
  /** Picks an entry of the open quick pick by its text. */
  pickQuickItem(text: string | RegExp): Promise<void>;
  /** A status bar item by its id: "harness.item" (of the first extension) or a full "publisher.name.item". */
  statusBarItem(id: string): Locator;
  /** Notification toasts currently shown; filter with `.filter({ hasText })`. */
  notifications(): Locator;
  /**
   * Opens the same folder in a second window: a new tab of the same browser profile (shared storage,
   * so workspace trust carries over) on the same code-server, with its own extension host. Its
   * close() closes only that tab; screenshots are named "<name>-window2-<shot>".
   */
  openWindow(): Promise<Workbench>;
  /**
   * Drops the first window's connection without a goodbye (needs `cuttable`): code-server keeps its
   * extension host running for the reconnection grace, as it does for a tab that was lost.
   */
  cutConnection(): Promise<void>;
  close(): Promise<void>;
}

const resultsDir = join(repoRoot, 'test-results');
const keep = process.env.FOREMAN_VSCODE_KEEP === '1';

export async function launchWorkbench(options: LaunchOptions): Promise<Workbench> {
  const runDir = newRunDir('e2e');
  const extensionsDir = join(runDir, 'extensions');
  const installed = options.vsix ? installVsix(extensionsDir, options.vsix, { userDataDir: join(runDir, 'user-data') }) : undefined;
  const extensionIds = installed
    ? [installed.id]
    : linkExtensions(extensionsDir, [options.extensionPath ?? []].flat().map((path) => resolve(path)));

  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  let proxy: ConnectionProxy | undefined;
  const close = async () => {
    await browser?.close().catch(() => {});
    await proxy?.cut();
    await server?.stop();
    if (!keep) rmSync(runDir, { recursive: true, force: true });
  };
  try {
    if (options.machineSettings) {
      const machineDir = join(runDir, 'user-data', 'Machine');
      mkdirSync(machineDir, { recursive: true });
      writeFileSync(join(machineDir, 'settings.json'), `${JSON.stringify(options.machineSettings, null, 2)}\n`);
    }
    server = await startCodeServer({
      userDataDir: join(runDir, 'user-data'),
      extensionsDir,
      runDir,
      folder: options.folder,
      colorTheme: options.theme,
      workspaceTrust: options.workspaceTrust,
      settings: options.settings,
      env: options.env,
    });
    browser = await launchChromium();
    // An explicit context (not browser.newPage's private one), so openWindow() can add a second tab
    // that shares this one's storage (workspace trust, UI state), as a person's second tab would.
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    if (options.cuttable) proxy = await startConnectionProxy(server.port);
    await page.goto(proxy ? server.url.replace(`:${server.port}/`, `:${proxy.port}/`) : server.url);
    // The workbench is up once its side bar shows (extensions may still be activating).
    await page.locator('.monaco-workbench .part.sidebar').waitFor({ timeout: options.timeoutMs ?? 60_000 });
    const cuttable = proxy;
    const cut = cuttable && (() => cuttable.cut());
    const workbench = makeWorkbench(page, server.url, extensionIds, options.name ?? 'workbench', close, cut);
    return installed ? { ...workbench, installedFolder: installed.folder } : workbench;
  } catch (error) {
    await close();
    throw error;
  }
}

function makeWorkbench(
  page: Page,
  url: string,
  extensionIds: string[],
  name: string,
  close: () => Promise<void>,
  cut?: () => Promise<void>,
): Workbench {
  const tree = (viewName: string) => page.locator(`.monaco-list[aria-label="${cssString(viewName)}"] .monaco-list-row`);
  return {
    page,
    url,
    close,

    async cutConnection() {
      if (!cut) throw new Error('cutConnection() needs a workbench launched with { cuttable: true }');
      await cut();
    },

    async screenshot(shot) {
      mkdirSync(resultsDir, { recursive: true });
      const path = join(resultsDir, `${name}-${shot}.png`.replace(/[^\w.-]+/g, '-'));
      // Toasts fade in: wait until none is mid-animation, or the picture shows a ghost.
      await page.waitForFunction(
        "[...document.querySelectorAll('.notification-toast')].every((t) => t.classList.contains('notification-fade-in-done'))",
      );
      await page.screenshot({ path });
      return path;
    },

    async runCommand(title) {
      const input = page.locator('.quick-input-widget input[type="text"]');
      // A view or editor that opens just then (a walkthrough, a webview) takes focus and closes the
      // palette under us: open it again, a few times, before giving up.
      for (let attempt = 1; ; attempt++) {
        await page.keyboard.press('F1');
        await input.waitFor({ state: 'visible' });
        // F1 opens the palette with ">" typed: keep it, or the box searches files instead of commands.
        if (attempt >= 3) {
          await input.fill(`>${title}`);
          break;
        }
        const filled = await input.fill(`>${title}`, { timeout: 5_000 }).then(
          () => true,
          () => false,
        );
        if (filled) break;
        // Still open but slow to take the text (a loaded machine): give it the page's whole timeout.
        if (await input.isVisible()) {
          await input.fill(`>${title}`);
          break;
        }
      }
      const row = page.locator('.quick-input-list .monaco-list-row').filter({ hasText: title }).first();
      await row.waitFor({ state: 'visible' });
      await row.click();
      // The palette is done once it hides, or once the command reuses the widget for its own input
      // box or quick pick (whose text no longer starts with ">").
      await page.waitForFunction(
        "(() => { const w = document.querySelector('.quick-input-widget'); const input = w && w.querySelector('input[type=\"text\"]');" +
          " return !w || !w.offsetParent || w.style.display === 'none' || !(input && input.value.startsWith('>')); })()",
      );
    },

    async clickActivityBar(label) {
      const item = page
        .locator('.activitybar .action-item')
        .filter({ has: page.locator(`a[aria-label^="${cssString(label)}"]`) })
        .first();
      await item.waitFor({ state: 'visible' });
      // Clicking the active container collapses the side bar: only click when it is not active.
      if (!/\bchecked\b/.test((await item.getAttribute('class')) ?? '')) await item.locator('a').first().click();
      await page.locator('.part.sidebar').waitFor({ state: 'visible' });
    },

    treeRows: tree,

    async treeLabels(viewName) {
      const rows = tree(viewName);
      await rows.first().waitFor({ state: 'visible' });
      return rows.locator('.label-name').allInnerTexts();
    },

    treeRow(viewName, label) {
      return tree(viewName).filter({ has: page.locator('.label-name', { hasText: new RegExp(`^${escapeRegExp(label)}$`) }) });
    },

    async clickRowAction(viewName, label, action) {
      const row = tree(viewName).filter({ has: page.locator('.label-name', { hasText: new RegExp(`^${escapeRegExp(label)}$`) }) });
      await row.hover();
      await row.locator(`.actions .action-label[aria-label="${cssString(action)}"]`).click();
    },

    async closeModalEditor() {
      const modal = page.locator('.monaco-modal-editor-block');
      // Its keybindings (F1, Escape) only work with focus inside it: use its close button.
      await modal.locator('.action-label.codicon-close').click();
      await modal.waitFor({ state: 'hidden' });
    },

    quickInput() {
      return page.locator('.quick-input-widget');
    },

    async pickQuickItem(text) {
      const row = page.locator('.quick-input-widget .quick-input-list .monaco-list-row').filter({ hasText: text }).first();
      await row.waitFor({ state: 'visible' });
      await row.click();
    },

    statusBarItem(id) {
      const fullId = extensionIds.some((ext) => id.startsWith(`${ext}.`)) || extensionIds.length === 0 ? id : `${extensionIds[0]}.${id}`;
      return page.locator(`[id="${cssString(fullId)}"]`);
    },

    notifications() {
      return page.locator('.notifications-toasts .notification-toast');
    },

    async openWindow() {
      const second = await page.context().newPage();
      second.setDefaultTimeout(30_000);
      try {
        await second.goto(url);
        await second.locator('.monaco-workbench .part.sidebar').waitFor({ timeout: 60_000 });
      } catch (error) {
        await second.close();
        throw error;
      }
      return makeWorkbench(second, url, extensionIds, `${name}-window2`, () => second.close());
    },
  };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Escapes a value for use inside a double-quoted CSS attribute selector. */
const cssString = (value: string) => value.replace(/["\\]/g, '\\$&');
