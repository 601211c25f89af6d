/**
 * The shape of `vscode.l10n` that modules without `vscode` take as a parameter named `l10n`, so
 * their words are translated too and they still run (and are tested) without a window. The call is
 * always `l10n.t('literal', …)`: scripts/l10n.mjs finds the keys by that shape (docs/vscode.md).
 */
export interface Localizer {
  t(message: string, ...args: Array<string | number | boolean>): string;
}

/** The English text, placeholders filled the way `vscode.l10n.t` fills them when no bundle is loaded. */
export const english: Localizer = {
  t: (message, ...args) =>
    message.replace(/\{(\d+)\}/g, (placeholder, index: string) => {
      const value = args[Number(index)];
      return value === undefined ? placeholder : String(value);
    }),
};
