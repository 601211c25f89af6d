/**
 * Foreman's one reader of shell command lines. The permission gate (claudePermissions.ts) splits a
 * command into the simple commands it runs; activity views unwrap an agent's shell wrapper
 * (`unwrapShellCommand`). Claude Code matches its `Bash(...)` rules part by part, so a gate that
 * matched the whole string would be looser than Claude: with `Bash(npm test:*)` allowed,
 * `npm test && curl x` must not pass. Every part counts: those joined by `&&`, `||`, `;`, `|`, `&`,
 * newlines, inside subshells `( )`, command substitutions `$( )` and backticks, and process
 * substitutions `<( )`.
 *
 * This is not a shell: it reads what it needs and refuses (ok: false) what it does not — a heredoc,
 * an unterminated quote, an unbalanced parenthesis — so the caller asks a person instead of guessing.
 */

/** One simple command. */
export interface CommandPart {
  /** Its words with quotes and escapes removed (assignments like `A=1` stay words). */
  readonly words: readonly string[];
  /** Targets of its redirections (`> out.txt` → `out.txt`); file descriptors (`2>&1`) are not targets. */
  readonly redirects: readonly string[];
  /** Whether a word depends on the shell at run time ($VAR, ${…}, $( ), backticks): its text is not what runs. */
  readonly dynamic: boolean;
}

export type SplitCommand = { readonly ok: true; readonly parts: readonly CommandPart[] } | { readonly ok: false; readonly reason: string };

class Unreadable extends Error {}

