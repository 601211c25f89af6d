import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { crewSettingsOf, settingsFileSchema } from '../../src/engine/settings';
import { loadSettings } from '../../src/infra/workspace/settings';

test('crew settings: worktree setup fields default to nothing and pass through from .foreman/settings.json', () => {
  const empty = crewSettingsOf({});
  assert.deepEqual(
    {
      setupCommand: empty.setupCommand,
      copyFiles: empty.copyFiles,
      portRange: empty.portRange,
      allowEmptyResults: empty.allowEmptyResults,
    },
    { setupCommand: [], copyFiles: [], portRange: undefined, allowEmptyResults: false },
  );
  const file = settingsFileSchema.parse({
    setupCommand: ['npm', 'ci'],
    copyFiles: ['.env*', 'config/*.local.json', '**/.env'],
    portRange: { from: 3000, to: 3099 },
    allowEmptyResults: true,
  });
  const crew = crewSettingsOf(file);
  assert.deepEqual(crew.setupCommand, ['npm', 'ci']);
  assert.deepEqual(crew.copyFiles, ['.env*', 'config/*.local.json', '**/.env']);
  assert.deepEqual(crew.portRange, { from: 3000, to: 3099 });
  assert.equal(crew.allowEmptyResults, true);
});

test('settings file: globs that could leave the repository and bad port ranges are refused', () => {
  for (const glob of ['../x', '/etc/*', ':(top)x', 'a/../b', './x', 'a\\b', '', 'C:/x', 'a//b', 'line\nbreak']) {
    assert.equal(settingsFileSchema.safeParse({ copyFiles: [glob] }).success, false, JSON.stringify(glob));
  }
  for (const portRange of [
    { from: 3100, to: 3000 },
    { from: 0, to: 10 },
    { from: 1, to: 70000 },
    { from: 3000 },
    { from: 1, to: 2, extra: 3 },
  ]) {
    assert.equal(settingsFileSchema.safeParse({ portRange }).success, false, JSON.stringify(portRange));
  }
  assert.equal(settingsFileSchema.safeParse({ setupCommand: [''] }).success, false);
});

test('package.json contributes the worktree setup settings; the setup command is restricted in untrusted workspaces', () => {
  const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
    contributes: { configuration: { properties: Record<string, { default: unknown; markdownDescription?: string }> } };
    capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } };
  };
  const properties = manifest.contributes.configuration.properties;
  const expected: Record<string, unknown> = {
    'foreman.setup.command': [],
    'foreman.setup.copyFiles': [],
    'foreman.setup.portRange': null,
    'foreman.allowEmptyResults': false,
  };
  for (const [key, fallback] of Object.entries(expected)) {
    assert.deepEqual(properties[key]?.default, fallback, key);
    assert.ok(properties[key]?.markdownDescription, key);
  }
  const restricted = manifest.capabilities.untrustedWorkspaces.restrictedConfigurations;
  assert.ok(restricted.includes('foreman.setup.command') && restricted.includes('foreman.verifyCommand'));
});

test('settings file: an unknown setting is named, with the settings there are; a bound is said in words', () => {
  const dir = mkdtempSync(join(tmpdir(), 'foreman-settings-'));
  try {
    writeFileSync(join(dir, 'settings.json'), JSON.stringify({ concurrency: 0, retention: '7d' }));
    const loaded = loadSettings(dir);
    assert.ok(!loaded.ok);
    assert.match(loaded.message, /settings\.json: concurrency: must be at least 1; settings: unknown key "retention"; known: warnMs, /);
    assert.match(loaded.message, /retainFinishedMs/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
