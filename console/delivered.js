// What the exchange delivered (GET /reports/exchange-impact): for the signed-in organization, per
// month, its committed matches, the kilometres that would have run empty and ran loaded, and the
// CO2e avoided, with the method in words, the inputs of every match, and the months as a CSV
// download. Shown to whoever may read commitments; read when opened and, while open, after every
// event of the organization's feed. Drawn as components (./ui.js): the period and the report read are its own state.
import { html, render, useState } from './ui.js';
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

/** The report's table: the months with an agreed transport, then the total. */
function ReportTable({ report }) {
  const cells = (m) => [number(m.matches) + (m.matchesWithoutWeight ? ` ${t('delivered.withoutWeight', { count: m.matchesWithoutWeight, value: number(m.matchesWithoutWeight) })}` : ''), kmText(m.loadedKm), tkmText(m.tonneKm), co2eText(m.kgCO2e)];
  return html`<div class="grid-wrap"><table class="grid delivered">
    <caption>${t('delivered.caption', { from: monthName(report.from), to: monthName(report.to) })}</caption>
    <thead><tr>${COLUMNS.map((c, i) => html`<th scope="col" class=${i ? 'figure' : undefined}>${t(`delivered.column.${c}`)}</th>`)}</tr></thead>
    <tbody>
      ${report.months.filter((m) => m.matches > 0).map((m) => html`<tr key=${m.month} data-month=${m.month}><th scope="row">${monthName(m.month)}</th>${cells(m).map((c) => html`<td class="figure">${c}</td>`)}</tr>`)}
    </tbody>
    <tfoot><tr data-month="total"><th scope="row">${t('delivered.total')}</th>${cells(report.totals).map((c) => html`<td class="figure">${c}</td>`)}</tr></tfoot>
  </table></div>`;
}

/** How the figures are made, in words. */
function Method({ method: m }) {
  const line = (label, text) => html`<li><strong>${label}: </strong>${text}</li>`;
  return html`<div class="method"><h3>${t('delivered.methodTitle')}</h3><ul>
    ${line(t('delivered.baseline'), m.baseline)}${line(t('delivered.distance'), m.distance)}${line(t('delivered.formula'), m.formula)}
    <li class="factor">${factorText(m.factor)}</li>
    ${line(t('delivered.months'), m.months)}${line(t('delivered.omitted'), m.omitted)}
  </ul></div>`;
}

/** Every agreed transport the figures come from. */
function Inputs({ report, places }) {
  const items = report.months.flatMap((m) => m.items);
  if (items.length === 0) return html`<p class="muted">${t('delivered.noMatches')}</p>`;
  const or = (v, f) => (v === null || v === undefined ? NONE : f(v));
  return html`<details class="inputs"><summary>${t('delivered.inputsTitle')}</summary><div class="grid-wrap"><table class="grid">
    <thead><tr>${INPUT_COLUMNS.map((c) => html`<th scope="col">${t(`delivered.input.${c}`)}</th>`)}</tr></thead>
    <tbody>${items.map((i) => html`<tr key=${i.commitmentId} data-commitment=${i.commitmentId}>
      ${[dateOf(i.committedAt), placeText(i.pickup, places), placeText(i.delivery, places), or(i.weightKg, tonneText), kmText(i.loadKm), or(i.offerLegKm, kmText), kmText(i.loadedKm), or(i.tonneKm, tkmText), or(i.kgCO2e, co2eText)].map((c) => html`<td>${c}</td>`)}
    </tr>`)}</tbody>
  </table></div></details>`;
}

/**
 * The report as a component: the period chosen, the report read, what is being done and what went
 * wrong are its own state. `handle.refresh` is how the page asks it to read again (opened, an event).
 */
function Delivered({ api, places, section, handle }) {
  const [from, setFrom] = useState(monthsBack(thisMonth(), 11));
  const [to, setTo] = useState(thisMonth());
  const [report, setReport] = useState(undefined);
  const [status, setStatus] = useState('');
  const [problem, setProblem] = useState('');
  const query = (extra = '') => `/reports/exchange-impact?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}${extra}`;
  const failed = (err) => {
    if (err?.sessionEnded) return;
    setProblem(`${err?.problem?.title ?? t('console.error')}${err?.problem?.detail ? `: ${err.problem.detail}` : ''}`);
  };

  async function refresh() {
    if (!section.open) return;
    setProblem('');
    if (!report) setStatus(t('delivered.loading'));
    try {
      const read = await api.get(query());
      // The stops' places by name: the codes the report names, asked once each.
      const areas = read.months.flatMap((m) => m.items).flatMap((i) => [i.pickup, i.delivery]).flatMap((label) => String(label ?? '').split(' + ')).filter((c) => /^[A-Z]{2}[A-Z0-9]{3}$/.test(c));
      await loadPlaces(api, areas.map((code) => ({ originArea: { kind: 'unlocode', code } })), places).catch(() => undefined);
      setReport(read);
      setStatus('');
    } catch (err) {
      setStatus('');
      failed(err);
    }
  }
  handle.refresh = refresh;

  // The CSV comes with the user's token, so it is fetched and handed to the browser as a file.
  async function downloadCsv() {
    setProblem('');
    setStatus(t('delivered.downloading'));
    try {
      const res = await fetch(query('&format=csv'), { headers: { authorization: `Bearer ${await api.token()}`, accept: 'text/csv, application/problem+json' } });
      if (!res.ok) {
        const p = await res.json().catch(() => ({ title: `HTTP ${res.status}` }));
        throw Object.assign(new Error(p.detail ?? p.title), { problem: p });
      }
      const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? 'exchange-impact.csv';
      const url = URL.createObjectURL(await res.blob());
      const link = Object.assign(document.createElement('a'), { href: url, download: name, hidden: true });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      setStatus('');
    } catch (err) {
      setStatus('');
      failed(err);
    }
  }

  const empty = report ? report.months.filter((m) => m.matches === 0).length : 0;
  return html`
    <summary><h2 id="delivered-title">${t('delivered.title')}</h2></summary>
    <form class="filters" onSubmit=${(e) => (e.preventDefault(), refresh())}>
      <label for="delivered-from">${t('delivered.from')}</label>
      <input id="delivered-from" type="month" required value=${from} onInput=${(e) => setFrom(e.currentTarget.value)} />
      <label for="delivered-to">${t('delivered.to')}</label>
      <input id="delivered-to" type="month" required value=${to} onInput=${(e) => setTo(e.currentTarget.value)} />
      <button type="submit">${t('delivered.show')}</button>
      <button id="delivered-download" type="button" onClick=${downloadCsv}>${t('delivered.download')}</button>
    </form>
    <p class="muted" aria-live="polite">${status}</p>
    <p class="field-error" role="alert">${problem}</p>
    <div id="delivered-report">
      ${report ? html`
        <${ReportTable} report=${report} />
        ${empty ? html`<p class="muted">${t('delivered.emptyMonths', { count: empty, value: number(empty) })}</p>` : ''}
        <${Method} method=${report.method} />
        <${Inputs} report=${report} places=${places} />` : ''}
    </div>`;
}

export function createDelivered({ api, places = {} }) {
  const handle = { refresh: async () => undefined };
  const section = el('details', { id: 'delivered', class: 'wide', ontoggle: () => section.open && handle.refresh() });
  document.getElementById('main').insertBefore(section, document.getElementById('partners'));
  render(html`<${Delivered} api=${api} places=${places} section=${section} handle=${handle} />`, section);
  return { section, refresh: () => handle.refresh() };
}
