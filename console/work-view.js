// The work queue and "my transports" as the planner reads them (data from console/work.js): each
// item says what is to be done, with whom, by when, and opens its proposal's detail in one click.
// Drawn as components of the console's UI library (./ui.js, Preact and htm; docs/decisions.md):
// a redraw after every event changes only what changed, so the item a planner has tabbed to keeps
// its focus, and the transports table keeps the order its planner chose (its own state).
import { html, render, useState } from './ui.js';
import { laneOf, moneyOf, nameOf, placeOf, statusOf, t, when, windowOf } from './format.js';
import { sortTransports, transportsOf, TRANSPORT_COLUMNS, workQueue } from './work.js';

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

/** The load's lane of the item's proposal, where the console has it. */
function laneText(item, ctx) {
  const p = ctx.proposals?.find((x) => x.id === item.proposalId);
  const listing = p && (ctx.listings.get(p.loadRequestId) ?? ctx.listings.get(p.capacityOfferId));
  return listing ? ` · ${laneOf(listing, ctx.places)}` : '';
}

function WorkItem({ item, side, ctx }) {
  const className = `work-item kind-${item.kind}`;
  if (!item.proposalId) return html`<li><span class=${className}>${itemText(item, side, ctx)}</span></li>`;
  const lane = laneText(item, ctx);
  return html`<li>
    <button type="button" class=${className} data-proposal=${item.proposalId} onClick=${() => ctx.onOpen(item.proposalId)}>
      ${itemText(item, side, ctx)}${lane ? html`<span class="muted">${lane}</span>` : ''}
    </button>
  </li>`;
}

/** One side of the queue ("Waiting for you" or "Waiting for them") with its count. */
function WorkSide({ side, items, ctx }) {
  const titleId = side === 'forYou' ? 'work-you-title' : 'work-them-title';
  return html`<section class="work-side" aria-labelledby=${titleId}>
    <h3 id=${titleId}>${t(`work.${side}.title`)} <span class=${side === 'forYou' ? 'badge new-count' : 'badge'} id=${side === 'forYou' ? 'work-you-count' : 'work-them-count'}>${String(items.length)}</span></h3>
    ${items.length
      ? html`<ul class="work-list">${items.map((item) => html`<${WorkItem} key=${item.key} item=${item} side=${side} ctx=${ctx} />`)}</ul>`
      : html`<p class="muted">${t(`work.${side}.none`)}</p>`}
  </section>`;
}

/** A stop as "Hamburg, 12 Dec, 08:00 – 14:00 CET". */
const stopText = (stop, ctx) => (stop ? [placeOf(stop.area, ctx.places), windowOf(stop.timeWindow)].filter(Boolean).join(', ') : '');

/** A transport's step in words: "Under way: picked up, 12 Dec, 09:00". */
function stepText(tr) {
  if (tr.step === 'milestone') return t('transport.step.milestone', { milestone: statusOf(tr.milestone), when: when(tr.at) });
  return t(`transport.step.${tr.step}`);
}

function TransportsTable({ transports, ctx }) {
  // The table's own state: which column it is sorted by; kept across redraws.
  const [sort, setSort] = useState(undefined);
  if (!transports.length) return html`<p class="muted">${t('transport.none')}</p>`;
  const toggle = (key) => setSort(sort?.key === key && sort.direction === 'ascending' ? { key, direction: 'descending' } : { key, direction: 'ascending' });
  return html`<table class="grid transports">
    <caption class="visually-hidden">${t('transport.title')}</caption>
    <thead><tr>
      ${TRANSPORT_COLUMNS.map((key) => html`<th scope="col" aria-sort=${sort?.key === key ? sort.direction : 'none'}>
        <button type="button" class="sort" onClick=${() => toggle(key)}>${t(`transport.col.${key}`)}${sort?.key === key ? (sort.direction === 'ascending' ? ' ▲' : ' ▼') : ''}</button>
      </th>`)}
    </tr></thead>
    <tbody>
      ${sortTransports(transports, sort, (id) => nameOf(id, ctx.names)).map((tr) => html`<tr key=${tr.tenderId}>
        <td>${tr.proposalId ? html`<button type="button" class="link" data-proposal=${tr.proposalId} onClick=${() => ctx.onOpen(tr.proposalId)}>${nameOf(tr.partner, ctx.names)}</button>` : nameOf(tr.partner, ctx.names)}</td>
        <td>${t(`transport.role.${tr.role}`)}</td>
        <td>${stopText(tr.pickup, ctx)}</td>
        <td>${stopText(tr.delivery, ctx)}</td>
        <td>${moneyOf(tr.price)}</td>
        <td class=${`step step-${tr.step}`}>${stepText(tr)}</td>
      </tr>`)}
    </tbody>
  </table>`;
}

/** The whole queue: the notice when there is no partner, both sides, then the transports. */
function WorkQueue({ queue, notice, ctx }) {
  return html`
    ${notice ? html`<p class="notice no-partner" role="status">${notice}</p>` : ''}
    <div class="work-columns">
      <${WorkSide} side="forYou" items=${queue.forYou} ctx=${ctx} />
      <${WorkSide} side="forThem" items=${queue.forThem} ctx=${ctx} />
    </div>
    <section class="transports-wrap" aria-labelledby="transports-title">
      <h3 id="transports-title">${t('transport.title')}</h3>
      <div class="grid-wrap"><${TransportsTable} transports=${queue.transports} ctx=${ctx} /></div>
    </section>`;
}

/**
 * Draws the queue into the #work section (redrawn by difference) and returns its counts; `notice`
 * is said above it (no partner yet).
 */
export function renderWork(container, facts, ctx, notice) {
  const queue = workQueue({ ...facts, me: ctx.me });
  render(html`<${WorkQueue} queue=${queue} notice=${notice} ctx=${ctx} />`, container);
  return queue;
}

export { transportsOf };
