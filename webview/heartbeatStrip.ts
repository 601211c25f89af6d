import { svg } from './dom';
import { dueSpans } from './dueSpans';
import { duration } from './format';

export interface StripData {
  /** Heartbeat times on the host's clock, oldest first. */
  readonly beats: readonly number[];
  /** The engine's last heartbeat, which may be older than the window. */
  readonly lastHeartbeatMs: number | null;
  /** Whether silence matters now (an agent should be running). */
  readonly busy: boolean;
  /**
   * The states the worker entered on the host's clock, oldest first, and whether a heartbeat was
   * due in each; silence is shaded only where one was (never while the work waits for review).
   */
  readonly states: ReadonlyArray<{ readonly at: number; readonly expected: boolean }>;
  readonly windowMs: number;
  readonly warnMs: number;
  readonly staleMs: number;
}

const strips = new WeakMap<SVGSVGElement, StripData>();
const width = 300;
const height = 20;

/**
 * The last minutes of a worker's heartbeats as ticks on a line, newest at the right; silences
 * longer than the WARN threshold while a heartbeat was due are shaded (STALE-long ones darker), so
 * a gap is seen at once. A wait for review or merge, idle time and a failed worker are not silence.
 */
export function heartbeatStrip(data: StripData, hostNow: number): SVGSVGElement {
  const element = svg('svg', {
    class: `strip${data.busy ? '' : ' strip-idle'}`,
    attrs: { viewBox: `0 0 ${width} ${height}`, preserveAspectRatio: 'none', role: 'img' },
  });
  strips.set(element, data);
  drawStrip(element, hostNow);
  return element;
}

/** Redraws every strip under `root` for the current time (the ticker calls this). */
export function redrawStrips(root: ParentNode, hostNow: number): void {
  for (const element of root.querySelectorAll<SVGSVGElement>('svg.strip')) drawStrip(element, hostNow);
}

function drawStrip(element: SVGSVGElement, hostNow: number): void {
  const data = strips.get(element);
  if (!data) return;
  const start = hostNow - data.windowMs;
  const x = (at: number) => ((at - start) / data.windowMs) * width;
  const shapes: SVGElement[] = [svg('line', { class: 'strip-axis', attrs: { x1: 0, x2: width, y1: height / 2, y2: height / 2 } })];
  const beats = data.beats.filter((at) => at >= start && at <= hostNow + 1000);
  const gap = (from: number, to: number) => {
    const silent = to - from;
    if (silent < data.warnMs) return;
    const left = x(Math.max(from, start));
    shapes.push(
      svg('rect', {
        class: silent >= data.staleMs ? 'strip-gap stale' : 'strip-gap warn',
        attrs: { x: left, y: 2, width: Math.max(1, x(to) - left), height: height - 4, rx: 2 },
      }),
    );
  };
  const due = dueSpans(data.states, hostNow);
  // Where a beat was due, in the strip's own units: what the shading is confined to (and what tests read).
  element.dataset['due'] = due
    .filter(([, to]) => x(to) > 0)
    .map(([from, to]) => `${Math.max(0, x(from)).toFixed(1)}:${Math.min(width, x(to)).toFixed(1)}`)
    .join(',');
  for (const [from, to] of due) {
    // Entering a state where a beat is due counts as a sign of life, as it does for the monitor.
    const signs = [from, ...data.beats.filter((at) => at > from && at < to), to];
    signs.slice(1).forEach((at, index) => gap(signs[index] ?? from, at));
  }
  const last = beats[beats.length - 1] ?? data.lastHeartbeatMs;
  for (const at of beats) shapes.push(svg('line', { class: 'strip-beat', attrs: { x1: x(at), x2: x(at), y1: 3, y2: height - 3 } }));
  const silentFor = last === null ? null : hostNow - last;
  const label = `${beats.length} heartbeats in the last ${duration(data.windowMs)}${silentFor === null ? ', none yet' : `, last ${duration(silentFor)} ago`}`;
  element.replaceChildren(svg('title', {}, label), ...shapes);
  element.setAttribute('aria-label', label);
}
