// The freight grid: the organization's and its partners' trucks and loads as a board planners know
// (Trans.eu's and TIMOCOM's), in their words: lane by place names with flags, dates in their zone,
// capacity in units, body, status, partner. Sortable by any column, filtered (text, kind, partner,
// body, dates, weight, pallets, near a place), paginated, and linked both ways with the map: a row
// chosen is drawn highlighted on the map, a line clicked on the map chooses its row.
import { upgradeDateTimeInput } from './datetime.js';
import { el, laneView, replacePreserving } from './views.js';
import { filterRows, pageOf, rowOf, sortRows } from './grid-model.js';
import { nameOf, statusOf, t } from './format.js';

/** The sortable columns (their headings: grid.column.<key>). */
const COLUMNS = ['kind', 'lane', 'dates', 'capacity', 'body', 'partner', 'status'];
const BODY_TYPES = ['curtainsider', 'box', 'refrigerated', 'insulated', 'tanker', 'silo', 'flatbed', 'lowLoader', 'tipper', 'containerChassis', 'carTransporter', 'walkingFloor', 'van', 'other'];
const $ = (id) => document.getElementById(id);
const number = (id) => ($(id).value === '' ? undefined : Number($(id).value));
const moment = (id) => ($(id).value ? Date.parse($(id).value) : undefined);

export function createGrid({ state, api, actionsFor, onChosen }) {
  const view = { sort: 'dates', direction: 'ascending', page: 1, chosen: null, near: undefined };
  $('grid-body').replaceChildren(el('option', { value: '' }, t('grid.anyBody')), ...BODY_TYPES.map((b) => el('option', { value: b }, statusOf(b))));
  // Between and and: dates in the planner's writing, with a calendar (console/datetime.js).
  upgradeDateTimeInput($('grid-from'));
  upgradeDateTimeInput($('grid-until'));
  for (const id of ['grid-status', 'grid-kind', 'grid-partner', 'grid-body', 'grid-from', 'grid-until', 'grid-weight', 'grid-pallets', 'grid-radius']) {
    $(id).addEventListener('change', () => ((view.page = 1), render()));
  }
  $('grid-text').addEventListener('input', () => ((view.page = 1), render()));
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
        return render();
      }
      if (!code) {
        if (text.length >= 2) {
          const { items } = await api.get(`/console/place-search?q=${encodeURIComponent(text)}`).catch(() => ({ items: [] }));
          $('grid-near-list').replaceChildren(...items.map((p) => el('option', { value: `${p.name} (${p.code})` })));
        }
        return;
      }
      const { places } = await api.get(`/console/places?codes=${code}`);
      view.near = places[code]?.point ? { code, point: places[code].point } : undefined;
      view.page = 1;
      render();
    }, 200);
  });
  $('grid-prev').addEventListener('click', () => ((view.page -= 1), render()));
  $('grid-next').addEventListener('click', () => ((view.page += 1), render()));

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

  function header() {
    return el(
      'tr',
      {},
      COLUMNS.map((key) =>
        el(
          'th',
          { scope: 'col', 'aria-sort': view.sort === key ? view.direction : 'none' },
          el('button', { type: 'button', class: 'sort', onclick: () => ((view.direction = view.sort === key && view.direction === 'ascending' ? 'descending' : 'ascending'), (view.sort = key), render()) }, t(`grid.column.${key}`), view.sort === key ? (view.direction === 'ascending' ? ' ▲' : ' ▼') : ''),
        ),
      ),
      el('th', { scope: 'col' }, el('span', { class: 'visually-hidden' }, t('grid.column.actions'))),
    );
  }

  function render() {
    const owners = [...new Set(state.listings.map((l) => l.ownerOrganizationId))].sort((a, b) => nameOf(a, state.names).localeCompare(nameOf(b, state.names)));
    const select = $('grid-partner');
    const chosenPartner = select.value;
    if (select.options.length !== owners.length + 1) select.replaceChildren(el('option', { value: '' }, t('grid.allPartners')), ...owners.map((o) => el('option', { value: o }, o === state.me ? t('grid.us', { name: nameOf(o, state.names) }) : nameOf(o, state.names))));
    select.value = owners.includes(chosenPartner) ? chosenPartner : '';
    const rows = shown();
    const page = pageOf(rows, view.page);
    view.page = page.page;
    $('grid-head').replaceChildren(header());
    const body = page.rows.map((r) =>
      el(
        'tr',
        { class: `row ${r.kind}${r.id === view.chosen ? ' chosen' : ''}`, 'data-listing': r.id, 'aria-selected': r.id === view.chosen ? 'true' : 'false' },
        el('td', {}, el('button', { type: 'button', class: 'choose', onclick: () => choose(r.id), 'aria-label': t(`grid.show.${r.kind}`, { lane: r.lane }) }, t(`grid.kind.${r.kind}`))),
        el('td', {}, laneView(r.listing, state.places)),
        el('td', {}, r.dates),
        el('td', {}, r.capacity),
        el('td', {}, r.body),
        el('td', {}, r.ours ? t('grid.us', { name: r.partner }) : r.partner),
        el('td', {}, r.statusText),
        el('td', {}, actionsFor(r.listing) ?? ''),
      ),
    );
    const rowsEl = $('grid-rows');
    replacePreserving(rowsEl, ...(body.length ? body : [el('tr', {}, el('td', { colspan: String(COLUMNS.length + 1), class: 'muted' }, state.listings.length ? t('grid.noMatch') : t('grid.empty')))]));
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
    render();
    document.querySelector(`#grid-rows tr[data-listing="${CSS.escape(id)}"]`)?.scrollIntoView({ block: 'nearest' });
    onChosen(id, { fromMap });
  }

  return { render, choose, shown: () => shown().map((r) => r.listing) };
}
