import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

/**
 * package.json as VS Code shows it in English: every `%key%` replaced by its text from
 * package.nls.json (the manifest's strings live there, ready for translations beside it).
 */
export function englishManifest(): unknown {
  const texts = JSON.parse(readFileSync(join(root, 'package.nls.json'), 'utf8')) as Record<string, string>;
  return JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'), (_key, value: unknown) => {
    if (typeof value !== 'string') return value;
    const match = /^%([^%]+)%$/.exec(value);
    if (!match) return value;
    const text = texts[match[1]!];
    if (text === undefined) throw new Error(`package.json names ${value}, which package.nls.json does not hold`);
    return text;
  });
}
