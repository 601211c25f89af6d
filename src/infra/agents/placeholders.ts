/**
 * Placeholder substitution for agent argv (ARCHITECTURE §6). Values go INSIDE the argv element
 * that names them and nowhere else: an element is never split or joined, and nothing is handed to
 * a shell, so a prompt holding spaces, quotes or `$(…)` reaches the agent as literal text.
 */
import { type Result, invalid, ok } from '../../core/result';

/** Every placeholder an agent profile may use. */
export const placeholderNames = ['prompt', 'promptFile', 'taskId', 'workerId', 'branch', 'worktree', 'attempt'] as const;

export type PlaceholderName = (typeof placeholderNames)[number];

/** The values for one launch; a placeholder without a value may not be used. */
export type PlaceholderValues = Partial<Record<PlaceholderName, string>>;

/**
 * `{name}` with an identifier inside. Braces around anything else (`{"a":1}`, `{}`, `{ x }`) are
 * literal text, so JSON-ish arguments pass through untouched.
 */
const placeholderPattern = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

function isPlaceholderName(name: string): name is PlaceholderName {
  return (placeholderNames as readonly string[]).includes(name);
}

/** The placeholders an argv template uses, known or not, in order of first use. */
export function placeholdersIn(args: readonly string[]): string[] {
  const found = new Set<string>();
  for (const arg of args) for (const [, name] of arg.matchAll(placeholderPattern)) if (name !== undefined) found.add(name);
  return [...found];
}

/**
 * Substitutes placeholders element by element, in one pass over the template: a substituted value
 * is never scanned again, so a prompt that itself contains `{taskId}` stays literal. Refuses an
 * unknown placeholder or one without a value, naming it, before anything is launched.
 */
export function expandPlaceholders(args: readonly string[], values: PlaceholderValues): Result<string[]> {
  const substitutes = new Map<string, string>();
  for (const name of placeholdersIn(args)) {
    if (!isPlaceholderName(name)) {
      return invalid(
        'unknownPlaceholder',
        `The agent argument placeholder '{${name}}' is unknown; use one of ${placeholderNames.map((known) => `{${known}}`).join(', ')}.`,
        {
          placeholder: name,
        },
      );
    }
    const value = values[name];
    if (value === undefined) {
      return invalid('missingPlaceholderValue', `The agent argument placeholder '{${name}}' has no value for this launch.`, {
        placeholder: name,
      });
    }
    substitutes.set(name, value);
  }
  // Every name the pattern matches was checked above, so each finds its value.
  return ok(args.map((arg) => arg.replace(placeholderPattern, (whole, name: string) => substitutes.get(name) ?? whole)));
}
