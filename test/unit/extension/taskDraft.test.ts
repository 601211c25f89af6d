import assert from 'node:assert/strict';
import { test } from 'node:test';
import { draftHint as hintIn, draftText as textIn, parseTaskDraft as parseIn } from '../../../src/extension/commands/taskDraft';
import { english } from '../../../src/extension/localizer';

const draftHint = hintIn(english);
const draftText = (title: string) => textIn(title, draftHint);
const parseTaskDraft = (text: string, fallbackTitle: string) => parseIn(text, fallbackTitle, draftHint);

test('a draft opens with the hint and the title as its heading, and parses back to an empty prompt', () => {
  assert.equal(draftText('Write the docs'), `# Write the docs\n${draftHint}\n`);
  assert.deepEqual(parseTaskDraft(draftText('Write the docs'), 'unused'), { title: 'Write the docs', prompt: '' });
});

test('every prompt line is kept, inner blank lines and indentation included; the hint is not sent', () => {
  const text = `# Notes\n${draftHint}\n\nwrite notes.md one\n\n  - nested\n\`\`\`\ncode\n\`\`\`\n\n`;
  assert.deepEqual(parseTaskDraft(text, 'unused'), { title: 'Notes', prompt: 'write notes.md one\n\n  - nested\n```\ncode\n```' });
});

test('an edited heading renames the task; a removed heading keeps the title asked for', () => {
  assert.equal(parseTaskDraft('# Better title ##\nbody', 'Asked').title, 'Better title');
  assert.deepEqual(parseTaskDraft('just a prompt\nsecond line', 'Asked'), { title: 'Asked', prompt: 'just a prompt\nsecond line' });
  // Only a level-1 heading names the task; a deeper one is part of the prompt.
  assert.deepEqual(parseTaskDraft('## Steps\nbody', 'Asked'), { title: 'Asked', prompt: '## Steps\nbody' });
});
