// Holds package.json's settings and Get Started walkthrough to the code: every setting has a scope
// VS Code honours per folder (Foreman reads each one per workspace folder), and every command,
// setting and media file the walkthrough names exists.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CommandId } from '../../../src/extension/commands/commandIds';
import { contextKeys } from '../../../src/extension/contextKeys';
import { englishManifest } from '../../support/manifest';

const root = join(__dirname, '..', '..', '..');

interface Setting {
  readonly scope?: string;
}
interface WalkthroughStep {
  readonly id: string;
  readonly description: string;
  readonly media: { readonly markdown?: string; readonly image?: string; readonly svg?: string };
  readonly completionEvents?: readonly string[];
}
interface Manifest {
  readonly contributes: {
    readonly commands: ReadonlyArray<{ readonly command: string }>;
    readonly configuration: { readonly properties: Record<string, Setting> };
    readonly walkthroughs: ReadonlyArray<{ readonly id: string; readonly steps: readonly WalkthroughStep[] }>;
  };
}

const manifest = englishManifest() as Manifest;
const settings = manifest.contributes.configuration.properties;
const contributedCommands = new Set(manifest.contributes.commands.map((entry) => entry.command));
/** Scopes whose values VS Code applies per workspace folder (`window` and `application` ignore a folder's value). */
const perFolderScopes = new Set(['resource', 'machine-overridable', 'language-overridable']);
/**
 * Settings a workspace must not set: `foreman.store` chooses the server this machine's password is
 * sent to, so a cloned repository's .vscode/settings.json must not be able to point it elsewhere.
 */
const machineOnly = new Set(['foreman.store']);
/** The context keys the window sets (contextKeys.ts), with no session yet. */
const setKeys = contextKeys([]);
/** Built-in commands the walkthrough may link to. */
const builtinCommands = new Set(['workbench.action.openSettings']);

test('every Foreman setting declares a scope that VS Code honours per folder', () => {
  const names = Object.keys(settings);
  assert.ok(names.length >= 15, `only ${names.length} settings found`);
  for (const name of names) {
    const scope = settings[name]?.scope;
    assert.ok(scope, `${name} declares no scope (it would be window-scoped and its folder values ignored)`);
    if (machineOnly.has(name)) assert.equal(scope, 'machine', `${name} must be settable only per machine`);
    else assert.ok(perFolderScopes.has(scope), `${name} has scope ${scope}, which VS Code does not read per folder`);
  }
});

test('every setting configuration.ts reads is declared in package.json', () => {
  const source = readFileSync(join(root, 'src', 'extension', 'configuration.ts'), 'utf8');
  const read = [...source.matchAll(/config\.get\('([\w.]+)'\)/g)].map((match) => `foreman.${match[1]!}`);
  assert.ok(read.length >= 15, `only ${read.length} reads found in configuration.ts`);
  for (const name of read) assert.ok(settings[name], `configuration.ts reads ${name}, which package.json does not declare`);
});

test('the Get Started walkthrough covers the first run, and what it names exists', () => {
  const [walkthrough] = manifest.contributes.walkthroughs;
  assert.ok(walkthrough, 'no walkthrough contributed');
  assert.deepEqual(
    walkthrough.steps.map((step) => step.id),
    ['initialise', 'addWorker', 'pickAgent', 'firstTask', 'review'],
  );
  for (const step of walkthrough.steps) {
    const links = [...step.description.matchAll(/\(command:([\w.]+)/g)].map((match) => match[1]!);
    assert.ok(links.length > 0, `step ${step.id} has no button`);
    for (const command of links) {
      assert.ok(contributedCommands.has(command) || builtinCommands.has(command), `step ${step.id} links to unknown command ${command}`);
    }
    for (const event of step.completionEvents ?? []) {
      const [kind, value] = event.split(/:(.*)/s) as [string, string];
      if (kind === 'onCommand') assert.ok(contributedCommands.has(value), `step ${step.id} completes on unknown command ${value}`);
      if (kind === 'onSettingChanged') assert.ok(settings[value], `step ${step.id} completes on unknown setting ${value}`);
      if (kind === 'onContext') {
        for (const key of value.match(/\bforeman\.\w+/g) ?? []) {
          assert.ok(key in setKeys, `step ${step.id} completes on ${key}, a context key Foreman never sets`);
        }
      }
    }
    // Each step also ticks from the workspace's state, not only from its button (issue 30): when the
    // state changes, and when the walkthrough opens on a state that was already so (see docs/vscode.md:
    // VS Code never ticks a step whose expression held when the walkthrough was registered).
    const onContext = (step.completionEvents ?? []).filter((event) => event.startsWith('onContext:'));
    assert.ok(onContext.length > 0, `step ${step.id} ticks only when its command runs here, not from the workspace's state`);
    assert.ok(
      onContext.some((event) => event.includes("activeEditor == 'gettingStartedPage'")),
      `step ${step.id} does not tick when the walkthrough opens on a workspace already in that state`,
    );
    const media = step.media.markdown ?? step.media.image ?? step.media.svg;
    assert.ok(media && existsSync(join(root, media)), `step ${step.id}: media ${media} is missing`);
  }
});

test('every contributed command is one the extension registers', () => {
  const registered = new Set<string>(Object.values(CommandId));
  for (const command of contributedCommands) assert.ok(registered.has(command), `${command} is contributed but not in CommandId`);
});
