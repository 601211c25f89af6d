// UI test: line comments on Show Changes reach the agent (issue 32 item 3). The real Claude Code
// CLI (devDependency), run by Foreman in a real VS Code window (code-server + Debian chromium),
// against the scripted model server (the only stand-in: the model is out of reach offline).
//   1. ada (profile `claude`) writes greeting.js and is in review;
//   2. Show Changes opens its diff; two comments are added on two of its lines through the editor's
//      comment gutter and comment box;
//   3. Send Review to Agent (the thread's title action) sends one note: Claude's resumed session
//      gets it, quoting both lines with both comments;
//   4. the next attempt changes one of the two lines: its thread shows resolved, the other stays open.
// Screenshots: test-results/review-comments-*.png.
// Run: node --import tsx --test test/e2e/reviewComments.e2e.ts   (after node scripts/vscode/provision.mjs)
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Locator } from 'playwright-core';
import { pollUntil } from '../support/pollUntil';
import type { RecordedRequest, ScriptedModel } from '../support/scriptedModel';
import { openRealClaudeWorkbench, type RealClaudeWorkbench } from './support/realClaudeWorkbench';
import type { TestRepo } from './support/repo';
import type { Workbench } from './support/workbench';

const greeting = [
  'export function greet(name) {',
  "  return 'Hello, ' + name;",
  '}',
  '',
  'export const shout = (name) => greet(name).toUpperCase();',
  '',
].join('\n');
const firstComment = 'Use a template literal here.';
const secondComment = 'Name this loud, not shout.';

let opened: RealClaudeWorkbench | undefined;
let model: ScriptedModel;
let repo: TestRepo;
let workbench: Workbench;
const cli = (...args: string[]): string => repo.foreman(...args);
const adaRow = () => workbench.treeRow('Workers', 'ada').locator('.label-description');

before(
  async () => {
    opened = await openRealClaudeWorkbench({
      name: 'review-comments',
      repo: { folder: 'hello', files: { 'README.md': '# Hello\n' } },
      // A resolved thread stays open on screen, so the test can read its state.
      settings: { 'comments.collapseOnResolve': false },
    });
    ({ model, repo, workbench } = opened);
  },
  { timeout: 180_000 },
);

after(async () => {
  await opened?.close();
});

/** The text of every user turn in a model request (Anthropic messages). */
function userTexts(request: RecordedRequest): string[] {
  const body = request.body as { messages?: Array<{ role: string; content: unknown }> } | undefined;
  return (body?.messages ?? [])
    .filter((message) => message.role === 'user')
    .map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content)));
}

/** Opens the comment box on the line of `editor` showing `text`, through the gutter, and adds `comment`. */
async function commentOnLine(editor: Locator, text: string, comment: string): Promise<void> {
  const page = workbench.page;
  const line = editor.locator('.view-line', { hasText: text }).first();
  // The first thread's widget pushes the lines below it down, maybe out of view.
  await line.scrollIntoViewIfNeeded();
  // Monaco redraws its lines (a line element may be replaced between two reads): read the box
  // again until the line is on screen.
  let lineBox: Awaited<ReturnType<Locator['boundingBox']>> = null;
  for (const deadline = Date.now() + 15_000; !lineBox && Date.now() < deadline;) {
    await line.hover();
    lineBox = await line.boundingBox();
  }
  assert.ok(lineBox, 'the line is on screen');
  // The commenting range's "+" sits in the line decorations, at the gutter's right edge.
  const glyph = editor.locator('.margin-view-overlays .comment-diff-added').first();
  await glyph.waitFor({ timeout: 15_000 });
  const glyphBox = await glyph.boundingBox();
  assert.ok(glyphBox);
  await page.mouse.move(glyphBox.x + glyphBox.width / 2, lineBox.y + lineBox.height / 2);
  await page.mouse.click(glyphBox.x + glyphBox.width / 2, lineBox.y + lineBox.height / 2);
  const widget = page
    .locator('.review-widget')
    .filter({ hasNot: page.locator('.review-comment') })
    .last();
  await widget.locator('.comment-form').waitFor({ timeout: 15_000 });
  await widget.locator('.comment-form .monaco-editor').click();
  await page.keyboard.type(comment);
  // The comment box's buttons are the `comments/commentThread/context` menu: Foreman's own command.
  await widget.locator('.form-actions .monaco-button', { hasText: 'Add Review Comment' }).click();
  await page.locator('.review-widget .review-comment', { hasText: comment }).waitFor({ timeout: 15_000 });
}

