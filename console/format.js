// What the console says, in the planner's words and language: places by name with their country's
// flag, times in the planner's own time zone, capacity in units (24 t, 33 pallets, 13.6 ldm),
// prices as money, organizations by name, reason codes as sentences. Every word comes from one
// catalogue (console/i18n/: English, German, Polish, the same keys in each) through t();
// numbers, dates, money, country names and lists through Intl in the chosen locale. Pure functions
// of data (test/unit/console-format.test.ts, test/unit/console-i18n.test.ts).
// The catalogues are data (JSON, as translators' tools read and write them), loaded as JSON modules.
import en from './i18n/en.json' with { type: 'json' };
import de from './i18n/de.json' with { type: 'json' };
import pl from './i18n/pl.json' with { type: 'json' };
import { pointKey } from './places.js';

/** The locale and time zone the console speaks in: the browser's, unless a test pins them. */
export const settings = { locale: undefined, timeZone: undefined };

// ---------------------------------------------------------------------------------------------
// Languages: the catalogue's, chosen from the browser's languages, overridden by the picker.

/**
 * An Intl formatter for the current settings, made once per kind, locale and options (a grid of
 * 500 rows asks for the same few thousands of times).
 */
const formatters = new Map();
function intl(Kind, options = {}) {
  const key = `${Kind.name}|${settings.locale}|${JSON.stringify(options)}`;
  let made = formatters.get(key);
  if (!made) formatters.set(key, (made = new Kind(settings.locale, options)));
  return made;
}

/** The languages the console speaks, each by its own name. */
export const LANGUAGES = { en: 'English', de: 'Deutsch', pl: 'Polski' };
const STORED = 'pcx-console-language';

/** The catalogue language of a locale tag: "de-AT" → "de"; one it does not speak → "en". */
export function languageOf(locale) {
  const primary = String(locale ?? '').toLowerCase().split(/[-_]/)[0];
  return Object.hasOwn(LANGUAGES, primary) ? primary : 'en';
}

/** The language the console speaks now. */
export function language() {
  return languageOf(settings.locale ?? intl(Intl.NumberFormat).resolvedOptions().locale);
}

/**
 * The locale to speak and format in: the stored choice if there is one, else the first of the
 * browser's languages the catalogue has. Formatting keeps the browser's region when it has the
 * same language ("en-GB" dates for an English British browser, "de-AT" for an Austrian one).
 */
export function chooseLocale(stored, preferred = []) {
  const wanted = Object.hasOwn(LANGUAGES, stored ?? '') ? stored : preferred.map((tag) => String(tag).toLowerCase().split(/[-_]/)[0]).find((l) => Object.hasOwn(LANGUAGES, l)) ?? 'en';
  return preferred.find((tag) => String(tag).toLowerCase().split(/[-_]/)[0] === wanted) ?? wanted;
}

const browserLanguages = () => (typeof navigator !== 'undefined' ? [...(navigator.languages ?? []), navigator.language].filter(Boolean) : []);
function storage() {
  try {
    return typeof window !== 'undefined' ? window.localStorage : undefined;
  } catch {
    return undefined;
  }
}

/** Speaks `lang` from now on: kept for the next visit, `<html lang>` set. */
export function setLanguage(lang) {
  const chosen = Object.hasOwn(LANGUAGES, lang) ? lang : 'en';
  storage()?.setItem(STORED, chosen);
  settings.locale = chooseLocale(chosen, browserLanguages());
  if (typeof document !== 'undefined') document.documentElement.lang = chosen;
  return chosen;
}

// In the browser: the stored choice or the browser's languages, before anything is said.
if (typeof window !== 'undefined' && typeof document !== 'undefined' && settings.locale === undefined) {
  settings.locale = chooseLocale(storage()?.getItem(STORED) ?? undefined, browserLanguages());
  document.documentElement.lang = language();
}

/**
 * The language picker for the page's header: a labelled select of the languages, each by its own
 * name. A choice is kept (localStorage) and, by default, the page is loaded again in it (the
 * session survives a reload; a command kept for after a sign-in too).
 */
