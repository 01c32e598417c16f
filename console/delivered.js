// What the exchange delivered (GET /reports/exchange-impact): for the signed-in organization, per
// month, its committed matches, the kilometres that would have run empty and ran loaded, and the
// CO2e avoided, with the method in words, the inputs of every match, and the months as a CSV
// download. Shown to whoever may read commitments; read when opened and, while open, after every
// event of the organization's feed.
import { el } from './views.js';
import { placeOf, settings, t } from './format.js';
import { loadPlaces } from './places.js';

/** The report's columns and the inputs' (their headings: delivered.column.<key>, delivered.input.<key>). */
const COLUMNS = ['month', 'matches', 'emptyKm', 'tkm', 'co2e'];
const INPUT_COLUMNS = ['committed', 'from', 'to', 'weight', 'loadKm', 'offerLegKm', 'loadedKm', 'tkm', 'co2e'];
/** An input the report does not know. */
const NONE = '–';

const number = (value, digits = 0) => new Intl.NumberFormat(settings.locale, { maximumFractionDigits: digits, minimumFractionDigits: 0 }).format(value);
const monthName = (month) => new Intl.DateTimeFormat(settings.locale, { year: 'numeric', month: 'long', timeZone: 'UTC' }).format(new Date(`${month}-01T00:00:00Z`));
const dateOf = (iso) => new Intl.DateTimeFormat(settings.locale, { dateStyle: 'medium', ...(settings.timeZone ? { timeZone: settings.timeZone } : {}) }).format(new Date(iso));

/**
 * A tonnage or a tonne-kilometre figure: whole from 100 on, three significant digits below, so
 * that a few small part loads (0.4 t and 0.45 t) are not rounded to "0 t" or "1 t".
 */
const amount = (value) => (Math.abs(value) >= 100 ? number(value) : new Intl.NumberFormat(settings.locale, { maximumSignificantDigits: 3 }).format(value));

/** A weight given in kilograms, in tonnes. */
export const tonneText = (kg) => t('unit.t', { value: amount(kg / 1000) });

/** Tonne-kilometres in words. */
export const tkmText = (tkm) => t('unit.tkm', { value: amount(tkm) });

/** Kilometres in words, whole. */
export const kmText = (km) => t('unit.km', { value: number(km) });

/** kg CO2e in words: tonnes with one decimal from 100 kg on, kilograms below. */
export function co2eText(kg) {
  return kg >= 100 || kg === 0 ? t('unit.tCO2e', { value: number(kg / 1000, 1) }) : t('unit.kgCO2e', { value: number(kg, 0) });
}

/** The emission factor in words; its figures and names as the report gives them. */
function factorText(f) {
  const scope = f.scope === 'WTW' ? t('delivered.wellToWheel') : f.scope;
  return t('delivered.factor', { grams: number(f.gCO2ePerTonneKm, 3), scope, vehicle: f.vehicle, region: f.region, source: f.source });
}

