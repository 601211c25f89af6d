/**
 * Holds docs/architecture.md's "to add an agent kind" row to the code: a kind is its adapter
 * (kinds/<kind>.ts, declaring its command and prompt delivery), `agentKinds` in kinds/adapter.ts,
 * `adapters` in kinds/index.ts and package.json's enum; nothing else lists the kinds.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { adapters, agentKinds } from '../../../src/infra/agents/kinds';
import { builtinProfiles, resolveProfile } from '../../../src/infra/agents/profiles';

const root = join(__dirname, '..', '..', '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, { additionalProperties?: { properties?: { kind?: { enum?: string[] } } } }> } };
};

function packageKinds(): string[] {
  const kinds = manifest.contributes.configuration.properties['foreman.agents']?.additionalProperties?.properties?.kind?.enum;
  if (!kinds) throw new Error('package.json has no foreman.agents kind enum');
  return kinds;
}

test("package.json's kind enum is agentKinds, and every kind but command has its adapter", () => {
  assert.deepEqual(packageKinds(), [...agentKinds]);
  assert.deepEqual(Object.keys(adapters).sort(), agentKinds.filter((kind) => kind !== 'command').sort());
  for (const [kind, adapter] of Object.entries(adapters)) assert.equal(adapter.kind, kind, `adapters.${kind} says it is ${adapter.kind}`);
});

test('each adapter brings its built-in profile, resolved with the delivery the adapter declares', () => {
  const builtins = builtinProfiles();
  for (const adapter of Object.values(adapters)) {
    assert.deepEqual(builtins[adapter.kind], { kind: adapter.kind, command: adapter.command });
    const profile = resolveProfile(adapter.kind);
    assert.ok(profile.ok, `the built-in ${adapter.kind} profile resolves`);
    assert.equal(profile.value.prompt, adapter.prompt);
    assert.equal(profile.value.command, adapter.command);
  }
});

test('no source file outside the four spells the kinds out', () => {
  // profiles.ts reads the adapters; it used to keep its own delivery table and built-in list.
  const profiles = readFileSync(join(root, 'src/infra/agents/profiles.ts'), 'utf8');
  for (const kind of Object.keys(adapters)) assert.doesNotMatch(profiles, new RegExp(`\\b${kind}: *\\{|\\b${kind}: *'`), `profiles.ts lists ${kind}`);
});
