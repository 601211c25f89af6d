/**
 * The password file libpq reads (`~/.pgpass`, or the file `PGPASSFILE` names), read here rather
 * than by `pg`, whose own support prints a deprecation warning on each process that uses it and
 * goes away in pg 9. Same rules as libpq: lines `host:port:database:user:password`, `*` matches
 * anything, `\:` and `\\` escape, `#` starts a comment, the first matching line wins, and a file
 * that others can read is ignored.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** What a line is matched against: the connection's own parameters, after defaults. */
export interface PgpassTarget {
  readonly host: string | undefined;
  readonly port: number | undefined;
  readonly database: string | undefined;
  readonly user: string | undefined;
}

/** The password file in use: PGPASSFILE, else `~/.pgpass` (`%APPDATA%\postgresql\pgpass.conf` on Windows). */
export function pgpassFile(env: NodeJS.ProcessEnv = process.env): string {
  if (env['PGPASSFILE']) return env['PGPASSFILE'];
  if (process.platform === 'win32') return path.join(env['APPDATA'] ?? os.homedir(), 'postgresql', 'pgpass.conf');
  return path.join(env['HOME'] ?? os.homedir(), '.pgpass');
}

/** Why the password file is not used, or undefined when it is usable (present, a file, private). */
export function pgpassProblem(file: string): string | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return `${file} does not exist`;
  }
  if (!stat.isFile()) return `${file} is not a plain file`;
  if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) {
    return `${file} can be read by others, so it is ignored (chmod 600 '${file}')`;
  }
  return undefined;
}

/** Splits a line at unescaped colons, removing the escapes. */
function fieldsOf(line: string): string[] {
  const fields: string[] = [];
  let current = '';
  for (let i = 0; i < line.length; i++) {
    const char = line[i] ?? '';
    if (char === '\\' && i + 1 < line.length) {
      current += line[++i] ?? '';
    } else if (char === ':' && fields.length < 4) {
      fields.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  fields.push(current);
  return fields;
}

/** The password for `target` from the password file, or undefined (no file, unusable, no line matches). */
export function pgpassPassword(target: PgpassTarget, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const file = pgpassFile(env);
  if (pgpassProblem(file) !== undefined) return undefined;
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  // libpq matches a socket connection (no host, or a folder) as "localhost".
  const host = !target.host || target.host.startsWith('/') ? 'localhost' : target.host;
  const wanted = [host, String(target.port ?? 5432), target.database ?? '', target.user ?? ''];
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const fields = fieldsOf(line);
    if (fields.length !== 5) continue;
    if (wanted.every((value, index) => fields[index] === '*' || fields[index] === value)) return fields[4];
  }
  return undefined;
}
