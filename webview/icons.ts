import { svg } from './dom';

/**
 * Small line glyphs drawn in `currentColor` (codicons are not installed): static path data only,
 * so nothing from the state ever reaches an SVG attribute that draws.
 */
const glyphs = {
  check: ['M3 8.5l3 3 7-7'],
  close: ['M4 4l8 8', 'M12 4l-8 8'],
  deny: ['M8 14.5a6.5 6.5 0 1 0 0-13 6.5 6.5 0 0 0 0 13z', 'M3.4 12.6l9.2-9.2'],
  merge: ['M5 3v10', 'M5 6c0 3 6 2 6 5v2', 'M3 13h4'],
  comment: ['M2.5 3.5h11v7h-6l-3 2.5v-2.5h-2z'],
  play: ['M5 3l8 5-8 5z'],
  pause: ['M5.5 3.5v9', 'M10.5 3.5v9'],
  retry: ['M3 8a5 5 0 1 0 1.5-3.5', 'M3 2.5v3h3'],
  reset: ['M13 8a5 5 0 1 1-1.5-3.5', 'M13 2.5v3h-3'],
  log: ['M3 3.5h10', 'M3 6.5h10', 'M3 9.5h7', 'M3 12.5h8'],
  diff: ['M5 2.5v5', 'M2.5 5h5', 'M9 11.5h5', 'M3 13.5h10'],
  terminal: ['M2.5 3.5h11v9h-11z', 'M4.5 6.5l2 1.5-2 1.5', 'M8 10h3'],
  personAdd: ['M6 7.5a2.5 2.5 0 1 0 0-5 2.5 2.5 0 0 0 0 5z', 'M1.5 13.5c0-2.5 2-4 4.5-4s4.5 1.5 4.5 4', 'M12.5 5v4', 'M10.5 7h4'],
  add: ['M8 3v10', 'M3 8h10'],
  person: ['M8 7.5a2.5 2.5 0 1 0 0-5 2.5 2.5 0 0 0 0 5z', 'M3 13.5c0-2.5 2.2-4 5-4s5 1.5 5 4'],
  list: ['M5.5 4h8', 'M5.5 8h8', 'M5.5 12h8', 'M2.5 4h.5', 'M2.5 8h.5', 'M2.5 12h.5'],
  assign: ['M2.5 8h10', 'M9 4.5l3.5 3.5-3.5 3.5'],
  heart: ['M8 13.5s-5.5-3.3-5.5-7A3 3 0 0 1 8 4.8a3 3 0 0 1 5.5 1.7c0 3.7-5.5 7-5.5 7z'],
  warning: ['M8 2l6.5 11.5h-13z', 'M8 6.5v3.5', 'M8 11.8v.4'],
  error: ['M8 14.5a6.5 6.5 0 1 0 0-13 6.5 6.5 0 0 0 0 13z', 'M5.8 5.8l4.4 4.4', 'M10.2 5.8l-4.4 4.4'],
  lock: ['M4 7.5h8v6h-8z', 'M5.5 7.5v-2a2.5 2.5 0 0 1 5 0v2'],
  clock: ['M8 14.5a6.5 6.5 0 1 0 0-13 6.5 6.5 0 0 0 0 13z', 'M8 4.5v4l2.5 1.5'],
  eye: ['M1.5 8s2.5-4.5 6.5-4.5 6.5 4.5 6.5 4.5-2.5 4.5-6.5 4.5-6.5-4.5-6.5-4.5z', 'M8 10a2 2 0 1 0 0-4 2 2 0 0 0 0 4z'],
  chevronLeft: ['M10 3.5l-4.5 4.5 4.5 4.5'],
  chevronRight: ['M6 3.5l4.5 4.5-4.5 4.5'],
  chain: ['M3 5.5h4v5h-4z', 'M9 5.5h4v5h-4z', 'M7 8h2'],
  pulse: ['M1.5 8.5h3l1.5-4 3 8 1.5-4h4'],
  bell: ['M4 11.5V7a4 4 0 0 1 8 0v4.5l1.5 1.5h-11z', 'M6.5 13.5a1.5 1.5 0 0 0 3 0'],
  overlap: ['M2.5 2.5h7v7h-7z', 'M6.5 6.5h7v7h-7z'],
  tool: ['M10.5 2.5a3 3 0 0 0-3 4l-5 5 1.5 1.5 5-5a3 3 0 0 0 4-3l-2 1-1.5-1.5z'],
} as const;

export type Glyph = keyof typeof glyphs;

export function icon(name: Glyph, label?: string): SVGSVGElement {
  return svg(
    'svg',
    {
      class: `icon icon-${name}`,
      attrs: {
        viewBox: '0 0 16 16',
        width: 16,
        height: 16,
        'aria-hidden': label ? undefined : 'true',
        role: label ? 'img' : undefined,
        'aria-label': label,
      },
    },
    ...glyphs[name].map((d) => svg('path', { attrs: { d } })),
  );
}
