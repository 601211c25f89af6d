/**
 * The task branch template (`foreman.branchTemplate`, default `{worker}/{task}`): the one reading of
 * its placeholders. The picker fills it in TypeScript, the claim statement in SQL (the task id is
 * only known there), and git checks the name it makes (infra/git/names.ts); all three split it here.
 */

/** Seed 000: one branch per worker and task. */
export const defaultBranchTemplate = '{worker}/{task}';

/** A piece of a template: a placeholder, or literal text between them. */
export type BranchTemplatePart = { readonly kind: 'worker' | 'task' } | { readonly kind: 'literal'; readonly text: string };

/** The template's pieces in order, empty literals left out. */
export function branchTemplateParts(template: string): BranchTemplatePart[] {
  return template
    .split(/(\{worker\}|\{task\})/)
    .filter((part) => part !== '')
    .map((part) => (part === '{worker}' ? { kind: 'worker' } : part === '{task}' ? { kind: 'task' } : { kind: 'literal', text: part }));
}

/** The text of a template besides its placeholders (what the template check looks at). */
export function branchTemplateLiteral(template: string): string {
  return branchTemplateParts(template)
    .map((part) => (part.kind === 'literal' ? part.text : ''))
    .join('');
}

/** The branch a template names for a worker's task; the ids must already be checked ones. */
export function fillBranchTemplate(template: string, workerId: string, taskId: string): string {
  return branchTemplateParts(template)
    .map((part) => (part.kind === 'literal' ? part.text : part.kind === 'worker' ? workerId : taskId))
    .join('');
}