export function mountLanguagePicker(container, { onChange = () => location.reload() } = {}) {
  const select = document.createElement('select');
  select.id = 'language';
  for (const [code, name] of Object.entries(LANGUAGES)) {
    const option = document.createElement('option');
    option.value = code;
    option.lang = code;
    option.textContent = name;
    select.append(option);
  }
  select.value = language();
  const label = document.createElement('label');
  label.htmlFor = 'language';
  label.className = 'visually-hidden';
  label.textContent = t('language.label');
  select.addEventListener('change', () => onChange(setLanguage(select.value)));
  container.append(label, select);
  return select;
}

/**
 * The page's own words (the HTML api/console.ts serves): an element marked data-i18n="key" gets
 * the message as its text; data-i18n-placeholder, data-i18n-title and data-i18n-aria-label give
 * that attribute the message of their key. Text next to child elements is wrapped in a marked
 * <span> (a marked element's children are replaced by the text).
 */
export function translatePage(root = document) {
  for (const node of root.querySelectorAll('[data-i18n]')) node.textContent = t(node.getAttribute('data-i18n'));
  for (const attribute of ['placeholder', 'title', 'aria-label']) {
    for (const node of root.querySelectorAll(`[data-i18n-${attribute}]`)) node.setAttribute(attribute, t(node.getAttribute(`data-i18n-${attribute}`)));
  }
  if (typeof document !== 'undefined' && root === document) document.title = t('page.title');
}

/** Whether the catalogue has a key (in English, which has them all). */
export function has(key) {
  return Object.hasOwn(CATALOGUE.en, key);
}

/**
 * A message of the catalogue in the current language, its {placeholders} filled: numbers as the
 * locale writes them, anything else as text. A message with plural forms ({ one, few, many, other })
 * takes the form of `count` by the locale's plural rules (Polish: 1 paleta, 2 palety, 5 palet).
 * A key missing in the language falls back to English, a key missing everywhere to itself.
 */
export function t(key, params = {}) {
  const lang = language();
  let message = CATALOGUE[lang]?.[key] ?? CATALOGUE.en[key] ?? key;
  if (typeof message === 'object') message = message[intl(Intl.PluralRules).select(Number(params.count ?? 0))] ?? message.other;
  return message.replace(/\{(\w+)\}/g, (whole, name) => {
    const value = params[name];
    if (value === undefined || value === null) return whole;
    return typeof value === 'number' ? number(value) : String(value);
  });
}

/** A number as the locale writes it, with at most `digits` decimals: 13.6 → "13,6" in German. */
export function number(value, digits = 1) {
  return intl(Intl.NumberFormat, { maximumFractionDigits: digits }).format(value);
}

/** Alternatives as the language lists them: "A or B", "A oder B", "A lub B". */
export function anyOf(items) {
  return intl(Intl.ListFormat, { type: 'disjunction' }).format(items.map(String));
}

// ---------------------------------------------------------------------------------------------
// Places, times, units, money.

const regionNames = () => intl(Intl.DisplayNames, { type: 'region' });

/** A country's flag (regional indicator symbols) from its ISO 3166-1 code. */
export function flag(country) {
  if (!/^[A-Z]{2}$/.test(country ?? '')) return '';
  return String.fromCodePoint(...[...country].map((c) => 0x1f1e6 + c.charCodeAt(0) - 65));
}

export function countryName(code) {
  try {
    return regionNames().of(code) ?? code;
  } catch {
    return code;
  }
}

const degrees = (value, positive, negative) =>
  `${intl(Intl.NumberFormat, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(Math.abs(value))}° ${t(`compass.${value >= 0 ? positive : negative}`)}`;

/** A UN/LOCODE place's name in the planner's language where the broker knows one ("Warschau" for PLWAW in German), else as UN/LOCODE spells it. */
export const localName = (place) => place?.names?.[language()] ?? place?.name;

