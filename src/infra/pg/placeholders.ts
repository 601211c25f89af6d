/**
 * Parameters as PostgreSQL's protocol takes them. The engine's statements write a parameter `?` (the
 * next one) or `?N` (the N-th), in both backends' texts (engine/ports/store.ts `Sql`); the server
 * wants `$N`. That spelling is all that changes: everything else a statement says is its own text
 * for this backend, written by hand in its query module. Quoted text, quoted identifiers and comments
 * are left alone.
 */

const digit = (char: string | undefined): boolean => char !== undefined && char >= '0' && char <= '9';

/** Where the quoted part or comment that starts at `i` ends (the index after it); `i` itself when none starts there. */
function skipQuotedOrComment(sql: string, i: number): number {
  const char = sql[i];
  if (char === '-' && sql[i + 1] === '-') {
    const end = sql.indexOf('\n', i);
    return end < 0 ? sql.length : end;
  }
  if (char === '/' && sql[i + 1] === '*') {
    const end = sql.indexOf('*/', i + 2);
    return end < 0 ? sql.length : end + 2;
  }
  if (char !== "'" && char !== '"') return i;
  for (let end = i + 1; end < sql.length; end++) {
    if (sql[end] !== char) continue;
    // A doubled quote is an escaped one, inside the same quoted part.
    if (sql[end + 1] === char) end++;
    else return end + 1;
  }
  return sql.length;
}

/** `sql` with its `?` and `?N` parameters numbered `$N`. */
export function numberedParameters(sql: string): string {
  let out = '';
  let next = 1;
  for (let i = 0; i < sql.length;) {
    const skipped = skipQuotedOrComment(sql, i);
    if (skipped > i) {
      out += sql.slice(i, skipped);
      i = skipped;
      continue;
    }
    const char = sql[i] ?? '';
    i++;
    if (char !== '?') {
      out += char;
      continue;
    }
    let number = '';
    while (digit(sql[i])) number += sql[i++];
    if (number === '') out += `$${next++}`;
    else {
      next = Math.max(next, Number(number) + 1);
      out += `$${number}`;
    }
  }
  return out;
}
