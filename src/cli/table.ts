import { formatDuration } from '../core/policies';

/** Plain-text tables for people: left-aligned columns, two spaces apart, no colours. */
export function table(headers: readonly string[], rows: ReadonlyArray<readonly string[]>): string[] {
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)];
}

/**
 * "12s", "3m05s", "2h10m": how long ago, for heartbeat ages. The liveness reasons use the same
 * function, so a HEARTBEAT column and the reason beside it never round one age two ways.
 */
export const duration = formatDuration;

/** Keeps table cells on one line and within reason. */
export function cell(value: string | number | null | undefined, max = 48): string {
  if (value === null || value === undefined) return '-';
  const text = String(value).replace(/\s+/g, ' ');
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