/** An area in words: "Hamburg", "Germany", "DE-HH, Germany", "50 km around Schoten" (else "50 km around 51.92° N, 4.47° E") (its flag: countryOf). */
export function placeOf(area, places = {}) {
  if (!area) return t('place.somewhere');
  switch (area.kind) {
    case 'unlocode':
      return localName(places[area.code]) ?? area.code;
    case 'country':
      return countryName(area.code);
    case 'subdivision': {
      // Its name in the planner's language where the shipped names have it ("Bayern, Deutschland").
      const names = places[area.code]?.names;
      return t('place.subdivision', { name: names ? (names[language()] ?? names.en) : area.code, country: countryName(area.code.slice(0, 2)) });
    }
    case 'circle': {
      // Named by the place nearest its centre where the broker found one (console/places.js).
      const near = places[`@${pointKey(area.center)}`];
      if (near?.name) return t('place.circleNear', { radius: t('unit.km', { value: number(area.radiusKm, 1) }), name: localName(near) });
      return t('place.circle', { radius: t('unit.km', { value: number(area.radiusKm, 1) }), latitude: degrees(area.center[1], 'N', 'S'), longitude: degrees(area.center[0], 'E', 'W') });
    }
    case 'list':
      return anyOf(area.areas.map((a) => placeOf(a, places)));
    default:
      return t('place.drawn');
  }
}

/** The country an area lies in, when its code says (a UN/LOCODE, a subdivision, a country). */
export function countryOf(area) {
  return area && typeof area.code === 'string' && /^[A-Z]{2}/.test(area.code) ? area.code.slice(0, 2) : undefined;
}

/** A listing's two areas: where from, where to. */
export function endsOf(listing) {
  return listing.kind === 'offer' || listing.originArea ? [listing.originArea, listing.destinationArea] : [listing.pickupArea, listing.deliveryArea];
}

/** Where a listing goes from and to. */
export function laneOf(listing, places) {
  const [from, to] = endsOf(listing);
  return `${placeOf(from, places)} → ${placeOf(to, places)}`;
}

const dateTime = (options) => intl(Intl.DateTimeFormat, { timeZone: settings.timeZone, ...options });

/** A moment in the planner's time zone: "12 Dec 2026, 08:00 CET" (German "12.12.2026, 08:00 MEZ"). */
export function when(iso) {
  if (!iso) return '';
  return dateTime({ dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso)) + ` ${zoneOf(iso)}`;
}

/** A moment in the planner's time zone without the zone's name (the organization's pages): "12 Dec 2026, 08:00". */
export function whenShort(iso) {
  return iso ? dateTime({ dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso)) : '';
}

function zoneOf(iso) {
  const part = dateTime({ timeZoneName: 'short' }).formatToParts(new Date(iso)).find((p) => p.type === 'timeZoneName');
  return part?.value ?? '';
}

/** A window: "12 Dec, 08:00 – 14:00 CET" within a day, "12 Dec, 08:00 – 14 Dec, 18:00 CET" across days. */
export function windowOf(w) {
  if (!w?.start || !w?.end) return '';
  const day = dateTime({ day: 'numeric', month: 'short' });
  const time = dateTime({ hour: '2-digit', minute: '2-digit' });
  const [start, end] = [new Date(w.start), new Date(w.end)];
  const sameDay = day.format(start) === day.format(end);
  return `${day.format(start)}, ${time.format(start)} – ${sameDay ? '' : `${day.format(end)}, `}${time.format(end)} ${zoneOf(w.end)}`;
}

const KG_PER = { KGM: 1, TNE: 1000, GRM: 0.001, LBR: 0.45359237 };
const M3_PER = { MTQ: 1, LTR: 0.001, DMQ: 0.001, FTQ: 0.028316846592 };
const M_PER = { MTR: 1, CMT: 0.01, MMT: 0.001, FOT: 0.3048 };

/** A weight in tonnes from 1 t up, else kilograms. */
export function weightOf(w) {
  if (!w) return '';
  const kg = w.value * (KG_PER[w.unitCode] ?? 1);
  return kg >= 1000 ? t('unit.t', { value: number(kg / 1000) }) : t('unit.kg', { value: number(kg, 0) });
}

/** Pallets, counted in the language's plural: "33 pallets", "33 Paletten", "33 palety", "5 palet". */
export function palletsOf(count) {
  const whole = Math.round(Number(count));
  return t('unit.pallets', { count: whole, value: number(whole, 0) });
}

