// What the UI tests with the real Claude Code CLI (devDependency) set up: the scripted model server
// (the only stand-in: the model is out of reach offline), a HOME of their own for Claude, a repository
// with Foreman initialised and ada (profile `claude`) added, and a real VS Code window on it whose
// remote machine settings hold the agent profiles (code-server's window is a remote one, where VS
// Code ignores a user-level `foreman.agents`, which is machine-overridable).
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FrameLocator } from 'playwright-core';
import { repoRoot } from '../../../scripts/vscode/paths.mjs';
import { claudeBinary, claudeEnvironment, makeHome } from '../../support/agentCli';
import { type ScriptedModel, startScriptedModel } from '../../support/scriptedModel';
import { agentGroups, killGroups, stringsOf } from './agentProcesses';
import { ensureBuilt, makeTestRepo, type TestRepo } from './repo';
import { launchWorkbench, type Workbench } from './workbench';

/** The `claude` agent profile: the real CLI with its default retries, pointed at the scripted model. */
export interface ClaudeProfile {
  readonly kind: 'claude';
  readonly command: string;
  readonly env: Record<string, string>;
}

export interface RealClaudeOptions {
  /** Names the temp folders, and the screenshots (`test-results/<name>-*.png`). */
  readonly name: string;
  /** The repository's folder name and the files of its first commit. */
  readonly repo: { readonly folder: string; readonly files: Readonly<Record<string, string>> };
  /** User settings of the window. */
  readonly settings?: Record<string, unknown>;
  /** More agent profiles beside `claude`, made from it. */
  readonly moreProfiles?: (claude: ClaudeProfile) => Record<string, unknown>;
}

export interface RealClaudeWorkbench {
  readonly model: ScriptedModel;
  readonly repo: TestRepo;
  readonly workbench: Workbench;
  /** The built CLI in the repository; its stdout. */
  cli(...args: string[]): string;
  /** The dashboard's webview content, once it is open. */
  readonly dashboard: FrameLocator;
  /** Closes the window, ends the agents it left running and the model, removes the temp folders. */
  close(): Promise<void>;
}

/** Sets it all up; the window is 1500 × 1000. */
export async function openRealClaudeWorkbench(options: RealClaudeOptions): Promise<RealClaudeWorkbench> {
  ensureBuilt();
  const scratch = realpathSync(mkdtempSync(join(tmpdir(), `foreman-${options.name}-e2e-`)));
  const home = makeHome(`foreman-${options.name}-home-`);
  let model: ScriptedModel | undefined;
  let repo: TestRepo | undefined;
  let workbench: Workbench | undefined;
  const close = async (): Promise<void> => {
    // The agents this window launched and left running (a failed step leaves one waiting for an answer).
    const leftovers = repo ? agentGroups(repo.dir) : [];
    await workbench?.close();
    killGroups(leftovers);
    await model?.close();
    for (const dir of [scratch, home]) rmSync(dir, { recursive: true, force: true });
  };
  try {
    model = await startScriptedModel();
    const claude: ClaudeProfile = { kind: 'claude', command: claudeBinary, env: stringsOf(claudeEnvironment(model.url, home)) };
    const made = makeTestRepo(join(scratch, options.repo.folder), options.repo.files);
    repo = made;
    made.foreman('init');
    made.foreman('worker', 'add', 'ada', '--agent', 'claude');
    const opened = await launchWorkbench({
      folder: made.dir,
      extensionPath: repoRoot,
      name: options.name,
      ...(options.settings ? { settings: options.settings } : {}),
      machineSettings: { 'foreman.agents': { claude, ...options.moreProfiles?.(claude) } },
    });
    workbench = opened;
    await opened.page.setViewportSize({ width: 1500, height: 1000 });
    return {
      model,
      repo: made,
      workbench: opened,
      cli: (...args) => made.foreman(...args),
      dashboard: opened.page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame'),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
