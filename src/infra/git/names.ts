/**
 * Names Foreman gives to git: task branches and wip refs. Every name is checked twice: a cheap
 * synchronous check that refuses anything git might read as an option, a revision expression or a
 * lock file, and then `git check-ref-format --branch`, which is the authority (ARCHITECTURE §5).
 */
import type { SimpleGit } from 'simple-git';
import { branchTemplateLiteral, branchTemplateParts, fillBranchTemplate } from '../../core/branchTemplate';
import { idPattern } from '../../core/idPattern';
import { type Result, invalid, ok } from '../../core/result';
import { errorText, isGitFailure } from './gitClient';

export { defaultBranchTemplate } from '../../core/branchTemplate';

/** Literal text a branch template may contain besides its placeholders. */
const templateLiteralPattern = /^[A-Za-z0-9._/-]*$/;

const maxBranchLength = 200;

/** Every wip snapshot lives under this prefix: `refs/foreman/wip/<task>/<attempt>`. */
export const wipRefPrefix = 'refs/foreman/wip/';

export interface BranchVariables {
  readonly workerId: string;
  readonly taskId: string;
}

/** Refuses anything that is not a Foreman id, naming which id it was. */
export function checkId(kind: 'worker' | 'task', value: string): Result<string> {
  if (idPattern.test(value)) return ok(value);
  return invalid(
    kind === 'worker' ? 'invalidWorkerId' : 'invalidTaskId',
    `The ${kind} id '${printable(value)}' is not valid: use 1-63 lowercase letters, digits and '-', starting with a letter or digit.`,
    { id: value },
  );
}

/** Attempts are numbered from 1. */
export function checkAttempt(attempt: number): Result<number> {
  if (Number.isSafeInteger(attempt) && attempt >= 1) return ok(attempt);
  return invalid('invalidAttempt', `The attempt number '${String(attempt)}' is not valid: use a whole number from 1.`, { attempt });
}

/**
 * Why `name` cannot be a branch name, or undefined when it passes the cheap check. Stricter than
 * git in places (no spaces, no `@{`), never looser.
 */
export function branchNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'it is empty';
  if (name.length > maxBranchLength) return `it is longer than ${maxBranchLength} characters`;
  if (name.startsWith('-')) return "it starts with '-'";
  if (name.includes('..')) return "it contains '..'";
  if (name.includes('@{')) return "it contains '@{'";
  if (name === '@' || name === 'HEAD') return `'${name}' is reserved`;
  // Control characters, space and DEL, then the characters git gives a meaning in revisions.
  if ([...name].some((char) => char.charCodeAt(0) <= 0x20 || char.charCodeAt(0) === 0x7f))
    return 'it contains a space or a control character';
  if (/[~^:?*[\\]/.test(name)) return 'it contains one of ~ ^ : ? * [ \\';
  if (name.startsWith('/') || name.endsWith('/') || name.includes('//')) return "it has an empty part between '/'";
  if (name.endsWith('.')) return "it ends with '.'";
  for (const part of name.split('/')) {
    if (part.startsWith('.')) return "a part starts with '.'";
    if (part.endsWith('.lock')) return "a part ends with '.lock'";
  }
  return undefined;
}

/**
 * The branch for a worker's task from a template such as `{worker}/{task}` or `ai/{task}`. Only the
 * placeholders `{worker}` and `{task}` are allowed and `{task}` is required (without it two tasks
 * of one worker would share a branch). Synchronous; `validateBranchName` then asks git.
 */
export function branchFor(template: string, variables: BranchVariables): Result<string> {
  const worker = checkId('worker', variables.workerId);
  if (!worker.ok) return worker;
  const task = checkId('task', variables.taskId);
  if (!task.ok) return task;
  const templateCheck = checkBranchTemplate(template);
  if (!templateCheck.ok) return templateCheck;
  const name = fillBranchTemplate(template, worker.value, task.value);
  const problem = branchNameProblem(name);
  if (problem !== undefined) {
    return invalid(
      'invalidBranchName',
      `The branch name '${printable(name)}' made from template '${printable(template)}' is not valid: ${problem}.`,
      { name, template },
    );
  }
  return ok(name);
}

/** Refuses templates with unknown placeholders, odd characters or no `{task}`. */
export function checkBranchTemplate(template: string): Result<string> {
  const literal = branchTemplateLiteral(template);
  if (!branchTemplateParts(template).some((part) => part.kind === 'task')) {
    return invalid('invalidBranchTemplate', `The branch template '${printable(template)}' must contain {task}.`, { template });
  }
  if (!templateLiteralPattern.test(literal)) {
    return invalid(
      'invalidBranchTemplate',
      `The branch template '${printable(template)}' may contain only {worker}, {task}, letters, digits and . _ / -.`,
      { template },
    );
  }
  if (template.length > maxBranchLength) {
    return invalid('invalidBranchTemplate', `The branch template is longer than ${maxBranchLength} characters.`, { template });
  }
  return ok(template);
}

/**
 * The cheap check, then `git check-ref-format --branch`, which knows every rule of the installed
 * git. The cheap check runs first so that nothing git could read as an option ever reaches it.
 */
export async function validateBranchName(git: SimpleGit, name: string): Promise<Result<string>> {
  const problem = branchNameProblem(name);
  if (problem !== undefined) {
    return invalid('invalidBranchName', `'${printable(name)}' is not a valid branch name: ${problem}.`, { name });
  }
  try {
    const normalized = (await git.raw(['check-ref-format', '--branch', name])).trim();
    // --branch expands shorthands such as @{-1}; anything but an echo means it was not a plain name.
    if (normalized !== name) {
      return invalid('invalidBranchName', `'${printable(name)}' is not a plain branch name.`, { name });
    }
    return ok(name);
  } catch (error) {
    if (!isGitFailure(error)) throw error;
    return invalid('invalidBranchName', `'${printable(name)}' is not a valid branch name: ${errorText(error)}`, { name });
  }
}

/** `refs/foreman/wip/<task>/<attempt>` (ARCHITECTURE §5). */
export function wipRefFor(taskId: string, attempt: number): Result<string> {
  const task = checkId('task', taskId);
  if (!task.ok) return task;
  const attemptCheck = checkAttempt(attempt);
  if (!attemptCheck.ok) return attemptCheck;
  return ok(`${wipRefPrefix}${task.value}/${attemptCheck.value}`);
}

/** The task and attempt a wip ref names, or undefined for anything else. */
export function parseWipRef(ref: string): { taskId: string; attempt: number } | undefined {
  if (!ref.startsWith(wipRefPrefix)) return undefined;
  const parts = ref.slice(wipRefPrefix.length).split('/');
  if (parts.length !== 2) return undefined;
  const [taskId, attemptText] = parts as [string, string];
  if (!idPattern.test(taskId) || !/^[1-9][0-9]{0,8}$/.test(attemptText)) return undefined;
  return { taskId, attempt: Number(attemptText) };
}

/** Shortens and escapes hostile input so that a refusal message stays readable on one line. */
function printable(value: string): string {
  const escaped = JSON.stringify(value).slice(1, -1);
  return escaped.length > 80 ? `${escaped.slice(0, 77)}...` : escaped;
}
