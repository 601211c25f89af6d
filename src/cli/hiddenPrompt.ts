/**
 * A question on the terminal whose answer is not shown while typed (a password), read in raw mode
 * the way `psql` and `ssh` ask: Enter ends it, Backspace takes a character back, Ctrl-C or Ctrl-D
 * on an empty line cancels. Only for a stdin that is a terminal.
 */

const enter = new Set(['\r', '\n']);
const erase = new Set(['\u007f', '\b']);
const interrupt = '\u0003';
const endOfInput = '\u0004';

/** The answer typed, or undefined when the person cancelled. The question goes to stderr, so stdout stays the command's. */
export function promptHidden(
  question: string,
  input: NodeJS.ReadStream = process.stdin,
  output: NodeJS.WriteStream = process.stderr,
): Promise<string | undefined> {
  return new Promise((resolve) => {
    const wasRaw = input.isRaw;
    // Raw before the question shows: an answer typed at once is never echoed by the terminal.
    input.setRawMode(true);
    input.setEncoding('utf8');
    output.write(question);
    let answer = '';
    const finish = (value: string | undefined): void => {
      input.off('data', onData);
      input.setRawMode(wasRaw);
      input.pause();
      output.write('\n');
      resolve(value);
    };
    const onData = (chunk: string): void => {
      for (const char of chunk) {
        if (enter.has(char)) return finish(answer);
        if (char === interrupt || (char === endOfInput && answer === '')) return finish(undefined);
        if (char === endOfInput) return finish(answer);
        if (erase.has(char)) answer = answer.slice(0, -1);
        else if (char >= ' ') answer += char;
      }
    };
    input.on('data', onData);
    input.resume();
  });
}