/** Capacity in words: "24 t, 33 pallets, 13.6 ldm, 80 m³". */
export function capacityOf(c) {
  if (!c) return '';
  const parts = [];
  if (c.weight) parts.push(weightOf(c.weight));
  if (c.palletSpaces !== undefined) parts.push(palletsOf(c.palletSpaces));
  if (c.loadingMetres) parts.push(t('unit.ldm', { value: number(c.loadingMetres.value * (M_PER[c.loadingMetres.unitCode] ?? 1)) }));
  if (c.volume) parts.push(t('unit.m3', { value: number(c.volume.value * (M3_PER[c.volume.unitCode] ?? 1)) }));
  return parts.join(', ');
}

/** Money: "€875.00" (German and Polish "875,00 €"). */
export function moneyOf(p) {
  if (!p || typeof p.amount !== 'number' || !/^[A-Z]{3}$/.test(p.currency ?? '')) return '';
  return intl(Intl.NumberFormat, { style: 'currency', currency: p.currency }).format(p.amount);
}

/** An address on one line. */
export function addressOf(a) {
  if (!a) return '';
  return [...(a.lines ?? []), [a.postalCode, a.city].filter(Boolean).join(' '), a.countryCode ? countryName(a.countryCode) : ''].filter(Boolean).join(', ');
}

// ---------------------------------------------------------------------------------------------
// Words for the broker's codes: criteria, reason codes, statuses. The catalogue names the known
// ones; an unknown one (a newer broker) is said as its code's words.

