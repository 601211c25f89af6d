import type { z } from 'zod';

/**
 * zod's issues in words that name what was wrong, for every boundary that parses: a request, a
 * settings file, a line of a log.
 */

/**
 * Formats zod issues as "field: rule; field: rule", naming what was wrong. `whole` names the thing
 * itself where an issue is about all of it (an unknown key): a request, a settings file. `known` is
 * added to an unknown key's rule: what the caller may write instead.
 */
export function describeIssues(error: z.ZodError, whole = 'request', known?: readonly string[]): string {
  return error.issues.map((issue) => describeIssue(issue, issue.path.length ? issue.path.join('.') : whole, known)).join('; ');
}

/** One issue, after `where` (a setting's or a field's path): an unknown key with the known ones, a bound in words. */
export function describeIssue(issue: z.core.$ZodIssue, where: string, known?: readonly string[]): string {
  if (issue.code !== 'unrecognized_keys') return `${where}: ${plainRule(issue)}`;
  const keys = issue.keys.map((key) => `"${key}"`).join(', ');
  return `${where}: unknown ${issue.keys.length === 1 ? 'key' : 'keys'} ${keys}${known ? `; known: ${known.join(', ')}` : ''}`;
}

const units: Partial<Record<string, string>> = { string: ' characters', array: ' items', set: ' items', file: ' bytes' };

/**
 * A bound a schema gave no words of its own ("limit: must be at least 1"), said in words rather than as
 * zod's default ("Too small: expected number to be >=1"); every other message as the schema wrote it.
 */
function plainRule(issue: z.core.$ZodIssue): string {
  if (issue.code !== 'too_small' && issue.code !== 'too_big') return issue.message;
  if (!/^Too (small|big)/.test(issue.message)) return issue.message;
  const small = issue.code === 'too_small';
  const bound = Number(small ? issue.minimum : issue.maximum);
  const unit = units[issue.origin] ?? '';
  if (issue.inclusive === false) return `must be ${small ? 'more' : 'less'} than ${bound}${unit}`;
  return `must be at ${small ? 'least' : 'most'} ${bound}${unit}`;
}
