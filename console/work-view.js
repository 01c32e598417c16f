// The work queue and "my transports" as the planner reads them (data from console/work.js): each
// item says what is to be done, with whom, by when, and opens its proposal's detail in one click.
import { el } from './views.js';
import { laneOf, moneyOf, nameOf, placeOf, statusOf, t, when, windowOf } from './format.js';
import { transportsOf, workQueue } from './work.js';

/** The lists the queue is made of, read where the user's scopes allow (a viewer reads what it may). */
export async function readWork(api, scopes) {
  const read = (scope, path) => (scopes.has(scope) ? api.all(path).catch(() => []) : Promise.resolve([]));
  const [tenders, commitments, handovers, references] = await Promise.all([
    read('tenders:read', '/transport-tenders'),
    read('commitments:read', '/transport-commitments'),
    read('handovers:read', '/execution-handovers'),
    scopes.has('execution:update') || scopes.has('outcomes:review') || scopes.has('commitments:read') ? api.all('/execution-references').catch(() => []) : Promise.resolve([]),
  ]);
  return { tenders, commitments, handovers, references };
}

/** One item in words: "Answer the counter (revision 2) from Alpine Freight GmbH · until 12 Dec, 18:00". */
function itemText(item, side, ctx) {
  const partner = nameOf(item.partner, ctx.names);
  const text = t(`work.${side}.${item.kind}`, { partner, revision: item.revision ?? '' });
  const by = item.until ? t('work.until', { when: when(item.until) }) : item.at ? t('work.since', { when: when(item.at) }) : '';
  return [text, by].filter(Boolean).join(' · ');
}

function itemList(items, side, ctx) {
  if (!items.length) return el('p', { class: 'muted' }, t(`work.${side}.none`));
  return el('ul', { class: 'work-list' }, items.map((item) =>
    el('li', {}, item.proposalId
      ? el('button', { type: 'button', class: `work-item kind-${item.kind}`, 'data-proposal': item.proposalId, onclick: () => ctx.onOpen(item.proposalId) }, itemText(item, side, ctx), lane(item, ctx))
      : el('span', { class: `work-item kind-${item.kind}` }, itemText(item, side, ctx)))));
}

/** The load's lane of the item's proposal, where the console has it. */
function lane(item, ctx) {
  const p = ctx.proposals?.find((x) => x.id === item.proposalId);
  const listing = p && (ctx.listings.get(p.loadRequestId) ?? ctx.listings.get(p.capacityOfferId));
  return listing ? el('span', { class: 'muted' }, ` · ${laneOf(listing, ctx.places)}`) : '';
}

/** A stop as "Hamburg, 12 Dec, 08:00 – 14:00 CET". */
const stopText = (stop, ctx) => (stop ? [placeOf(stop.area, ctx.places), windowOf(stop.timeWindow)].filter(Boolean).join(', ') : '');

/** A transport's step in words: "Under way: picked up, 12 Dec, 09:00". */
function stepText(tr) {
  if (tr.step === 'milestone') return t('transport.step.milestone', { milestone: statusOf(tr.milestone), when: when(tr.at) });
  return t(`transport.step.${tr.step}`);
}

function transportsTable(transports, ctx) {
  if (!transports.length) return el('p', { class: 'muted' }, t('transport.none'));
  return el('table', { class: 'grid transports' },
    el('caption', { class: 'visually-hidden' }, t('transport.title')),
    el('thead', {}, el('tr', {}, ['transport.col.partner', 'transport.col.role', 'transport.col.pickup', 'transport.col.delivery', 'transport.col.price', 'transport.col.step'].map((k) => el('th', { scope: 'col' }, t(k))))),
    el('tbody', {}, transports.map((tr) => el('tr', {},
      el('td', {}, tr.proposalId ? el('button', { type: 'button', class: 'link', 'data-proposal': tr.proposalId, onclick: () => ctx.onOpen(tr.proposalId) }, nameOf(tr.partner, ctx.names)) : nameOf(tr.partner, ctx.names)),
      el('td', {}, t(`transport.role.${tr.role}`)),
      el('td', {}, stopText(tr.pickup, ctx)),
      el('td', {}, stopText(tr.delivery, ctx)),
      el('td', {}, moneyOf(tr.price)),
      el('td', { class: `step step-${tr.step}` }, stepText(tr))))));
}

/**
 * Draws the queue into the #work section and returns its counts; `onNew` is called with the items
 * waiting for the user that were not there at the last drawing (for a notification).
 */
export function renderWork(container, facts, ctx) {
  const queue = workQueue({ ...facts, me: ctx.me });
  container.replaceChildren(
    el('div', { class: 'work-columns' },
      el('section', { class: 'work-side', 'aria-labelledby': 'work-you-title' }, el('h3', { id: 'work-you-title' }, t('work.forYou.title'), ' ', el('span', { class: 'badge new-count', id: 'work-you-count' }, String(queue.forYou.length))), itemList(queue.forYou, 'forYou', ctx)),
      el('section', { class: 'work-side', 'aria-labelledby': 'work-them-title' }, el('h3', { id: 'work-them-title' }, t('work.forThem.title'), ' ', el('span', { class: 'badge', id: 'work-them-count' }, String(queue.forThem.length))), itemList(queue.forThem, 'forThem', ctx))),
    el('section', { class: 'transports-wrap', 'aria-labelledby': 'transports-title' }, el('h3', { id: 'transports-title' }, t('transport.title')), el('div', { class: 'grid-wrap' }, transportsTable(queue.transports, ctx))),
  );
  return queue;
}

export { transportsOf };
