import type { OwnerCard } from '../../src/shared/protocol';
import type { RenderContext } from '../context';
import { el } from '../dom';
import { clockTime, duration, plural } from '../format';
import { icon } from '../icons';
import { ticking } from './chips';

/**
 * The machines of a shared store (issue 29): one card per owner, with its host, how long ago it
 * renewed its lease (ticking), and, for one that is gone, since when and whether its work was taken
 * back. Nothing with one owner.
 */
export function renderOwners(ctx: RenderContext): HTMLElement | null {
  const { owners } = ctx.folder;
  if (owners.length === 0) return null;
  const gone = owners.filter((owner) => !owner.alive).length;
  return el(
    'section',
    { class: 'panel owners', attrs: { 'aria-label': 'Machines' } },
    el(
      'h2',
      {},
      'Machines',
      el('span', { class: 'count' }, String(owners.length)),
      gone > 0 ? el('span', { class: 'owners-gone' }, icon('warning'), `${gone} gone`) : null,
    ),
    el('div', { class: 'owner-grid' }, ...owners.map((owner) => ownerCard(owner, ctx.hostNow()))),
  );
}

function ownerCard(owner: OwnerCard, now: number): HTMLElement {
  const label = owner.alive
    ? `${owner.host}, alive, lease renewed ${duration(now - owner.renewedAt)} ago`
    : `${owner.host}, gone for ${duration(now - (owner.goneSince ?? now))}`;
  return el(
    'article',
    { class: `card owner-card ${owner.alive ? 'owner-alive' : 'owner-gone'}`, attrs: { 'data-owner': owner.id, 'aria-label': label } },
    el(
      'header',
      {},
      el('span', { class: 'dot' }),
      el('code', { class: 'owner-host' }, owner.host),
      el('span', { class: `chip ${owner.alive ? 'owner-chip-alive' : 'owner-chip-gone'}` }, owner.alive ? 'alive' : 'gone'),
      el('span', { class: 'spacer' }),
      el('span', { class: 'muted', attrs: { title: `owner ${owner.id}` } }, owner.pid === null ? owner.id : `pid ${owner.pid}`),
    ),
    owner.alive
      ? el(
          'div',
          { class: 'muted' },
          icon('heart'),
          ' lease renewed ',
          ticking(owner.renewedAt, 'ago', `${duration(now - owner.renewedAt)} ago`),
        )
      : goneLine(owner, now),
    el('div', { class: 'muted' }, `${plural(owner.workers, 'worker')} on this machine, ${owner.busy} with a task`),
  );
}

/** Since when it is gone, and what became of its work. */
function goneLine(owner: OwnerCard, now: number): HTMLElement {
  const since = owner.goneSince ?? owner.renewedAt;
  return el(
    'p',
    { class: 'reason liveness-dead' },
    icon('warning'),
    `gone since ${clockTime(since)} (`,
    ticking(since, 'ago', `${duration(now - since)} ago`),
    owner.workTakenBackAt === null
      ? '): its workers wait until an owner runs on this machine; work it held is taken back by another owner'
      : `): its work was taken back at ${clockTime(owner.workTakenBackAt)}; its workers wait until an owner runs on this machine`,
  );
}
