/** Fitting text into SVG nodes, which do not wrap or ellipsize by themselves. */

type TextKind = 'title' | 'sub';
let context: CanvasRenderingContext2D | null | undefined;

/** The fonts of `.node-title` and `.node-sub` (dashboard.css), with the page's font families. */
function fontOf(kind: TextKind): string {
  const style = getComputedStyle(document.body);
  return kind === 'title' ? `500 12px ${style.fontFamily}` : `11px ${style.getPropertyValue('--mono') || 'monospace'}`;
}

/** Widths measured in the real font; without a canvas, a generous per-character estimate. */
function measure(text: string, kind: TextKind): number {
  if (context === undefined) context = document.createElement('canvas').getContext('2d');
  if (!context) return text.length * (kind === 'title' ? 7 : 6.7);
  context.font = fontOf(kind);
  return context.measureText(text).width;
}

/** `text` whole when it fits in `maxWidth` pixels, else cut with an ellipsis to fit. */
export function fitText(text: string, maxWidth: number, kind: TextKind): string {
  if (measure(text, kind) <= maxWidth) return text;
  let low = 0;
  let high = text.length;
  // The longest prefix that fits with its ellipsis: binary search, as widths grow with length.
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (measure(`${text.slice(0, middle)}…`, kind) <= maxWidth) low = middle;
    else high = middle - 1;
  }
  return `${text.slice(0, Math.max(1, low))}…`;
}