const codeWords = (s) => String(s ?? '').replace(/_/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();

/** A criterion's name: "pickupArea" → "Pickup area", "capacity.weightKg" → "Capacity: weight". */
export function criterionName(name) {
  if (has(`criterion.${name}`)) return t(`criterion.${name}`);
  const [head, tail] = String(name).split('.');
  const words = (s) => s.replace(/Kg$/, '').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  const text = tail ? `${words(head)}: ${words(tail)}` : words(head);
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A reason code as words: "CAPACITY_WEIGHT_FITS" → "capacity weight fits". */
export function reasonOf(code) {
  if (!code) return '';
  return has(`reason.${code}`) ? t(`reason.${code}`) : String(code).toLowerCase().replace(/_/g, ' ');
}

/** What a connector's scopes let it do, in words ("publish trucks, see proposals"); an unknown scope as its code. */
export function connectorScopesOf(scopes = []) {
  return scopes.map((s) => (has(`connectorScope.${s}`) ? t(`connectorScope.${s}`) : s)).join(', ');
}

/** An organization by name: the directory's (GET /partners), else its id. */
export function nameOf(organizationId, names = {}) {
  return names[organizationId] ?? organizationId ?? '';
}

/**
 * A status (or another of the broker's words: a body type, a milestone, a term) as a planner reads
 * it: "partiallyMatched" → "partially matched" ("teilweise vermittelt", "częściowo dopasowane"),
 * "PENDING_INITIATOR_ACCEPT" → "pending initiator accept".
 */
export function statusOf(status) {
  return has(`status.${status}`) ? t(`status.${status}`) : codeWords(status);
}

/** A quantity of a capacity dimension as the explanation gives it (the unit is the dimension's). */
function amountOf(dimension, value, unit) {
  if (dimension.startsWith('weight')) return weightOf({ value, unitCode: unit || 'KGM' });
  if (dimension.startsWith('pallet')) return palletsOf(value);
  if (dimension.startsWith('loading')) return t('unit.ldm', { value: number(value) });
  if (dimension.startsWith('volume')) return t('unit.m3', { value: number(value) });
  return `${number(value)} ${unit ?? ''}`.trim();
}

/** Kilometres: "150 km"; "? km" when not known. */
export function km(v) {
  return t('unit.km', { value: typeof v === 'number' ? number(v, 0) : '?' });
}

/**
 * How the broker measured the distances, in words: its model is named as data ("great-circle x 1.3",
 * core/matching/distance.ts), which a planner reads as "as the crow flies × 1.3 for the roads".
 * A model the console does not know is shown as named.
 */
export function distanceModelText(model) {
  const greatCircle = /^great-circle x ([\d.]+)$/.exec(model ?? '');
  return greatCircle ? t('proposal.distanceModel.greatCircle', { factor: number(Number(greatCircle[1]), 2) }) : model ?? '';
}

/** Reason codes that say it all in a sentence. */
const PLAIN = ['VISIBILITY_MUTUAL', 'LISTINGS_OPEN', 'EQUIPMENT_NOT_REQUIRED', 'DANGEROUS_GOODS_NONE', 'TEMPERATURE_NOT_REQUIRED'];
const TIME_REASONS = ['PICKUP_WINDOW_PASSED', 'PICKUP_OUTSIDE_AVAILABILITY', 'DELIVERY_OUTSIDE_AVAILABILITY', 'TRANSIT_TOO_SHORT'];

/**
 * The explanation in sentences, one per criterion, each { ok, text }: what the broker compared,
 * with units, places by name and times in the planner's zone.
 */
export function explanationOf(p, { places = {}, request, offer } = {}) {
  const pickup = request ? placeOf(request.pickupArea, places) : t('explain.pickup.unknown');
  const delivery = request ? placeOf(request.deliveryArea, places) : t('explain.delivery.unknown');
  return (p.compatibility ?? []).map((c) => {
    const f = c.figures ?? {};
    const ok = c.result !== 'fail';
    const plain = PLAIN.includes(c.reasonCode);
    let text;
    switch (plain ? '' : c.criterion) {
      case '':
        text = t(`explain.${c.reasonCode}`);
        break;
      case 'pickupArea':
        text = t('explain.pickup', { place: pickup, offset: km(f.pickupOffsetKm), allowance: km(f.allowanceKm) });
        break;
      case 'deliveryArea':
        text = t('explain.delivery', { place: delivery, offset: km(f.deliveryOffsetKm), allowance: km(f.allowanceKm) });
        break;
      case 'detour':
        text = t('explain.detour', { detour: km(f.detourKm), allowance: km(f.allowanceKm) });
        break;
      case 'timeWindow': {
        const hours = Math.round(f.transitMinutes / 6) / 10;
        const duration = typeof f.transitMinutes === 'number' ? t('explain.duration', { count: hours, hours: number(hours) }) : t('explain.duration.unknown');
        const reason = !ok && TIME_REASONS.includes(c.reasonCode) ? ` ${t(`explain.${c.reasonCode}`)}` : '';
        text = t('explain.timeWindow', { pickup: when(f.earliestPickup), delivery: when(f.latestDelivery), duration }) + reason;
        break;
      }
      case 'bodyType':
        text = Array.isArray(f.accepted) && f.accepted.length
          ? t('explain.body.wanted', { offered: statusOf(f.offered), wanted: anyOf(f.accepted.map(statusOf)) })
          : t('explain.body', { offered: statusOf(f.offered) });
        break;
      case 'relationship':
        text = ok ? t('explain.relationship') : t('explain.relationship.missing', { scopes: [].concat(f.missingScopes ?? []).join(', ') });
        break;
      default:
        if (c.criterion.startsWith('capacity.')) {
          const dimension = c.criterion.slice('capacity.'.length);
          const name = has(`dimension.${dimension}`) ? t(`dimension.${dimension}`) : criterionName(c.criterion).replace(/^[^:]*: /, '');
          text = t('explain.capacity', { dimension: name, required: amountOf(dimension, f.required, f.unit), remaining: amountOf(dimension, f.remaining, f.unit) });
        } else {
          text = t('explain.default', { criterion: criterionName(c.criterion), reason: reasonOf(c.reasonCode) });
        }
    }
    return { ok, applies: c.result !== 'notApplicable', criterion: c.criterion, text };
  });
}

// ---------------------------------------------------------------------------------------------
// The catalogue: every word the console says, by key, in English, German and Polish, one file per
// language in console/i18n/. The same keys and {placeholders} in each
// (test/unit/console-i18n.test.ts); keys are named after where they are said: "explain." the
// explanation, "status." the broker's words, "org." the organization's page, ...
export const CATALOGUE = { en, de, pl };

