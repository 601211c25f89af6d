import { custom, el } from '../dom';
import { icon } from '../icons';

/** Previous/next for a paged list; nothing when everything fits on one page. */
export function pager(
  list: { total: number; page: number; pageSize: number },
  noun: string,
  go: (page: number) => void,
): HTMLElement | null {
  const pages = Math.ceil(list.total / list.pageSize);
  if (pages <= 1) return null;
  const first = list.page * list.pageSize + 1;
  const last = Math.min(list.total, (list.page + 1) * list.pageSize);
  const button = (label: string, glyph: 'chevronLeft' | 'chevronRight', page: number, disabled: boolean) =>
    custom(
      'vscode-button',
      {
        attrs: { appearance: 'icon', 'aria-label': label, title: label, disabled, 'data-focus-key': `${noun}-${glyph}` },
        on: { click: () => go(page) },
      },
      icon(glyph),
    );
  return el(
    'nav',
    { class: 'pager', attrs: { 'aria-label': `${noun} pages` } },
    button(`Previous ${noun}`, 'chevronLeft', list.page - 1, list.page === 0),
    el('span', { class: 'muted' }, `${first}–${last} of ${list.total}`),
    button(`Next ${noun}`, 'chevronRight', list.page + 1, list.page >= pages - 1),
  );
}
