/**
 * The thin CLI (src/cli/thin.ts → dist/cli.js) stays thin: its module graph, as esbuild bundles
 * it, holds no zod, sql.js, markdown-it or simple-git, and nothing of the engine, the store, git,
 * agents or the host. Its command table is a part of the full CLI's, the very same specs.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { build } from 'esbuild';
import { commandGroups, commandTable } from '../../../src/cli/commands';
import { routableCommands, routableGroups } from '../../../src/cli/commands/routable';

const root = join(__dirname, '..', '..', '..');

/** Paths (relative to the repository, as esbuild's metafile names them) the thin CLI must not load. */
const forbidden = [
  /(^|\/)node_modules\/zod\//,
  /(^|\/)node_modules\/sql\.js\//,
  /(^|\/)node_modules\/markdown-it\//,
  /(^|\/)node_modules\/simple-git\//,
  /^src\/engine\//,
  /^src\/infra\/db\//,
  /^src\/infra\/git\//,
  /^src\/infra\/agents\//,
  // src/host composes the owner; its endpointAccess.ts only re-exports the light endpoint and path modules.
  /^src\/host\/(?!endpointAccess\.ts$)/,
  /^src\/cli\/main\.ts$/,
];

describe('thin CLI bundle', () => {
  it('loads no zod, sql.js, engine or store, and nothing but Node built-ins from outside src', async () => {
    const bundled = await build({
      entryPoints: ['src/cli/thin.ts'],
      absWorkingDir: root,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(bundled.metafile.inputs);
    assert.ok(inputs.includes('src/cli/thin.ts') && inputs.includes('src/cli/format.ts'), `unexpected graph: ${inputs.join(', ')}`);
    const loaded = inputs.filter((input) => forbidden.some((pattern) => pattern.test(input)));
    assert.deepEqual(loaded, [], 'the thin CLI must not bundle these');
    assert.deepEqual(
      inputs.filter((input) => !input.startsWith('src/')),
      [],
      'only sources of this project (and Node built-ins, which are not inputs)',
    );
  });

  it('routes only engine commands of the full table, with the same specs and command groups', () => {
    for (const spec of routableCommands) {
      assert.equal(spec.kind, 'engine');
      assert.ok(commandTable.includes(spec), `${spec.name} is not the full CLI's own spec`);
    }
    for (const group of routableGroups) assert.ok(commandGroups.has(group), group);
    const names = routableCommands.map((spec) => spec.name);
    for (const name of ['heartbeat', 'submit', 'fail', 'status', 'task add', 'worker list', 'send', 'poll', 'ack', 'usage'])
      assert.ok(names.includes(name), `${name} should be routable`);
    for (const name of ['worker add', 'chain add', 'init', 'serve', 'hook', 'wait'])
      assert.ok(!names.includes(name), `${name} is the full CLI's`);
  });
});
