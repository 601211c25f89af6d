import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { profileAvailability } from '../../../src/infra/agents/availability';

const bin = mkdtempSync(join(tmpdir(), 'foreman-availability-'));
after(() => rmSync(bin, { recursive: true, force: true }));
writeFileSync(join(bin, 'claude'), '#!/bin/sh\n');
chmodSync(join(bin, 'claude'), 0o755);

test('a profile is found when its command is on PATH, and not found otherwise', () => {
  assert.deepEqual(profileAvailability('claude', {}, bin, { PATH: bin }), {
    name: 'claude',
    status: 'found',
    command: 'claude',
    path: join(bin, 'claude'),
  });
  assert.deepEqual(profileAvailability('codex', {}, bin, { PATH: bin }), { name: 'codex', status: 'notFound', command: 'codex' });
  assert.equal(profileAvailability('claude', {}, bin, { PATH: '/nonexistent' }).status, 'notFound');
});

test("a user profile's own env and command count, and an unknown profile says so", () => {
  assert.equal(
    profileAvailability('mine', { mine: { command: 'claude', env: { PATH: bin } } }, bin, { PATH: '/nonexistent' }).status,
    'found',
  );
  assert.equal(profileAvailability('mine', { mine: { command: './claude' } }, bin, {}).status, 'found', 'relative to the cwd');
  const unknown = profileAvailability('nosuch', {}, bin, { PATH: bin });
  assert.equal(unknown.status, 'invalid');
  assert.equal(unknown.status === 'invalid' ? unknown.code : '', 'unknownAgentProfile');
});
