// The freight grid: the organization's and its partners' trucks and loads as a board planners know
// (Trans.eu's and TIMOCOM's), in their words: lane by place names with flags, dates in their zone,
// capacity in units, body, status, partner. Sortable by any column, filtered (text, kind, partner,
// body, dates, weight, pallets, near a place), paginated, and linked both ways with the map: a row
// chosen is drawn highlighted on the map, a line clicked on the map chooses its row.
//
// Drawn as components (./ui.js), redrawn by difference: a row is its listing's (keyed by its id),
// so the button a planner has tabbed to (a row's, a column's) keeps the focus and the table its
// scroll through the redraws that follow events, a sort or a page turned. The order, the page, the
// row chosen and the place "near" are this module's state; the filters are the page's fields
// (index.html), read at every draw. A row's actions are what console.js' actionsFor gives (post.js'
// listingActions: a component, keyed by its listing, keeping the reason typed into it).
import { upgradeDateTimeInput } from './datetime.js';
import { html, render } from './ui.js';
import { Lane } from './lane.js';
import { filterRows, pageOf, rowOf, sortRows } from './grid-model.js';
import { localName, nameOf, statusOf, t } from './format.js';

/** The sortable columns (their headings: grid.column.<key>). */
const COLUMNS = ['kind', 'lane', 'dates', 'capacity', 'body', 'partner', 'status'];
const BODY_TYPES = ['curtainsider', 'box', 'refrigerated', 'insulated', 'tanker', 'silo', 'flatbed', 'lowLoader', 'tipper', 'containerChassis', 'carTransporter', 'walkingFloor', 'van', 'other'];
const $ = (id) => document.getElementById(id);
const number = (id) => ($(id).value === '' ? undefined : Number($(id).value));
const moment = (id) => ($(id).value ? Date.parse($(id).value) : undefined);

/** The headings: each column's button sorts by it (again: the other way). */
function GridHead({ sort, direction, onSort }) {
  return html`<tr>
    ${COLUMNS.map(
      (key) => html`<th key=${key} scope="col" aria-sort=${sort === key ? direction : 'none'}>
        <button type="button" class="sort" onClick=${() => onSort(key)}>${t(`grid.column.${key}`)}${sort === key ? (direction === 'ascending' ? ' ▲' : ' ▼') : ''}</button>
      </th>`,
    )}
    <th scope="col"><span class="visually-hidden">${t('grid.column.actions')}</span></th>
  </tr>`;
}

/** One listing's row: its button chooses it (on the map too). */
function GridRow({ row: r, chosen, places, actions, onChoose }) {
  return html`<tr class=${`row ${r.kind}${chosen ? ' chosen' : ''}`} data-listing=${r.id} aria-selected=${chosen ? 'true' : 'false'}>
    <td><button type="button" class="choose" onClick=${() => onChoose(r.id)} aria-label=${t(`grid.show.${r.kind}`, { lane: r.lane })}>${t(`grid.kind.${r.kind}`)}</button></td>
    <td><${Lane} listing=${r.listing} places=${places} /></td>
    <td>${r.dates}</td>
    <td>${r.capacity}</td>
    <td>${r.body}</td>
    <td>${r.ours ? t('grid.us', { name: r.partner }) : r.partner}</td>
    <td>${r.statusText}</td>
    <td>${actions ?? ''}</td>
  </tr>`;
}

/** The page's rows, or why there are none (nothing on the market, nothing the filters let through). */
function GridRows({ rows, chosen, places, empty, actionsFor, onChoose }) {
  if (!rows.length) return html`<tr key="empty"><td colspan=${String(COLUMNS.length + 1)} class="muted">${empty}</td></tr>`;
  return rows.map((r) => html`<${GridRow} key=${r.id} row=${r} chosen=${r.id === chosen} places=${places} actions=${actionsFor(r.listing)} onChoose=${onChoose} />`);
}

/** A select's options: the empty choice first (its words), then each value with its words. */
const Options = ({ empty, items }) => html`<option key="" value="">${empty}</option>${items.map(([value, text]) => html`<option key=${value} value=${value}>${text}</option>`)}`;

