import { el } from '../dom';
import { stateLabel } from '../format';

/** A coloured state label: the class carries the colour, the text carries the meaning (the state's, unless given). */
export function stateChip(state: string, extraClass = '', label = stateLabel(state)): HTMLElement {
  return el('span', { class: `chip state-${state.toLowerCase()} ${extraClass}`.trim() }, label);
}

export function livenessChip(liveness: string): HTMLElement | null {
  if (liveness === 'OK' || liveness === 'IDLE') return null;
  return el('span', { class: `chip liveness-${liveness.toLowerCase()}`, attrs: { title: `liveness ${liveness}` } }, liveness);
}

/** A span whose text the ticker rewrites every second from a host timestamp. */
export function ticking(sinceHostMs: number, format: 'age' | 'ago', text: string): HTMLElement {
  return el('span', { class: 'tick', attrs: { 'data-since': sinceHostMs, 'data-format': format } }, text);
}