const nameStart = /[A-Za-z_]/;
const specialParameter = /[0-9?@*#$!-]/;

class Splitter {
  private index = 0;
  readonly parts: CommandPart[] = [];

  constructor(private readonly text: string) {}

  /** Reads simple commands until the end, or until `closer` (which it consumes). */
  list(closer?: ')' | '`'): void {
    let words: string[] = [];
    let redirects: string[] = [];
    let dynamic = false;
    let word = '';
    let inWord = false;
    let quoted = false;
    let redirectNext: 'path' | 'fd' | undefined;
    const endWord = () => {
      if (!inWord) return;
      if (redirectNext === 'path') redirects.push(word);
      else if (redirectNext === undefined && !(words.length === 0 && !quoted && (word === '{' || word === '}'))) words.push(word);
      redirectNext = undefined;
      word = '';
      inWord = false;
      quoted = false;
    };
    const endPart = () => {
      endWord();
      if (redirectNext !== undefined) throw new Unreadable('a redirection without a target');
      if (words.length > 0 || redirects.length > 0) this.parts.push({ words, redirects, dynamic });
      words = [];
      redirects = [];
      dynamic = false;
    };
    const text = this.text;
    while (this.index < text.length) {
      const char = text.charAt(this.index);
      const next = text[this.index + 1];
      if (closer !== undefined && char === closer) {
        this.index += 1;
        endPart();
        return;
      }
      if (char === ' ' || char === '\t') {
        endWord();
        this.index += 1;
      } else if (char === '\n' || char === ';' || char === '|') {
        endPart();
        this.index += char === '|' && (next === '|' || next === '&') ? 2 : char === ';' && next === ';' ? 2 : 1;
      } else if (char === '&' && next !== '>') {
        endPart();
        this.index += next === '&' ? 2 : 1;
      } else if (char === '#' && !inWord) {
        while (this.index < text.length && text[this.index] !== '\n') this.index += 1;
      } else if (char === "'") {
        const end = text.indexOf("'", this.index + 1);
        if (end < 0) throw new Unreadable('an unterminated single quote');
        word += text.slice(this.index + 1, end);
        inWord = quoted = true;
        this.index = end + 1;
      } else if (char === '"') {
        this.index += 1;
        inWord = quoted = true;
        for (;;) {
          const inner = text[this.index];
          if (inner === undefined) throw new Unreadable('an unterminated double quote');
          if (inner === '"') break;
          const escaped = text[this.index + 1];
          if (inner === '\\' && escaped !== undefined && '"\\$`\n'.includes(escaped)) {
            word += text[this.index + 1];
            this.index += 2;
          } else if (inner === '$' || inner === '`') {
            const expanded = this.expand();
            word += expanded.text;
            dynamic ||= expanded.dynamic;
          } else {
            word += inner;
            this.index += 1;
          }
        }
        this.index += 1;
      } else if (char === '\\') {
        if (next === undefined) throw new Unreadable('a trailing backslash');
        if (next !== '\n') word += next;
        inWord = true;
        this.index += 2;
      } else if (char === '$' || char === '`') {
        const expanded = this.expand();
        word += expanded.text;
        dynamic ||= expanded.dynamic;
        inWord = true;
      } else if ((char === '<' || char === '>') && next === '(') {
        // Process substitution: its command runs too.
        this.index += 2;
        this.list(')');
        dynamic = true;
        word += '<process substitution>';
        inWord = true;
      } else if (char === '(') {
        if (inWord || words.length > 0) throw new Unreadable('a parenthesis inside a command');
        this.index += 1;
        endPart();
        this.list(')');
      } else if (char === ')') {
        throw new Unreadable('an unbalanced closing parenthesis');
      } else if (char === '<' || char === '>' || char === '&') {
        // A number right before the operator is the descriptor it redirects (2>), not a word.
        if (inWord && !quoted && /^\d+$/.test(word)) {
          word = '';
          inWord = false;
        } else endWord();
        if (redirectNext !== undefined) throw new Unreadable('a redirection without a target');
        const operator = /^(?:&>>|&>|<<<|<<|>>|>\||<>|>&|<&|>|<)/.exec(text.slice(this.index))?.[0] ?? char;
        if (operator === '<<') throw new Unreadable('a heredoc');
        this.index += operator.length;
        const target = /^\s*(\d+-?|-)(?=[\s;&|)]|$)/.exec(text.slice(this.index));
        if ((operator === '>&' || operator === '<&') && target) {
          this.index += target[0].length;
        } else redirectNext = operator === '<<<' ? 'fd' : 'path';
      } else {
        word += char;
        inWord = true;
        this.index += 1;
      }
    }
    if (closer !== undefined) throw new Unreadable(closer === ')' ? 'an unclosed parenthesis' : 'an unterminated backtick');
    endPart();
  }

  /** At `$` or a backtick, in or out of double quotes: what it adds to the word, and whether the shell decides it. */
  private expand(): { text: string; dynamic: boolean } {
    const char = this.text.charAt(this.index);
    const expansion = this.expansion();
    if (expansion !== undefined) return { text: expansion, dynamic: true };
    this.index += 1;
    return { text: char, dynamic: false };
  }

  /**
   * At `$` or a backtick: an expansion reads what it needs (a substitution's command joins the
   * parts) and returns a placeholder for the word; undefined when the `$` is a plain character.
   */
  private expansion(): string | undefined {
    const text = this.text;
    const char = text.charAt(this.index);
    const next = text[this.index + 1];
    if (char === '`') {
      this.index += 1;
      this.list('`');
      return '<command substitution>';
    }
    if (next === "'") throw new Unreadable("ANSI-C quoting ($'…'), whose text is not what runs");
    if (next === '(' && text[this.index + 2] === '(') {
      // Arithmetic: it may hold substitutions of its own, which would run.
      const end = text.indexOf('))', this.index + 3);
      if (end < 0) throw new Unreadable('an unclosed arithmetic expansion');
      const inner = text.slice(this.index + 3, end);
      if (/[$`]/.test(inner)) throw new Unreadable('an expansion inside arithmetic');
      this.index = end + 2;
      return '<arithmetic>';
    }
    if (next === '(') {
      this.index += 2;
      this.list(')');
      return '<command substitution>';
    }
    if (next === '{') {
      const end = text.indexOf('}', this.index + 2);
      if (end < 0) throw new Unreadable('an unclosed ${');
      if (/[$`(]/.test(text.slice(this.index + 2, end))) throw new Unreadable('an expansion inside ${…}');
      this.index = end + 1;
      return '<variable>';
    }
    if (next !== undefined && (nameStart.test(next) || specialParameter.test(next))) {
      this.index += 1;
      if (specialParameter.test(next)) this.index += 1;
      else while (this.index < text.length && /\w/.test(text.charAt(this.index))) this.index += 1;
      return '<variable>';
    }
    return undefined;
  }
}

/** The simple commands `command` runs, or why it cannot be read with confidence. */
export function splitCommand(command: string): SplitCommand {
  const splitter = new Splitter(command);
  try {
    splitter.list();
  } catch (error) {
    if (error instanceof Unreadable) return { ok: false, reason: error.message };
    throw error;
  }
  return { ok: true, parts: splitter.parts };
}

const shells: ReadonlySet<string> = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh']);

/**
 * The command a person would have typed, out of the wrapper an agent runs it in: Codex reports
 * `/bin/bash -lc 'npm test'`, and its activity should read `npm test`; `sh -c "a && b"` → `a && b`.
 * Anything else — a plain command, a shell with a script file, a wrapper whose script the shell
 * decides at run time, a line this reader refuses — is returned as it was.
 */
export function unwrapShellCommand(command: string): string {
  const split = splitCommand(command);
  if (!split.ok || split.parts.length !== 1) return command;
  const [part] = split.parts;
  if (!part || part.dynamic || part.redirects.length > 0) return command;
  const [shell = '', flag = '', script = ''] = part.words;
  const name = shell.slice(shell.lastIndexOf('/') + 1);
  // -c, -lc, -ilc…: the script is the argument after the flags; words after it are $0, $1…
  if (!shells.has(name) || !/^-[a-z]*c[a-z]*$/.test(flag) || !script.trim()) return command;
  return script;
}