test('Claude Code writes greeting.js and its task is in review', { timeout: 150_000 }, async () => {
  await workbench.statusBarItem('foreman.liveness').waitFor({ state: 'visible', timeout: 90_000 });
  await workbench.clickActivityBar('Foreman');
  await workbench.treeRow('Workers', 'ada').waitFor();
  model.play([{ write: { path: 'greeting.js', content: greeting } }, { text: 'Added greeting.js.' }]);
  cli('task', 'add', 'Greet people', '--id', 'greet', '--prompt', 'Write greeting.js with greet and shout.');
  await adaRow()
    .filter({ hasText: /^IN_REVIEW · Greet people/ })
    .waitFor({ timeout: 90_000 });
  assert.equal(repo.git('show', 'ada/greet:greeting.js'), greeting.trimEnd());
});

test(
  'two line comments on Show Changes, sent to the agent, reach its resumed session naming both lines',
  { timeout: 150_000 },
  async () => {
    const page = workbench.page;
    await workbench.clickRowAction('Workers', 'ada', 'Show Changes');
    const entry = page.locator('.multiDiffEntry').filter({ hasText: 'greeting.js' });
    await entry.waitFor({ timeout: 30_000 });
    // The worktree side: the comment widgets open inside it hold editors of their own.
    const editor = entry.locator('.editor.modified').first();
    await editor.locator('.view-line', { hasText: 'greet(name).toUpperCase()' }).waitFor({ timeout: 30_000 });
    await commentOnLine(editor, "return 'Hello, ' + name;", firstComment);
    await commentOnLine(editor, 'greet(name).toUpperCase()', secondComment);
    await page.locator('.review-widget .head', { hasText: 'Not sent yet' }).nth(1).waitFor();
    await workbench.screenshot('1-two-comments');

    // The follow-up: line 2 rewritten, line 5 left alone.
    const requestsBefore = model.requests.length;
    model.play([
      { write: { path: 'greeting.js', content: greeting.replace("'Hello, ' + name", '`Hello, ${name}`') } },
      { text: 'Used a template literal.' },
    ]);
    const thread = page.locator('.review-widget').filter({ hasText: firstComment });
    await thread.locator('.head').hover();
    await thread.locator('.head .action-label[aria-label^="Send Review to Agent"]').click();
    await workbench
      .notifications()
      .filter({ hasText: /sent 2 review comment\(s\) on Greet people \(greet\) to ada/ })
      .waitFor({ timeout: 20_000 });

    // ada was in review already: wait for the resumed run to play the script out, then for its review.
    const followUp = await pollUntil(() => model.requests.slice(requestsBefore).find((request) => request.mainLoop), {
      what: 'the agent to ask the model again after the review was sent',
      timeoutMs: 120_000,
    });
    await pollUntil(() => model.remaining() === 0, { what: 'the follow-up script to be played', timeoutMs: 120_000 });
    await adaRow()
      .filter({ hasText: /^IN_REVIEW · Greet people/ })
      .waitFor({ timeout: 120_000 });
    const texts = userTexts(followUp);
    const note = texts.find((text) => text.includes('Review of your changes'));
    assert.ok(note, `the review note reached the agent: ${texts.join('\n---\n').slice(0, 2000)}`);
    assert.match(note, /greeting\.js, line 2:/);
    assert.match(note, /greeting\.js, line 5:/);
    assert.ok(note.includes(firstComment) && note.includes(secondComment), 'both comments are in the note');
    assert.ok(note.includes("2 |   return 'Hello, ' + name;"), 'the code of line 2 is quoted');
    // The same session goes on: its earlier turn (the task's prompt) comes before the note.
    assert.match(JSON.stringify(followUp.body), /Write greeting\.js with greet and shout\.[\s\S]*Review of your changes/);
  },
);

test('the next attempt resolves the thread whose line it changed; the other stays open', { timeout: 60_000 }, async () => {
  const page = workbench.page;
  const resolved = page.locator('.review-widget').filter({ hasText: firstComment });
  const open = page.locator('.review-widget').filter({ hasText: secondComment });
  await resolved.locator('.head', { hasText: 'Resolved: the next attempt changed these lines' }).waitFor({ timeout: 30_000 });
  await open.locator('.head', { hasText: 'Still open: the next attempt left these lines alone' }).waitFor({ timeout: 30_000 });
  await workbench.screenshot('2-resolved-and-open');
});
