/**
 * The command a person would have typed, out of the wrapper an agent runs it in: Codex reports
 * `/bin/bash -lc 'npm test'`, and the activity should read `npm test`.
 */

const shells = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh']);

/**
 * POSIX shell words of `text` (quotes removed, escapes applied), or undefined when it is not a plain
 * word list (an unterminated quote): then there is nothing to unwrap safely.
 */
export function shellWords(text: string): string[] | undefined {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charAt(i);
    if (char === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return undefined;
      word += text.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (char === '"') {
      let j = i + 1;
      for (; j < text.length && text.charAt(j) !== '"'; j++) {
        // Inside double quotes a backslash escapes only these; elsewhere it stays.
        if (text.charAt(j) === '\\' && '$`"\\\n'.includes(text.charAt(j + 1))) j++;
        word += text.charAt(j);
      }
      if (j >= text.length) return undefined;
      inWord = true;
      i = j;
    } else if (char === '\\') {
      if (i + 1 >= text.length) return undefined;
      word += text.charAt(++i);
      inWord = true;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += char;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/**
 * `/bin/bash -lc 'npm test'` → `npm test`; `sh -c "a && b"` → `a && b`. Anything else (a plain
 * command, a shell with a script file, unbalanced quotes) is returned as it was.
 */
export function unwrapShellCommand(command: string): string {
  const words = shellWords(command.trim());
  if (!words || words.length < 3) return command;
  const [shell = '', flag = '', script = ''] = words;
  const name = shell.slice(shell.lastIndexOf('/') + 1);
  // -c, -lc, -ilc…: the script is the argument after the flags; words after it are $0, $1…
  if (!shells.has(name) || !/^-[a-z]*c[a-z]*$/.test(flag) || !script.trim()) return command;
  return script;
}
