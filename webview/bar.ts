import { svg } from './dom';

/** A thin horizontal bar filled to `fraction`, coloured by its class (no inline styles). */
export function bar(fraction: number, className: string, label?: string): SVGSVGElement {
  const percent = `${Math.round(Math.max(0, Math.min(1, fraction)) * 1000) / 10}%`;
  return svg(
    'svg',
    {
      class: `bar ${className}`,
      attrs: {
        width: '100%',
        height: 6,
        role: label ? 'img' : undefined,
        'aria-label': label,
        'aria-hidden': label ? undefined : 'true',
        preserveAspectRatio: 'none',
      },
    },
    svg('rect', { class: 'bar-track', attrs: { x: 0, y: 0, width: '100%', height: 6, rx: 3 } }),
    svg('rect', { class: 'bar-fill', attrs: { x: 0, y: 0, width: percent, height: 6, rx: 3 } }),
  );
}
