/**
 * The team's settings (issue 29): `teamConcurrency` in `.foreman/settings.json`, optional and
 * absent by default, read through zod; and VS Code's `foreman.teamConcurrency` beside
 * `foreman.concurrency` in package.json (0: no cap there, since a VS Code setting cannot be absent).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { defaultEngineSettings, mergeSettings, settingsFileSchema } from '../../src/engine/settings';
import { loadSettings } from '../../src/infra/workspace/settings';
import { englishManifest } from '../support/manifest';

test('teamConcurrency: absent by default (no team-wide cap), a whole number of at least 1 when set', () => {
  assert.equal('teamConcurrency' in defaultEngineSettings, false);
  assert.equal('teamConcurrency' in mergeSettings({}), false, 'an absent setting stays absent');
  assert.equal(mergeSettings(settingsFileSchema.parse({ teamConcurrency: 12, concurrency: 4 })).teamConcurrency, 12);
  for (const bad of [0, -1, 2.5, '8', 5000]) {
    assert.equal(settingsFileSchema.safeParse({ teamConcurrency: bad }).success, false, JSON.stringify(bad));
  }
});

test('teamConcurrency: read from .foreman/settings.json, a bad value refused by name', () => {
  const dir = mkdtempSync(join(tmpdir(), 'foreman-team-settings-'));
  try {
    writeFileSync(join(dir, 'settings.json'), JSON.stringify({ concurrency: 2, teamConcurrency: 6 }));
    const loaded = loadSettings(dir);
    assert.ok(loaded.ok);
    assert.deepEqual([loaded.value.concurrency, loaded.value.teamConcurrency], [2, 6]);
    writeFileSync(join(dir, 'settings.json'), JSON.stringify({ teamConcurrency: 0 }));
    const refused = loadSettings(dir);
    assert.ok(!refused.ok);
    assert.match(refused.message, /teamConcurrency: must be at least 1/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('package.json contributes foreman.teamConcurrency beside foreman.concurrency, 0 meaning no cap', () => {
  const manifest = englishManifest() as {
    contributes: { configuration: { properties: Record<string, { default: unknown; minimum?: number; markdownDescription?: string }> } };
  };
  const setting = manifest.contributes.configuration.properties['foreman.teamConcurrency'];
  assert.ok(setting, 'foreman.teamConcurrency is not contributed');
  assert.deepEqual([setting.default, setting.minimum], [0, 0]);
  assert.match(setting.markdownDescription ?? '', /0: no team-wide cap/);
});
