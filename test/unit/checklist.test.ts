import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseChainJson, parseChecklist } from '../../src/core/checklist';

describe('checklist parsing', () => {
  it('reads items in order with indented prompts and the first heading as the name', () => {
    const parsed = parseChecklist(
      [
        '# Release v2',
        '',
        '- [ ] Bump version',
        '  edit package.json',
        '- [x] Changelog',
        '1. Tag it',
        '',
        '## Notes',
        'trailing prose',
      ].join('\n'),
    );
    assert.deepEqual(parsed, {
      ok: true,
      value: {
        name: 'Release v2',
        steps: [{ title: 'Bump version', prompt: 'edit package.json' }, { title: 'Changelog' }, { title: 'Tag it' }],
      },
    });
  });

  it('keeps an unindented code fence under an item in its prompt, and a list line inside it is code', () => {
    const fence = '```';
    const parsed = parseChecklist(
      ['- [ ] Add the test script', fence + 'sh', 'npm test', '- not a task', '    indented code', fence, '- [ ] Document it'].join('\n'),
    );
    assert.ok(parsed.ok, !parsed.ok ? parsed.message : '');
    assert.deepEqual(parsed.value.steps, [
      { title: 'Add the test script', prompt: [fence + 'sh', 'npm test', '- not a task', '    indented code', fence].join('\n') },
      { title: 'Document it' },
    ]);
  });

  it('keeps an indented fence whole, dedented to the item, with its blank lines and indentation', () => {
    const fence = '```';
    const parsed = parseChecklist(
      ['1. Write main', '   ' + fence + 'ts', '   if (x) {', '', '     run();', '   }', '   ' + fence].join('\n'),
    );
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.value.steps, [
      { title: 'Write main', prompt: [fence + 'ts', 'if (x) {', '', '  run();', '}', fence].join('\n') },
    ]);
  });

  it('reads a heading as a heading: the name, and the end of the item before it', () => {
    const parsed = parseChecklist(
      ['Intro prose is no task.', '', '## Plan', '- one', 'more about one', '', '# Later', 'not a prompt', '- two'].join('\n'),
    );
    assert.deepEqual(parsed, {
      ok: true,
      value: { name: 'Plan', steps: [{ title: 'one', prompt: 'more about one' }, { title: 'two' }] },
    });
  });

  it('takes deeper nesting and ordered sub-lists as the prompt, and lists in a quote as prose', () => {
    const parsed = parseChecklist(
      ['- parent', '  1. first', '     - deeper', '  2. second', '', '> - quoted item', '- [X] next'].join('\n'),
    );
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.value.steps, [
      { title: 'parent', prompt: ['1. first', '   - deeper', '2. second', '', '> - quoted item'].join('\n') },
      { title: 'next' },
    ]);
  });

  it('finds no task in a document whose only list is inside a code fence', () => {
    const parsed = parseChecklist(['# Plan', '```', '- [ ] not a task', '```'].join('\n'));
    assert.ok(!parsed.ok && parsed.code === 'emptyChecklist');
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
