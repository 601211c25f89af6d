import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { installCliLink } from '../../../src/extension/cli/cliLink';

const roots: string[] = [];
after(() => roots.forEach((root) => fs.rmSync(root, { recursive: true, force: true })));

/** An installed extension's folder (`<publisher>.foreman-<version>/bin/foreman`) and a user bin folder. */
function layout(version = '0.1.0'): { cli: string; bin: string; root: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'foreman-cli-link-'));
  roots.push(root);
  const extension = path.join(root, 'extensions', `foreman-dev.foreman-${version}`);
  fs.mkdirSync(path.join(extension, 'bin'), { recursive: true });
  fs.writeFileSync(path.join(extension, 'package.json'), JSON.stringify({ name: 'foreman', version }));
  fs.writeFileSync(path.join(extension, 'bin', 'foreman'), '#!/bin/sh\n', { mode: 0o755 });
  return { cli: path.join(extension, 'bin', 'foreman'), bin: path.join(root, 'home', '.local', 'bin'), root };
}

describe('Install CLI on PATH (the link, without VS Code)', () => {
  it('links foreman into the user bin folder, creating it, and says whether that folder is on PATH', () => {
    const { cli, bin } = layout();
    const result = installCliLink(cli, bin, `/usr/bin${path.delimiter}/bin`);
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(fs.readlinkSync(path.join(bin, 'foreman')), cli);
    assert.equal(result.value.onPath, false);
    const again = installCliLink(cli, bin, `${bin}${path.delimiter}/usr/bin`);
    assert.ok(again.ok);
    assert.equal(again.value.onPath, true);
    assert.equal(again.value.replaced, false);
  });

  it("replaces an older Foreman's link, even a dangling one whose extension was removed", () => {
    const old = layout('0.0.9');
    const current = layout('0.1.0');
    fs.mkdirSync(current.bin, { recursive: true });
    fs.symlinkSync(old.cli, path.join(current.bin, 'foreman'));
    fs.rmSync(path.dirname(path.dirname(old.cli)), { recursive: true });
    const result = installCliLink(current.cli, current.bin, '');
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.value.replaced, true);
    assert.equal(fs.readlinkSync(path.join(current.bin, 'foreman')), current.cli);
  });

  it("refuses to replace someone else's foreman (a file, or a link elsewhere) and leaves it as it was", () => {
    const { cli, bin, root } = layout();
    fs.mkdirSync(bin, { recursive: true });
    fs.writeFileSync(path.join(bin, 'foreman'), '#!/bin/sh\necho mine\n');
    const file = installCliLink(cli, bin, '');
    assert.ok(!file.ok && file.code === 'foreignCommand', JSON.stringify(file));
    assert.match(file.message, /already exists and is not Foreman's link; remove it first/);
    assert.equal(fs.readFileSync(path.join(bin, 'foreman'), 'utf8'), '#!/bin/sh\necho mine\n');

    fs.rmSync(path.join(bin, 'foreman'));
    const other = path.join(root, 'other-foreman');
    fs.writeFileSync(other, '');
    fs.symlinkSync(other, path.join(bin, 'foreman'));
    const link = installCliLink(cli, bin, '');
    assert.ok(!link.ok && link.code === 'foreignCommand');
    assert.match(link.message, /not a Foreman extension's CLI/);
    assert.equal(fs.readlinkSync(path.join(bin, 'foreman')), other);
  });
});
