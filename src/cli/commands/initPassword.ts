/**
 * The password of `foreman init --store postgres://…` (issue 29): never from argv, where every user
 * of the machine sees it in `ps` while init runs and the shell keeps it in its history. It comes
 * from stdin with `--password-stdin` (one line; a script pipes it in), from a prompt that does not
 * echo it (stdin a terminal, and neither PGPASSWORD nor the password file has one for the server),
 * or from where every other connection finds it (PGPASSWORD, ~/.pgpass). Like the URL's password
 * before, it is used for init's own connection and written nowhere.
 */
import { readFileSync } from 'node:fs';
import { type Result, invalid, ok } from '../../core/result';
import { booleanFlag } from '../argv';
import { promptHidden } from '../hiddenPrompt';
import type { CommandInput } from './spec';
import { type StoreChoice, storedPasswordSource } from '../../host/infraParts';

/** The flag `init` declares for it. */
export const passwordStdinFlag = 'password-stdin';

/** Where the password init connects with came from; `stored` and `none` leave it to the connection. */
export type StorePassword =
  { readonly from: 'stdin' | 'prompt'; readonly password: string } | { readonly from: 'stored' | 'none'; readonly password?: undefined };

const howToGiveIt =
  'Give the URL without it (postgres://user@host:5432/database) and the password with --password-stdin ' +
  '(e.g. `foreman init --store <url> --password-stdin < password-file`), at the prompt init shows in a terminal, ' +
  'or in PGPASSWORD or ~/.pgpass.';

/**
 * The password for the store `choice` names, or a refusal (exit 2): a URL that holds one, or
 * `--password-stdin` without a server or with nothing on stdin. Reads stdin or prompts only for a
 * PostgreSQL store.
 */
export async function storePasswordOf(input: CommandInput, choice: StoreChoice | undefined): Promise<Result<StorePassword>> {
  const fromStdin = booleanFlag(input.argv, passwordStdinFlag);
  if (choice?.passwordRemoved) {
    return invalid(
      'passwordInArgv',
      `--store: the URL holds a password, and a password on the command line is visible to every user of this machine (ps) and stays in your shell's history; nothing was changed. ${howToGiveIt}`,
      { flag: 'store' },
    );
  }
  const config = choice?.config;
  if (config?.kind !== 'postgres') {
    if (fromStdin) {
      return invalid('passwordWithoutServer', '--password-stdin: only with --store postgres://…, the server the password is for.', {
        flag: passwordStdinFlag,
      });
    }
    return ok({ from: 'none' });
  }
  const terminal = process.stdin.isTTY === true;
  if (fromStdin && !terminal) return readStdinPassword();
  if (!fromStdin && (!terminal || storedPasswordSource(config.url) !== undefined)) {
    return ok({ from: storedPasswordSource(config.url) !== undefined ? 'stored' : 'none' });
  }
  const where = new URL(config.url);
  const answer = await promptHidden(
    `Password for ${decodeURIComponent(where.username) || 'the user'} at ${where.host}${where.pathname} (not shown): `,
  );
  if (answer === undefined) return invalid('passwordCancelled', 'init: no password given (the prompt was cancelled); nothing was changed.');
  if (answer === '') return ok({ from: 'none' });
  return ok({ from: 'prompt', password: answer });
}

/** One line from stdin (its line ending dropped), as `docker login --password-stdin` reads it. */
function readStdinPassword(): Result<StorePassword> {
  const text = readFileSync(0, 'utf8').replace(/(\r?\n)+$/, '');
  if (text === '') {
    return invalid('emptyPassword', '--password-stdin: stdin held no password; pipe it in, e.g. `--password-stdin < password-file`.', {
      flag: passwordStdinFlag,
    });
  }
  if (/[\r\n]/.test(text)) {
    return invalid('badPassword', '--password-stdin: stdin holds several lines; give the password alone, on one line.', {
      flag: passwordStdinFlag,
    });
  }
  return ok({ from: 'stdin', password: text });
}

/**
 * What init says after it connected with a password it was given, when the next processes (serve,
 * the CLI) would not find one: where to put it.
 */
export function passwordAfterInit(password: StorePassword, choice: StoreChoice | undefined, advice: string): string | undefined {
  if (password.from !== 'stdin' && password.from !== 'prompt') return undefined;
  if (choice?.config.kind !== 'postgres' || storedPasswordSource(choice.config.url) !== undefined) return undefined;
  return `foreman: the password was used for this connection only and written nowhere. ${advice}`;
}
