/** Agents' edits reach the overlap check as a heartbeat's `touched` files (docs/overlaps.md). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCommand } from '../../../src/core/requests';
import { reportsOf } from '../../../src/infra/agents/eventReports';
import { claudeParser } from '../../../src/infra/agents/kinds/claudeStream';
import { codexParser } from '../../../src/infra/agents/kinds/codex';

const line = (value: unknown) => JSON.stringify(value);

test("Claude Code's Edit, Write, MultiEdit and NotebookEdit name their files; other tools none", () => {
  const tool = (name: string, input: Record<string, unknown>) =>
    line({ type: 'assistant', message: { content: [{ type: 'tool_use', id: name, name, input }] } });
  const events = [
    tool('Edit', { file_path: '/wt/src/a.ts', old_string: 'x', new_string: 'y' }),
    tool('Write', { file_path: 'b.ts', content: '' }),
    tool('MultiEdit', { file_path: '/wt/c.ts', edits: [] }),
    tool('NotebookEdit', { notebook_path: '/wt/n.ipynb', new_source: '' }),
    tool('Read', { file_path: '/wt/d.ts' }),
    tool('Bash', { command: 'sed -i s/a/b/ e.ts' }),
  ].flatMap((text) => claudeParser(false).line(text));
  assert.deepEqual(
    events.map((event) => (event.type === 'tool' ? [event.name, event.files ?? []] : [])),
    [
      ['Edit', ['/wt/src/a.ts']],
      ['Write', ['b.ts']],
      ['MultiEdit', ['/wt/c.ts']],
      ['NotebookEdit', ['/wt/n.ipynb']],
      ['Read', []],
      ['Bash', []],
    ],
  );
});

test("Codex's file_change names every path of its patch", () => {
  const events = codexParser(false).line(
    line({
      type: 'item.completed',
      item: {
        id: 'i1',
        type: 'file_change',
        status: 'completed',
        changes: [
          { path: '/wt/a.ts', kind: 'update' },
          { path: '/wt/b, c.ts', kind: 'add' },
        ],
      },
    }),
  );
  const tool = events.find((event) => event.type === 'tool');
  assert.deepEqual(tool?.type === 'tool' ? tool.files : undefined, ['/wt/a.ts', '/wt/b, c.ts']);
});

test('a batch of edit events becomes one heartbeat with every touched file, which the request contract takes', () => {
  const requests = reportsOf({ workerId: 'ada', attempt: 1, kind: 'claude' }, [
    { type: 'tool', at: 1, name: 'Edit', detail: '/wt/a.ts', files: ['/wt/a.ts'] },
    { type: 'tool', at: 2, name: 'Bash', detail: 'npm test' },
    { type: 'tool', at: 3, name: 'Write', detail: '/wt/b.ts', files: ['/wt/b.ts', '/wt/a.ts'] },
  ]);
  assert.deepEqual(
    requests.map((request) => [request.command, request.args]),
    [['heartbeat', { worker: 'ada', attempt: 1, status: 'working', activity: 'Write: /wt/b.ts', touched: ['/wt/a.ts', '/wt/b.ts'] }]],
  );
  const parsed = parseCommand('heartbeat', { worker: 'ada', touched: ['/wt/a.ts'] });
  assert.ok(parsed.ok && parsed.request.args.touched?.[0] === '/wt/a.ts');
  const tooMany = parseCommand('heartbeat', { worker: 'ada', touched: Array.from({ length: 51 }, (_, i) => `f${i}`) });
  assert.ok(!tooMany.ok && /at most 50 touched files/.test(tooMany.message));
  const badPaths = parseCommand('task.add', { title: 'T', paths: Array.from({ length: 101 }, (_, i) => `f${i}`) });
  assert.ok(!badPaths.ok && /at most 100 paths/.test(badPaths.message));
  for (const outside of ['../../etc/passwd', '/etc/passwd', 'src/../../x']) {
    const refused = parseCommand('task.add', { title: 'T', paths: [outside] });
    assert.ok(!refused.ok && /stays inside it/.test(refused.message), outside);
  }
  assert.ok(parseCommand('task.add', { title: 'T', paths: ['src/a.ts', 'docs/b.md'] }).ok);
});
