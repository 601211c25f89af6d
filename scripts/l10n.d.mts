/** Every l10n key in src/ with where it is used ("src/…:line"), and the calls whose key is not a string literal. */
export function extractMessages(root?: string): { messages: Map<string, string[]>; problems: string[] };
/** The bundle's text for these keys: sorted, each English message its own translation. */
export function bundleText(keys: Iterable<string>): string;
/** l10n/bundle.l10n.json of this checkout. */
export const bundleFile: string;