export function createGrid({ state, api, actionsFor, onChosen }) {
  const view = { sort: 'dates', direction: 'ascending', page: 1, chosen: null, near: undefined };
  // The option lists the console fills (the page's own words in them give way to the components').
  for (const id of ['grid-body', 'grid-partner', 'grid-near-list']) $(id).replaceChildren();
  render(html`<${Options} empty=${t('grid.anyBody')} items=${BODY_TYPES.map((b) => [b, statusOf(b)])} />`, $('grid-body'));
  // Between and and: dates in the planner's writing, with a calendar (console/datetime.js).
  upgradeDateTimeInput($('grid-from'));
  upgradeDateTimeInput($('grid-until'));
  for (const id of ['grid-status', 'grid-kind', 'grid-partner', 'grid-body', 'grid-from', 'grid-until', 'grid-weight', 'grid-pallets', 'grid-radius']) {
    $(id).addEventListener('change', () => ((view.page = 1), draw()));
  }
  $('grid-text').addEventListener('input', () => ((view.page = 1), draw()));
  $('grid-filters').addEventListener('submit', (e) => e.preventDefault());
  // "Near": a place found by name and a radius; the pickup or the delivery end within it.
  let timer;
  $('grid-near').addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      const text = $('grid-near').value.trim();
      const code = /\(([A-Z]{2}[A-Z0-9]{3})\)\s*$/.exec(text)?.[1];
      if (!text) {
        view.near = undefined;
        return draw();
      }
      if (!code) {
        if (text.length >= 2) {
          const { items } = await api.get(`/console/place-search?q=${encodeURIComponent(text)}`).catch(() => ({ items: [] }));
          render(
            items.map((p) => html`<option key=${p.code} value=${`${localName(p)} (${p.code})`} />`),
            $('grid-near-list'),
          );
        }
        return;
      }
      const { places } = await api.get(`/console/places?codes=${code}`);
      view.near = places[code]?.point ? { code, point: places[code].point } : undefined;
      view.page = 1;
      draw();
    }, 200);
  });
  $('grid-prev').addEventListener('click', () => ((view.page -= 1), draw()));
  $('grid-next').addEventListener('click', () => ((view.page += 1), draw()));

  function filters() {
    const radiusKm = number('grid-radius') ?? 100;
    const weightT = number('grid-weight');
    return {
      status: $('grid-status').value,
      kind: $('grid-kind').value || undefined,
      partner: $('grid-partner').value || undefined,
      body: $('grid-body').value || undefined,
      from: moment('grid-from'),
      until: moment('grid-until'),
      minWeightKg: weightT === undefined ? undefined : weightT * 1000,
      minPallets: number('grid-pallets'),
      near: view.near ? { point: view.near.point, radiusKm } : undefined,
      text: $('grid-text').value,
    };
  }

  /** The rows the filters let through, in order (the map draws the same ones). */
  function shown() {
    const ctx = { places: state.places, names: state.names, me: state.me };
    return sortRows(filterRows(state.listings.map((l) => rowOf(l, ctx)), filters(), state.places), view.sort, view.direction);
  }

  /** A column's button: sorted by it, ascending; again, the other way. */
  function onSort(key) {
    view.direction = view.sort === key && view.direction === 'ascending' ? 'descending' : 'ascending';
    view.sort = key;
    draw();
  }

  /** Draws the grid as the listings, the filters and the view are now; returns the listings shown (all pages). */
  function draw() {
    // The partners with a listing, by name; the one chosen stays chosen while it has one.
    const owners = [...new Set(state.listings.map((l) => l.ownerOrganizationId))].sort((a, b) => nameOf(a, state.names).localeCompare(nameOf(b, state.names)));
    const select = $('grid-partner');
    const chosenPartner = select.value;
    render(html`<${Options} empty=${t('grid.allPartners')} items=${owners.map((o) => [o, o === state.me ? t('grid.us', { name: nameOf(o, state.names) }) : nameOf(o, state.names)])} />`, select);
    select.value = owners.includes(chosenPartner) ? chosenPartner : '';
    const rows = shown();
    const page = pageOf(rows, view.page);
    view.page = page.page;
    render(html`<${GridHead} sort=${view.sort} direction=${view.direction} onSort=${onSort} />`, $('grid-head'));
    const empty = state.listings.length ? t('grid.noMatch') : t('grid.empty');
    render(html`<${GridRows} rows=${page.rows} chosen=${view.chosen} places=${state.places} empty=${empty} actionsFor=${actionsFor} onChoose=${choose} />`, $('grid-rows'));
    $('grid-count').textContent = t('grid.count', { shown: rows.length, total: state.listings.length, page: page.page, pages: page.pages });
    $('grid-prev').disabled = page.page <= 1;
    $('grid-next').disabled = page.page >= page.pages;
    return rows.map((r) => r.listing);
  }

  /** A row chosen (here or on the map): highlighted in both, the map brought to it. */
  function choose(id, { fromMap = false } = {}) {
    view.chosen = id;
    // Its page, if it is filtered in.
    const rows = shown();
    const index = rows.findIndex((r) => r.id === id);
    if (index >= 0) view.page = Math.floor(index / 25) + 1;
    draw();
    document.querySelector(`#grid-rows tr[data-listing="${CSS.escape(id)}"]`)?.scrollIntoView({ block: 'nearest' });
    onChosen(id, { fromMap });
  }

  return { render: draw, choose, shown: () => shown().map((r) => r.listing) };
}
