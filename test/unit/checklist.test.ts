import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseChainJson, parseChecklist } from '../../src/core/checklist';

describe('checklist parsing', () => {
  it('reads items in order with indented prompts and the first heading as the name', () => {
    const parsed = parseChecklist(
      ['# Release v2', '', '- [ ] Bump version', '  edit package.json', '- [x] Changelog', '1. Tag it', 'trailing prose'].join('\n'),
    );
    assert.deepEqual(parsed, {
      ok: true,
      value: {
        name: 'Release v2',
        steps: [{ title: 'Bump version', prompt: 'edit package.json' }, { title: 'Changelog' }, { title: 'Tag it' }],
      },
    });
  });

  it('treats nested items as prompt lines of their parent', () => {
    const parsed = parseChecklist('- parent\n  - sub one\n  - sub two\n- next');
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.value.steps, [{ title: 'parent', prompt: '- sub one\n- sub two' }, { title: 'next' }]);
  });

  it('refuses an empty checklist and names a bad line', () => {
    assert.ok(!parseChecklist('just prose').ok);
    const long = parseChecklist(`- ok\n- ${'x'.repeat(300)}`);
    assert.ok(!long.ok && long.message.startsWith('line 2: a title is at most 200 characters'));
  });

  it('reads JSON chains and explains a bad one', () => {
    assert.deepEqual(parseChainJson('[{"title":"a"},{"title":"b","prompt":"p"}]'), {
      ok: true,
      value: { name: undefined, steps: [{ title: 'a' }, { title: 'b', prompt: 'p' }] },
    });
    const bad = parseChainJson('{"tasks":[{"name":"a"}]}');
    assert.ok(!bad.ok && bad.message.startsWith('tasks.0.title:'));
    assert.ok(!parseChainJson('{oops').ok);
  });
});
