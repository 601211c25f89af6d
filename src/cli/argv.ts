/**
 * A small argv parser, written by hand so the CLI has no parsing dependency: positionals, and
 * `--flag value`, `--flag=value` or boolean `--flag`, against a declared set of flags.
 * Everything after `--` is positional (for titles that start with a dash). A string flag followed
 * by another known flag (`--prompt --manual`) is refused rather than swallowing it as its value;
 * `--prompt=--manual` passes such text on purpose.
 */
import { type Result, invalid, ok } from '../core/result';

export type FlagKind = 'string' | 'boolean';
export type FlagSpec = Readonly<Record<string, FlagKind>>;

export interface ParsedArgv {
  readonly positionals: readonly string[];
  readonly flags: ReadonlyMap<string, string | true>;
}

/** Flags every command takes; `--request-id` is added for commands that change state. */
export const globalFlags: FlagSpec = { dir: 'string', json: 'boolean', help: 'boolean' };

export function parseArgv(tokens: readonly string[], spec: FlagSpec): Result<ParsedArgv> {
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  // One iterator for the loop and the values it takes, so a flag's value is consumed, not re-read.
  const remaining = tokens.values();
  for (const token of remaining) {
    if (token === '--') {
      positionals.push(...remaining);
      break;
    }
    if (token === '-h') {
      flags.set('help', true);
      continue;
    }
    if (!token.startsWith('--') || token === '-') {
      // A negative number is a value ("ack me -1" gets the rule for seq), any other dash word a mistake.
      if (token.startsWith('-') && token !== '-' && !/^-\d/.test(token))
        return invalid('unknownFlag', `${token}: unknown option; flags are written --name; see \`foreman help\`.`);
      positionals.push(token);
      continue;
    }
    const equals = token.indexOf('=');
    const name = token.slice(2, equals >= 0 ? equals : undefined);
    const kind = spec[name];
    if (kind === undefined)
      return invalid('unknownFlag', `--${name}: unknown option for this command; see \`foreman help\`.`, { flag: name });
    if (flags.has(name)) return invalid('repeatedFlag', `--${name}: given more than once.`, { flag: name });
    if (kind === 'boolean') {
      if (equals >= 0) return invalid('badFlag', `--${name}: takes no value.`, { flag: name });
      flags.set(name, true);
      continue;
    }
    const value = equals >= 0 ? token.slice(equals + 1) : nextToken(remaining);
    if (value === undefined) return invalid('missingValue', `--${name}: expected a value after it.`, { flag: name });
    if (equals < 0 && namesKnownFlag(value, spec)) {
      return invalid('missingValue', `--${name} needs a value; to pass text starting with -- use --${name}=${value}`, { flag: name });
    }
    flags.set(name, value);
  }
  return ok({ positionals, flags });
}

/** The iterator's next token, undefined at the end. */
export function nextToken(tokens: Iterator<string>): string | undefined {
  const next = tokens.next();
  return next.done ? undefined : next.value;
}

/** `--manual` or `--dir=x` when `manual` or `dir` is declared; `--` itself ends the flags, so it counts too. */
function namesKnownFlag(token: string, spec: FlagSpec): boolean {
  if (token === '--') return true;
  if (!token.startsWith('--')) return false;
  const equals = token.indexOf('=');
  return spec[token.slice(2, equals >= 0 ? equals : undefined)] !== undefined;
}

/** The text of a string flag, undefined when absent. */
export function stringFlag(argv: ParsedArgv, name: string): string | undefined {
  const value = argv.flags.get(name);
  return typeof value === 'string' ? value : undefined;
}

export function booleanFlag(argv: ParsedArgv, name: string): boolean {
  return argv.flags.get(name) === true;
}

/** Strict integers: "3" yes; "3.0", "3abc", "", " 3" no. */
export function parseInteger(field: string, text: string): Result<number> {
  const value = Number(text);
  if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(value))
    return invalid('notAnInteger', `${field}: expected an integer, got '${text}'.`, { field });
  return ok(value);
}

/** Strict decimal numbers ("0.5", "1", "1e-3"); no hex, no blanks, no Infinity. */
export function parseNumber(field: string, text: string): Result<number> {
  const value = Number(text);
  if (!/^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(text) || !Number.isFinite(value)) {
    return invalid('notANumber', `${field}: expected a number, got '${text}'.`, { field });
  }
  return ok(value);
}

/** An optional integer flag; a bad one is named as typed (`--limit`). */
export function integerFlag(argv: ParsedArgv, name: string): Result<number | undefined> {
  const text = stringFlag(argv, name);
  return text === undefined ? ok(undefined) : parseInteger(`--${name}`, text);
}

/** An optional decimal flag (`parseNumber`); a bad one is named as typed (`--progress`). */
export function numberFlag(argv: ParsedArgv, name: string): Result<number | undefined> {
  const text = stringFlag(argv, name);
  return text === undefined ? ok(undefined) : parseNumber(`--${name}`, text);
}