const thisMonth = () => new Date().toISOString().slice(0, 7);
const monthsBack = (month, n) => {
  const d = new Date(`${month}-01T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() - n);
  return d.toISOString().slice(0, 7);
};

/**
 * A stop as the report names it ("DEHAM", "DE-BY", "FR", "DEHAM + NLRTM", a circle in words) by
 * its place's name where the console knows the code ("Hamburg"), else as given.
 */
function placeText(label, places) {
  return String(label ?? '')
    .split(' + ')
    .map((part) => (/^[A-Z]{2}([A-Z0-9]{3}|-[A-Z0-9]{1,3})?$/.test(part) ? placeOf(part.length === 2 ? { kind: 'country', code: part } : part.includes('-') ? { kind: 'subdivision', code: part } : { kind: 'unlocode', code: part }, places) : part))
    .join(' + ');
}

export function createDelivered({ api, places = {} }) {
  const fromInput = el('input', { id: 'delivered-from', type: 'month', value: monthsBack(thisMonth(), 11), required: true });
  const toInput = el('input', { id: 'delivered-to', type: 'month', value: thisMonth(), required: true });
  const status = el('p', { class: 'muted', 'aria-live': 'polite' });
  const problem = el('p', { class: 'field-error', role: 'alert' });
  const body = el('div', { id: 'delivered-report' });
  const download = el('button', { id: 'delivered-download', type: 'button', onclick: () => downloadCsv() }, t('delivered.download'));
  const form = el('form', { class: 'filters', onsubmit: (e) => (e.preventDefault(), refresh()) },
    el('label', { for: fromInput.id }, t('delivered.from')), fromInput, el('label', { for: toInput.id }, t('delivered.to')), toInput, el('button', { type: 'submit' }, t('delivered.show')), download);
  const section = el('details', { id: 'delivered', class: 'wide', ontoggle: () => section.open && refresh() },
    el('summary', {}, el('h2', { id: 'delivered-title' }, t('delivered.title'))), form, status, problem, body);
  document.getElementById('main').insertBefore(section, document.getElementById('partners'));

  const query = (extra = '') => `/reports/exchange-impact?from=${encodeURIComponent(fromInput.value)}&to=${encodeURIComponent(toInput.value)}${extra}`;
  const failed = (err) => {
    if (err?.sessionEnded) return;
    problem.textContent = `${err?.problem?.title ?? t('console.error')}${err?.problem?.detail ? `: ${err.problem.detail}` : ''}`;
  };

  function table(report) {
    const cells = (m) => [number(m.matches) + (m.matchesWithoutWeight ? ` ${t('delivered.withoutWeight', { count: m.matchesWithoutWeight, value: number(m.matchesWithoutWeight) })}` : ''), kmText(m.loadedKm), tkmText(m.tonneKm), co2eText(m.kgCO2e)];
    return el('div', { class: 'grid-wrap' }, el('table', { class: 'grid delivered' },
      el('caption', {}, t('delivered.caption', { from: monthName(report.from), to: monthName(report.to) })),
      el('thead', {}, el('tr', {}, COLUMNS.map((c, i) => el('th', { scope: 'col', class: i ? 'figure' : undefined }, t(`delivered.column.${c}`))))),
      // Only the months with an agreed transport; the empty ones are counted in one line below.
      el('tbody', {}, report.months.filter((m) => m.matches > 0).map((m) => el('tr', { 'data-month': m.month }, el('th', { scope: 'row' }, monthName(m.month)), cells(m).map((c) => el('td', { class: 'figure' }, c))))),
      el('tfoot', {}, el('tr', { 'data-month': 'total' }, el('th', { scope: 'row' }, t('delivered.total')), cells(report.totals).map((c) => el('td', { class: 'figure' }, c))))));
  }

  function method(m) {
    const line = (label, text) => el('li', {}, el('strong', {}, `${label}: `), text);
    return el('div', { class: 'method' }, el('h3', {}, t('delivered.methodTitle')), el('ul', {},
      line(t('delivered.baseline'), m.baseline), line(t('delivered.distance'), m.distance), line(t('delivered.formula'), m.formula), el('li', { class: 'factor' }, factorText(m.factor)),
      line(t('delivered.months'), m.months), line(t('delivered.omitted'), m.omitted)));
  }

  function inputs(report) {
    const items = report.months.flatMap((m) => m.items);
    if (items.length === 0) return el('p', { class: 'muted' }, t('delivered.noMatches'));
    const or = (v, f) => (v === null || v === undefined ? NONE : f(v));
    return el('details', { class: 'inputs' }, el('summary', {}, t('delivered.inputsTitle')), el('div', { class: 'grid-wrap' }, el('table', { class: 'grid' },
      el('thead', {}, el('tr', {}, INPUT_COLUMNS.map((c) => el('th', { scope: 'col' }, t(`delivered.input.${c}`))))),
      el('tbody', {}, items.map((i) => el('tr', { 'data-commitment': i.commitmentId },
        [dateOf(i.committedAt), placeText(i.pickup, places), placeText(i.delivery, places), or(i.weightKg, tonneText), kmText(i.loadKm), or(i.offerLegKm, kmText), kmText(i.loadedKm), or(i.tonneKm, tkmText), or(i.kgCO2e, co2eText)].map((c) => el('td', {}, c))))))));
  }

  async function refresh() {
    if (!section.open) return;
    problem.textContent = '';
    if (!body.childElementCount) status.textContent = t('delivered.loading');
    try {
      const report = await api.get(query());
      // The stops' places by name: the codes the report names, asked once each.
      const areas = report.months.flatMap((m) => m.items).flatMap((i) => [i.pickup, i.delivery]).flatMap((label) => String(label ?? '').split(' + ')).filter((c) => /^[A-Z]{2}[A-Z0-9]{3}$/.test(c));
      await loadPlaces(api, areas.map((code) => ({ originArea: { kind: 'unlocode', code } })), places).catch(() => undefined);
      const empty = report.months.filter((m) => m.matches === 0).length;
      body.replaceChildren(table(report), empty ? el('p', { class: 'muted' }, t('delivered.emptyMonths', { count: empty, value: number(empty) })) : '', method(report.method), inputs(report));
      status.textContent = '';
    } catch (err) {
      status.textContent = '';
      failed(err);
    }
  }

  // The CSV comes with the user's token, so it is fetched and handed to the browser as a file.
  async function downloadCsv() {
    problem.textContent = '';
    status.textContent = t('delivered.downloading');
    try {
      const res = await fetch(query('&format=csv'), { headers: { authorization: `Bearer ${await api.token()}`, accept: 'text/csv, application/problem+json' } });
      if (!res.ok) {
        const p = await res.json().catch(() => ({ title: `HTTP ${res.status}` }));
        throw Object.assign(new Error(p.detail ?? p.title), { problem: p });
      }
      const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? 'exchange-impact.csv';
      const url = URL.createObjectURL(await res.blob());
      const link = el('a', { href: url, download: name, hidden: true });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      status.textContent = '';
    } catch (err) {
      status.textContent = '';
      failed(err);
    }
  }

  return { section, refresh };
}
