// What the console says, in the planner's words and language: places by name with their country's
// flag, times in the planner's own time zone, capacity in units (24 t, 33 pallets, 13.6 ldm),
// prices as money, organizations by name, reason codes as sentences. Every word comes from one
// catalogue (CATALOGUE below: English, German, Polish, the same keys in each) through t();
// numbers, dates, money, country names and lists through Intl in the chosen locale. Pure functions
// of data (test/unit/console-format.test.ts, test/unit/console-i18n.test.ts).

/** The locale and time zone the console speaks in: the browser's, unless a test pins them. */
export const settings = { locale: undefined, timeZone: undefined };

// ---------------------------------------------------------------------------------------------
// Languages: the catalogue's, chosen from the browser's languages, overridden by the picker.

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
  return languageOf(settings.locale ?? new Intl.NumberFormat().resolvedOptions().locale);
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
  if (typeof message === 'object') message = message[new Intl.PluralRules(settings.locale ?? lang).select(Number(params.count ?? 0))] ?? message.other;
  return message.replace(/\{(\w+)\}/g, (whole, name) => {
    const value = params[name];
    if (value === undefined || value === null) return whole;
    return typeof value === 'number' ? number(value) : String(value);
  });
}

/** A number as the locale writes it, with at most `digits` decimals: 13.6 → "13,6" in German. */
export function number(value, digits = 1) {
  return new Intl.NumberFormat(settings.locale, { maximumFractionDigits: digits }).format(value);
}

/** Alternatives as the language lists them: "A or B", "A oder B", "A lub B". */
export function anyOf(items) {
  return new Intl.ListFormat(settings.locale, { type: 'disjunction' }).format(items.map(String));
}

// ---------------------------------------------------------------------------------------------
// Places, times, units, money.

const regionNames = () => new Intl.DisplayNames(settings.locale ? [settings.locale] : undefined, { type: 'region' });

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
  `${new Intl.NumberFormat(settings.locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(Math.abs(value))}° ${t(`compass.${value >= 0 ? positive : negative}`)}`;

/** An area in words: "Hamburg", "Germany", "DE-HH, Germany", "50 km around 51.92° N, 4.47° E" (its flag: countryOf). */
export function placeOf(area, places = {}) {
  if (!area) return t('place.somewhere');
  switch (area.kind) {
    case 'unlocode':
      return places[area.code]?.name ?? area.code;
    case 'country':
      return countryName(area.code);
    case 'subdivision':
      return t('place.subdivision', { code: area.code, country: countryName(area.code.slice(0, 2)) });
    case 'circle':
      return t('place.circle', { radius: km(area.radiusKm), latitude: degrees(area.center[1], 'N', 'S'), longitude: degrees(area.center[0], 'E', 'W') });
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

const dateTime = (options) => new Intl.DateTimeFormat(settings.locale, { timeZone: settings.timeZone, ...options });

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
  return new Intl.NumberFormat(settings.locale, { style: 'currency', currency: p.currency }).format(p.amount);
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

/** Reason codes that say it all in a sentence. */
const PLAIN = ['VISIBILITY_MUTUAL', 'LISTINGS_OPEN', 'EQUIPMENT_NOT_REQUIRED', 'DANGEROUS_GOODS_NONE', 'TEMPERATURE_NOT_REQUIRED'];
const TIME_REASONS = ['PICKUP_OUTSIDE_AVAILABILITY', 'DELIVERY_OUTSIDE_AVAILABILITY', 'TRANSIT_TOO_SHORT'];

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
// The catalogue: every word the console says, by key, in English, German and Polish. The same keys
// and {placeholders} in each (test/unit/console-i18n.test.ts); plural forms as { one, few, many,
// other } (Intl.PluralRules' categories; English and German use one and other). Keys are named
// after where they are said: "explain." the explanation, "status." the broker's words, "org." the
// organization's page, ... A translator edits the strings, never the keys or the placeholders.

export const CATALOGUE = {
  en: {
    'language.label': 'Language',

    // Places
    'place.somewhere': 'somewhere',
    'place.subdivision': '{code}, {country}',
    'place.circle': '{radius} around {latitude}, {longitude}',
    'place.drawn': 'a drawn area',
    'compass.N': 'N',
    'compass.S': 'S',
    'compass.E': 'E',
    'compass.W': 'W',

    // Units
    'unit.t': '{value} t',
    'unit.kg': '{value} kg',
    'unit.km': '{value} km',
    'unit.ldm': '{value} ldm',
    'unit.m3': '{value} m³',
    'unit.pallets': { one: '{value} pallet', other: '{value} pallets' },

    // The explanation of a proposal, one sentence per criterion
    'explain.pickup.unknown': 'the pickup',
    'explain.delivery.unknown': 'the delivery',
    'explain.pickup': "Pickup in {place} is {offset} off the truck's way ({allowance} allowed).",
    'explain.delivery': "Delivery in {place} is {offset} off the truck's way ({allowance} allowed).",
    'explain.detour': 'The detour is {detour}; {allowance} allowed.',
    'explain.timeWindow': 'Loading from {pickup}, delivered by {delivery}; the drive takes {duration}.',
    'explain.duration': { one: 'about {hours} h', other: 'about {hours} h' },
    'explain.duration.unknown': 'a while',
    'explain.PICKUP_OUTSIDE_AVAILABILITY': 'The pickup window lies outside the truck\u2019s availability.',
    'explain.DELIVERY_OUTSIDE_AVAILABILITY': 'The delivery window lies outside the truck\u2019s availability.',
    'explain.TRANSIT_TOO_SHORT': 'There is not time enough for the drive.',
    'explain.body': 'Body: {offered}.',
    'explain.body.wanted': 'Body: {offered} ({wanted} wanted).',
    'explain.relationship': 'Partners under a relationship in force.',
    'explain.relationship.missing': 'The relationship does not grant {scopes}.',
    'explain.capacity': 'Capacity, {dimension}: {required} needed, {remaining} free.',
    'explain.default': '{criterion}: {reason}.',
    'explain.VISIBILITY_MUTUAL': 'Each side may see the other\u2019s listing.',
    'explain.LISTINGS_OPEN': 'Both listings are open.',
    'explain.EQUIPMENT_NOT_REQUIRED': 'No special equipment is needed.',
    'explain.DANGEROUS_GOODS_NONE': 'No dangerous goods.',
    'explain.TEMPERATURE_NOT_REQUIRED': 'No temperature control is needed.',
    'dimension.weightKg': 'weight',
    'dimension.palletSpaces': 'pallet spaces',
    'dimension.loadingMetres': 'loading metres',
    'dimension.volumeM3': 'volume',

    // Criteria of matching
    'criterion.pickupArea': 'Pickup area',
    'criterion.deliveryArea': 'Delivery area',
    'criterion.detour': 'Detour',
    'criterion.timeWindow': 'Time window',
    'criterion.bodyType': 'Body type',
    'criterion.equipment': 'Equipment',
    'criterion.dangerousGoods': 'Dangerous goods',
    'criterion.temperature': 'Temperature',
    'criterion.relationship': 'Relationship',
    'criterion.visibility': 'Visibility',
    'criterion.status': 'Status',
    'criterion.capacity': 'Capacity',
    'criterion.capacity.weightKg': 'Capacity: weight',
    'criterion.capacity.palletSpaces': 'Capacity: pallet spaces',
    'criterion.capacity.loadingMetres': 'Capacity: loading metres',
    'criterion.capacity.volumeM3': 'Capacity: volume',

    // Reason codes of matching
    'reason.AREA_PICKUP_ON_ROUTE': 'area pickup on route',
    'reason.AREA_PICKUP_OFF_ROUTE': 'area pickup off route',
    'reason.AREA_DELIVERY_TOWARDS_DESTINATION': 'area delivery towards destination',
    'reason.AREA_DELIVERY_OFF_ROUTE': 'area delivery off route',
    'reason.DETOUR_WITHIN_LIMIT': 'detour within limit',
    'reason.DETOUR_EXCEEDS_LIMIT': 'detour exceeds limit',
    'reason.TIME_WINDOW_FEASIBLE': 'time window feasible',
    'reason.PICKUP_OUTSIDE_AVAILABILITY': 'pickup outside availability',
    'reason.DELIVERY_OUTSIDE_AVAILABILITY': 'delivery outside availability',
    'reason.TRANSIT_TOO_SHORT': 'transit too short',
    'reason.BODY_TYPE_ANY': 'body type any',
    'reason.BODY_TYPE_MATCH': 'body type match',
    'reason.BODY_TYPE_MISMATCH': 'body type mismatch',
    'reason.EQUIPMENT_NOT_REQUIRED': 'equipment not required',
    'reason.EQUIPMENT_AVAILABLE': 'equipment available',
    'reason.EQUIPMENT_MISSING': 'equipment missing',
    'reason.DANGEROUS_GOODS_NONE': 'dangerous goods none',
    'reason.DANGEROUS_GOODS_PERMITTED': 'dangerous goods permitted',
    'reason.DANGEROUS_GOODS_NOT_PERMITTED': 'dangerous goods not permitted',
    'reason.TEMPERATURE_NOT_REQUIRED': 'temperature not required',
    'reason.TEMPERATURE_SATISFIED': 'temperature satisfied',
    'reason.TEMPERATURE_NOT_SATISFIED': 'temperature not satisfied',
    'reason.RELATIONSHIP_ACTIVE': 'relationship active',
    'reason.RELATIONSHIP_INACTIVE': 'relationship inactive',
    'reason.RELATIONSHIP_SCOPES_MISSING': 'relationship scopes missing',
    'reason.VISIBILITY_MUTUAL': 'visibility mutual',
    'reason.OFFER_NOT_VISIBLE_TO_REQUESTER': 'offer not visible to requester',
    'reason.REQUEST_NOT_VISIBLE_TO_CARRIER': 'request not visible to carrier',
    'reason.LISTINGS_OPEN': 'listings open',
    'reason.OFFER_NOT_OPEN': 'offer not open',
    'reason.REQUEST_NOT_OPEN': 'request not open',
    'reason.NO_COMMON_CAPACITY_DIMENSION': 'no common capacity dimension',
    'reason.CAPACITY_WEIGHT_FITS': 'capacity weight fits',
    'reason.CAPACITY_WEIGHT_EXCEEDS': 'capacity weight exceeds',
    'reason.CAPACITY_PALLET_SPACES_FITS': 'capacity pallet spaces fits',
    'reason.CAPACITY_PALLET_SPACES_EXCEEDS': 'capacity pallet spaces exceeds',
    'reason.CAPACITY_LOADING_METRES_FITS': 'capacity loading metres fits',
    'reason.CAPACITY_LOADING_METRES_EXCEEDS': 'capacity loading metres exceeds',
    'reason.CAPACITY_VOLUME_FITS': 'capacity volume fits',
    'reason.CAPACITY_VOLUME_EXCEEDS': 'capacity volume exceeds',

    // Statuses and the broker's other words (statusOf)
    'status.draft': 'draft',
    'status.published': 'published',
    'status.partiallyMatched': 'partially matched',
    'status.proposed': 'proposed',
    'status.matched': 'matched',
    'status.withdrawn': 'withdrawn',
    'status.expired': 'expired',
    'status.open': 'open',
    'status.accepted': 'accepted',
    'status.rejected': 'rejected',
    'status.superseded': 'superseded',
    'status.cancelled': 'cancelled',
    'status.active': 'active',
    'status.suspended': 'suspended',
    'status.terminated': 'terminated',
    'status.requested': 'requested',
    'status.issued': 'issued',
    'status.amending': 'amending',
    'status.accepting': 'accepting',
    'status.closed': 'closed',
    'status.completed': 'completed',
    'status.created': 'created',
    'status.disabled': 'disabled',
    'status.disputed': 'disputed',
    'status.ended': 'ended',
    'status.failed': 'failed',
    'status.imported': 'imported',
    'status.inProgress': 'in progress',
    'status.invited': 'invited',
    'status.linked': 'linked',
    'status.offered': 'offered',
    'status.pending': 'pending',
    'status.planned': 'planned',
    'status.quarantined': 'quarantined',
    'status.removed': 'removed',
    'status.retired': 'retired',
    'status.revoked': 'revoked',
    'status.skipped': 'skipped',
    'status.succeeded': 'succeeded',
    'status.verified': 'verified',
    'status.held': 'held',
    'status.released': 'released',
    'status.discarded': 'discarded',
    'status.PENDING_INITIATOR_ACCEPT': 'pending initiator accept',
    'status.PENDING_ACCEPTOR_ACCEPT': 'pending acceptor accept',
    'status.COMMITTING': 'committing',
    'status.COMMITTED': 'committed',
    'status.REJECTED': 'rejected',
    'status.EXPIRED': 'expired',
    'status.CANCELLED': 'cancelled',
    'status.assigned': 'assigned',
    'status.atPickup': 'at pickup',
    'status.pickedUp': 'picked up',
    'status.inTransit': 'in transit',
    'status.atDelivery': 'at delivery',
    'status.delivered': 'delivered',
    'status.delayed': 'delayed',
    'status.curtainsider': 'curtainsider',
    'status.box': 'box',
    'status.refrigerated': 'refrigerated',
    'status.insulated': 'insulated',
    'status.tanker': 'tanker',
    'status.silo': 'silo',
    'status.flatbed': 'flatbed',
    'status.lowLoader': 'low loader',
    'status.tipper': 'tipper',
    'status.containerChassis': 'container chassis',
    'status.carTransporter': 'car transporter',
    'status.walkingFloor': 'walking floor',
    'status.van': 'van',
    'status.other': 'other',
    'status.tailLift': 'tail lift',
    'status.forkliftOnBoard': 'forklift on board',
    'status.palletJack': 'pallet jack',
    'status.straps': 'straps',
    'status.garmentRails': 'garment rails',
    'status.adrEquipment': 'adr equipment',
    'status.temperatureRecorder': 'temperature recorder',
    'status.pickup': 'pickup',
    'status.delivery': 'delivery',
    'status.dispatch': 'dispatch',
    'status.emergency': 'emergency',
    'status.cargo': 'cargo',
    'status.equipment': 'equipment',
    'status.stops': 'stops',
    'status.commercialTerms': 'commercial terms',
    'status.externalTermsReference': 'external terms reference',

    // The freight grid's search words for a listing's kind
    'grid.search.offer': 'truck offer',
    'grid.search.request': 'load request',

    // Notices
    'notice.done': 'Done',
    'problem.http': 'HTTP {status}',
    'problem.refused': 'Refused',

    // Sessions
    'session.ended': 'Your session has ended: sign in again to go on.',
    'session.kept.otherUser': 'it was clicked by {userId}, not by you',
    'session.kept.tooOld': 'it was clicked more than 30 minutes ago',

    // Partners (relationships:manage)
    'scope.capacity:read': 'see the trucks shared with them',
    'scope.capacity:publish': 'offer trucks to you',
    'scope.loads:read': 'see the loads shared with them',
    'scope.loads:publish': 'offer loads to you',
    'scope.matches:read': 'see the proposals between you',
    'scope.matches:decide': 'accept or reject those proposals',
    'scope.tenders:read': 'see tenders between you',
    'scope.tenders:publish': 'issue tenders to you',
    'scope.tenders:decide': 'accept, counter or reject tenders',
    'scope.commitments:read': 'see the commitments made',
    'scope.handovers:write': 'hand over the execution details',
    'scope.handovers:read': 'read handovers',
    'scope.handovers:acknowledge': 'acknowledge handovers',
    'scope.execution:update': 'report milestones',
    'scope.outcomes:write': 'report outcomes',
    'scope.outcomes:review': 'review outcomes',
    'partners.title': 'Partners',
    'partners.none': 'No partners yet. Invite an organization by the id it gives you: once it accepts, what you share reaches it and the broker proposes matches between you.',
    'partners.reason': 'Reason',
    'partners.request': 'Send the invitation',
    'partners.request.label': 'Send the invitation to {partner}',
    'partners.accept': 'Accept',
    'partners.accept.label': 'Accept the partnership with {partner}',
    'partners.reject': 'Reject',
    'partners.reject.label': 'Reject the partnership with {partner}',
    'partners.withdraw': 'Withdraw',
    'partners.withdraw.label': 'Withdraw the partnership with {partner}',
    'partners.withdraw.reasonLabel': 'Reason to withdraw',
    'partners.withdraw.defaultReason': 'withdraw from the console',
    'partners.suspend': 'Suspend',
    'partners.suspend.label': 'Suspend the partnership with {partner}',
    'partners.suspend.reasonLabel': 'Reason to suspend',
    'partners.suspend.defaultReason': 'suspend from the console',
    'partners.reactivate': 'Reactivate',
    'partners.reactivate.label': 'Reactivate the partnership with {partner}',
    'partners.terminate': 'Terminate',
    'partners.terminate.label': 'Terminate the partnership with {partner}',
    'partners.terminate.reasonLabel': 'Reason to terminate',
    'partners.terminate.defaultReason': 'terminate from the console',
    'partners.youInvited': 'you invited them',
    'partners.theyInvited': 'they invited you',
    'partners.since': 'since {when}',
    'partners.until': 'until {when}',
    'partners.mayNow': 'Each of you may',
    'partners.mayLater': 'Each of you would be able to',
    'partners.nothingYet': 'nothing yet',
    'partners.invite.title': 'Invite a partner',
    'partners.invite.organization': 'Organization id',
    'partners.invite.button': 'Invite partner',
    'partners.invite.label': 'Invite {organization} as a partner',
    'partners.invited': 'Invited',
    'partners.invited.text': '{organization}; they see the invitation now and accept or reject it.',
    'partners.notInvited': 'Not invited',

    // The organization's page (connectors:manage)
    'org.status.invited': 'Invited',
    'org.status.pending': 'Pending verification',
    'org.status.active': 'Active',
    'org.status.suspended': 'Suspended',
    'org.status.ended': 'Ended',
    'org.status.disabled': 'Disabled',
    'org.status.retired': 'Retired',
    'org.status.expired': 'Expired',
    'org.status.revoked': 'Revoked',
    'org.scheme.LEI': 'LEI (ISO 17442)',
    'org.scheme.VAT': 'VAT number',
    'org.scheme.EORI': 'EORI number',
    'org.verification.imported': 'Imported from {evidence} {when}',
    'org.verification.verified': 'Verified {when} by {by} (evidence: {evidence})',
    'org.verification.rejected': 'Verification rejected {when}: {reason}',
    'org.verification.none': 'Not verified yet',
    'org.key.secret': 'Client secret ending {hint}',
    'org.key.jwk': 'Key {id}',
    'org.key.jwkCertificate': 'Key {id} (with certificate)',
    'org.key.added': 'added {when}',
    'org.key.until': 'until {when}',
    'org.key.noExpiry': 'no expiry',
    'org.key.lastUsed': 'last used {when}',
    'org.key.neverUsed': 'never used',
    'org.key.revokeReason': 'Reason to revoke',
    'org.key.revoke': 'Revoke',
    'org.title': 'Your organization: {name}',
    'org.noRecord': 'Your organization is configured by file and has no record yet.',
    'org.secret.of': 'New client secret of {clientId}',
    'org.secret.once': 'Copy it now: it is not shown again.',
    'org.connectors': 'Connectors',
    'org.connectors.none': 'No connectors managed here yet.',
    'org.connectors.retired': 'Retired connectors ({count})',
    'org.connector.may': 'May: {scopes}',
    'org.connector.nothing': 'nothing yet',
    'org.connector.noKeys': 'No keys yet.',
    'org.connector.disableReason': 'Reason to disable',
    'org.connector.disable': 'Disable connector',
    'org.connector.enable': 'Enable connector',
    'org.connector.newSecret': 'New client secret',
    'org.users': 'Users',
    'org.users.none': 'No users invited here yet (users of the users file are not listed).',
    'org.invitation.of': 'Invitation code of {userId}',
    'org.invitation.once': 'Give it to the user now (the password at the development sign-in page): it is not shown again.',
    'org.role.planner': 'Planner',
    'org.role.viewer': 'Viewer',
    'org.role.admin': 'Admin',
    'org.user.invitedUntil': 'invitation open until {when}',
    'org.user.since': 'since {when}',
    'org.user.disableReason': 'Reason to disable',
    'org.user.disable': 'Disable user',
    'org.user.enable': 'Enable user',
    'org.user.reinvite': 'Invite again',
    'org.invite.userId': 'User id (as the identity provider names the user)',
    'org.invite.name': 'User name',
    'org.invite.role': 'Role',
    'org.invite.button': 'Invite',
    'org.webhooks': 'Webhook subscriptions',
    'org.webhooks.none': 'No webhook subscriptions.',
    'org.webhook.active': 'active',
    'org.webhook.inactive': 'inactive',
    'org.webhook.everyEvent': 'every event',

    // The operator's page (exchange:admin)
    'operator.title': 'Organizations of the exchange',
    'operator.name': 'Organization name',
    'operator.id': 'Organization id',
    'operator.scheme': 'Legal identifier',
    'operator.identifier': 'Identifier',
    'operator.register': 'Register',
    'operator.column.organization': 'Organization',
    'operator.column.identifier': 'Legal identifier',
    'operator.column.status': 'Status',
    'operator.column.verification': 'Verification',
    'operator.noIdentifier': 'none',
    'operator.evidence': 'Evidence reference',
    'operator.verify': 'Verify',
    'operator.reason': 'Reason',
    'operator.reject': 'Reject',
    'operator.suspend': 'Suspend',
    'operator.reinstate': 'Reinstate',
    'operator.end': 'End',
    'operator.adherenceUntil': 'Adherence until {when}',

    // Messages held by the adapter gateway
    'adapters.format.edifact': 'EDIFACT',
    'adapters.format.epcis': 'EPCIS events',
    'adapters.format.spreadsheet': 'Spreadsheet',
    'adapters.overHttp': 'sent over HTTP',
    'adapters.received': 'Received {when}; {state}',
    'adapters.at': 'at {position}',
    'adapters.correctedFile': 'Corrected file',
    'adapters.chooseFile': 'choose the corrected file first',
    'adapters.released': 'Released: the corrected message is being processed.',
    'adapters.release': 'Release corrected file',
    'adapters.discarded': 'Discarded.',
    'adapters.discard': 'Discard',
    'adapters.none': 'No messages held: everything your systems sent was acted on.',
    'adapters.noAnswer': 'The adapter gateway did not answer ({message}).',
  },
  de: {
    'language.label': 'Sprache',

    'place.somewhere': 'irgendwo',
    'place.subdivision': '{code}, {country}',
    'place.circle': '{radius} um {latitude}, {longitude}',
    'place.drawn': 'ein gezeichnetes Gebiet',
    'compass.N': 'N',
    'compass.S': 'S',
    'compass.E': 'O',
    'compass.W': 'W',

    'unit.t': '{value} t',
    'unit.kg': '{value} kg',
    'unit.km': '{value} km',
    'unit.ldm': '{value} LDM',
    'unit.m3': '{value} m³',
    'unit.pallets': { one: '{value} Palette', other: '{value} Paletten' },

    'explain.pickup.unknown': '(unbekannt)',
    'explain.delivery.unknown': '(unbekannt)',
    'explain.pickup': 'Beladestelle {place} liegt {offset} abseits der Route des LKW ({allowance} zulässig).',
    'explain.delivery': 'Entladestelle {place} liegt {offset} abseits der Route des LKW ({allowance} zulässig).',
    'explain.detour': 'Der Umweg beträgt {detour}; {allowance} zulässig.',
    'explain.timeWindow': 'Beladung ab {pickup}, Zustellung bis {delivery}; die Fahrt dauert {duration}.',
    'explain.duration': { one: 'etwa {hours} Stunde', other: 'etwa {hours} Stunden' },
    'explain.duration.unknown': 'eine Weile',
    'explain.PICKUP_OUTSIDE_AVAILABILITY': 'Das Ladefenster liegt außerhalb der Verfügbarkeit des LKW.',
    'explain.DELIVERY_OUTSIDE_AVAILABILITY': 'Das Entladefenster liegt außerhalb der Verfügbarkeit des LKW.',
    'explain.TRANSIT_TOO_SHORT': 'Die Zeit reicht für die Fahrt nicht aus.',
    'explain.body': 'Aufbau: {offered}.',
    'explain.body.wanted': 'Aufbau: {offered} (gewünscht: {wanted}).',
    'explain.relationship': 'Partner mit einer gültigen Partnerschaft.',
    'explain.relationship.missing': 'Die Partnerschaft erlaubt nicht: {scopes}.',
    'explain.capacity': 'Laderaum, {dimension}: {required} benötigt, {remaining} frei.',
    'explain.default': '{criterion}: {reason}.',
    'explain.VISIBILITY_MUTUAL': 'Beide Seiten dürfen das Angebot der anderen sehen.',
    'explain.LISTINGS_OPEN': 'Beide Angebote sind offen.',
    'explain.EQUIPMENT_NOT_REQUIRED': 'Keine besondere Ausrüstung nötig.',
    'explain.DANGEROUS_GOODS_NONE': 'Kein Gefahrgut.',
    'explain.TEMPERATURE_NOT_REQUIRED': 'Keine Temperaturführung nötig.',
    'dimension.weightKg': 'Gewicht',
    'dimension.palletSpaces': 'Palettenstellplätze',
    'dimension.loadingMetres': 'Lademeter',
    'dimension.volumeM3': 'Volumen',

    'criterion.pickupArea': 'Beladegebiet',
    'criterion.deliveryArea': 'Entladegebiet',
    'criterion.detour': 'Umweg',
    'criterion.timeWindow': 'Zeitfenster',
    'criterion.bodyType': 'Aufbau',
    'criterion.equipment': 'Ausrüstung',
    'criterion.dangerousGoods': 'Gefahrgut',
    'criterion.temperature': 'Temperatur',
    'criterion.relationship': 'Partnerschaft',
    'criterion.visibility': 'Sichtbarkeit',
    'criterion.status': 'Status',
    'criterion.capacity': 'Laderaum',
    'criterion.capacity.weightKg': 'Laderaum: Gewicht',
    'criterion.capacity.palletSpaces': 'Laderaum: Palettenstellplätze',
    'criterion.capacity.loadingMetres': 'Laderaum: Lademeter',
    'criterion.capacity.volumeM3': 'Laderaum: Volumen',

    'reason.AREA_PICKUP_ON_ROUTE': 'Beladestelle auf der Route',
    'reason.AREA_PICKUP_OFF_ROUTE': 'Beladestelle abseits der Route',
    'reason.AREA_DELIVERY_TOWARDS_DESTINATION': 'Entladestelle in Richtung Ziel',
    'reason.AREA_DELIVERY_OFF_ROUTE': 'Entladestelle abseits der Route',
    'reason.DETOUR_WITHIN_LIMIT': 'Umweg im zulässigen Rahmen',
    'reason.DETOUR_EXCEEDS_LIMIT': 'Umweg zu groß',
    'reason.TIME_WINDOW_FEASIBLE': 'Zeitfenster machbar',
    'reason.PICKUP_OUTSIDE_AVAILABILITY': 'Beladung außerhalb der Verfügbarkeit',
    'reason.DELIVERY_OUTSIDE_AVAILABILITY': 'Zustellung außerhalb der Verfügbarkeit',
    'reason.TRANSIT_TOO_SHORT': 'Fahrzeit zu knapp',
    'reason.BODY_TYPE_ANY': 'jeder Aufbau',
    'reason.BODY_TYPE_MATCH': 'Aufbau passt',
    'reason.BODY_TYPE_MISMATCH': 'Aufbau passt nicht',
    'reason.EQUIPMENT_NOT_REQUIRED': 'keine Ausrüstung nötig',
    'reason.EQUIPMENT_AVAILABLE': 'Ausrüstung vorhanden',
    'reason.EQUIPMENT_MISSING': 'Ausrüstung fehlt',
    'reason.DANGEROUS_GOODS_NONE': 'kein Gefahrgut',
    'reason.DANGEROUS_GOODS_PERMITTED': 'Gefahrgut zugelassen',
    'reason.DANGEROUS_GOODS_NOT_PERMITTED': 'Gefahrgut nicht zugelassen',
    'reason.TEMPERATURE_NOT_REQUIRED': 'keine Temperaturführung nötig',
    'reason.TEMPERATURE_SATISFIED': 'Temperatur eingehalten',
    'reason.TEMPERATURE_NOT_SATISFIED': 'Temperatur nicht einhaltbar',
    'reason.RELATIONSHIP_ACTIVE': 'Partnerschaft aktiv',
    'reason.RELATIONSHIP_INACTIVE': 'Partnerschaft nicht aktiv',
    'reason.RELATIONSHIP_SCOPES_MISSING': 'Partnerschaft erlaubt es nicht',
    'reason.VISIBILITY_MUTUAL': 'gegenseitig sichtbar',
    'reason.OFFER_NOT_VISIBLE_TO_REQUESTER': 'Laderaumangebot für den Verlader nicht sichtbar',
    'reason.REQUEST_NOT_VISIBLE_TO_CARRIER': 'Ladung für den Frachtführer nicht sichtbar',
    'reason.LISTINGS_OPEN': 'beide Angebote offen',
    'reason.OFFER_NOT_OPEN': 'Laderaumangebot nicht offen',
    'reason.REQUEST_NOT_OPEN': 'Ladung nicht offen',
    'reason.NO_COMMON_CAPACITY_DIMENSION': 'keine gemeinsame Laderaumangabe',
    'reason.CAPACITY_WEIGHT_FITS': 'Gewicht passt',
    'reason.CAPACITY_WEIGHT_EXCEEDS': 'Gewicht zu hoch',
    'reason.CAPACITY_PALLET_SPACES_FITS': 'Palettenstellplätze reichen',
    'reason.CAPACITY_PALLET_SPACES_EXCEEDS': 'zu wenige Palettenstellplätze',
    'reason.CAPACITY_LOADING_METRES_FITS': 'Lademeter reichen',
    'reason.CAPACITY_LOADING_METRES_EXCEEDS': 'zu wenige Lademeter',
    'reason.CAPACITY_VOLUME_FITS': 'Volumen reicht',
    'reason.CAPACITY_VOLUME_EXCEEDS': 'Volumen zu groß',

    'status.draft': 'Entwurf',
    'status.published': 'veröffentlicht',
    'status.partiallyMatched': 'teilweise vermittelt',
    'status.proposed': 'vorgeschlagen',
    'status.matched': 'vermittelt',
    'status.withdrawn': 'zurückgezogen',
    'status.expired': 'abgelaufen',
    'status.open': 'offen',
    'status.accepted': 'angenommen',
    'status.rejected': 'abgelehnt',
    'status.superseded': 'ersetzt',
    'status.cancelled': 'storniert',
    'status.active': 'aktiv',
    'status.suspended': 'ausgesetzt',
    'status.terminated': 'beendet',
    'status.requested': 'angefragt',
    'status.issued': 'ausgeschrieben',
    'status.amending': 'in Änderung',
    'status.accepting': 'wird angenommen',
    'status.closed': 'geschlossen',
    'status.completed': 'abgeschlossen',
    'status.created': 'angelegt',
    'status.disabled': 'deaktiviert',
    'status.disputed': 'strittig',
    'status.ended': 'beendet',
    'status.failed': 'fehlgeschlagen',
    'status.imported': 'übernommen',
    'status.inProgress': 'in Ausführung',
    'status.invited': 'eingeladen',
    'status.linked': 'verknüpft',
    'status.offered': 'angeboten',
    'status.pending': 'ausstehend',
    'status.planned': 'geplant',
    'status.quarantined': 'zurückgehalten',
    'status.removed': 'entfernt',
    'status.retired': 'stillgelegt',
    'status.revoked': 'widerrufen',
    'status.skipped': 'übersprungen',
    'status.succeeded': 'erfolgreich',
    'status.verified': 'verifiziert',
    'status.held': 'zurückgehalten',
    'status.released': 'freigegeben',
    'status.discarded': 'verworfen',
    'status.PENDING_INITIATOR_ACCEPT': 'wartet auf Zusage des Initiators',
    'status.PENDING_ACCEPTOR_ACCEPT': 'wartet auf Zusage der Gegenseite',
    'status.COMMITTING': 'wird verbindlich',
    'status.COMMITTED': 'verbindlich',
    'status.REJECTED': 'abgelehnt',
    'status.EXPIRED': 'abgelaufen',
    'status.CANCELLED': 'storniert',
    'status.assigned': 'disponiert',
    'status.atPickup': 'an der Beladestelle',
    'status.pickedUp': 'geladen',
    'status.inTransit': 'unterwegs',
    'status.atDelivery': 'an der Entladestelle',
    'status.delivered': 'zugestellt',
    'status.delayed': 'verspätet',
    'status.curtainsider': 'Planenauflieger',
    'status.box': 'Koffer',
    'status.refrigerated': 'Kühlkoffer',
    'status.insulated': 'Isolierkoffer',
    'status.tanker': 'Tankwagen',
    'status.silo': 'Silo',
    'status.flatbed': 'Pritsche',
    'status.lowLoader': 'Tieflader',
    'status.tipper': 'Kipper',
    'status.containerChassis': 'Containerchassis',
    'status.carTransporter': 'Autotransporter',
    'status.walkingFloor': 'Schubboden',
    'status.van': 'Transporter',
    'status.other': 'Sonstiges',
    'status.tailLift': 'Ladebordwand',
    'status.forkliftOnBoard': 'Mitnahmestapler',
    'status.palletJack': 'Hubwagen',
    'status.straps': 'Spanngurte',
    'status.garmentRails': 'Hängewarenausrüstung',
    'status.adrEquipment': 'ADR-Ausrüstung',
    'status.temperatureRecorder': 'Temperaturschreiber',
    'status.pickup': 'Beladung',
    'status.delivery': 'Entladung',
    'status.dispatch': 'Disposition',
    'status.emergency': 'Notfall',
    'status.cargo': 'Ladegut',
    'status.equipment': 'Ausrüstung',
    'status.stops': 'Stopps',
    'status.commercialTerms': 'Preis und Konditionen',
    'status.externalTermsReference': 'externe Bedingungen',

    'grid.search.offer': 'LKW Laderaum Angebot',
    'grid.search.request': 'Ladung Fracht Anfrage',

    'notice.done': 'Erledigt',
    'problem.http': 'HTTP {status}',
    'problem.refused': 'Abgelehnt',

    'session.ended': 'Ihre Sitzung ist beendet: Melden Sie sich erneut an, um fortzufahren.',
    'session.kept.otherUser': 'es wurde von {userId} geklickt, nicht von Ihnen',
    'session.kept.tooOld': 'es wurde vor mehr als 30 Minuten geklickt',

    'scope.capacity:read': 'die mit ihnen geteilten LKW sehen',
    'scope.capacity:publish': 'Ihnen LKW anbieten',
    'scope.loads:read': 'die mit ihnen geteilten Ladungen sehen',
    'scope.loads:publish': 'Ihnen Ladungen anbieten',
    'scope.matches:read': 'die Vorschläge zwischen Ihnen sehen',
    'scope.matches:decide': 'diese Vorschläge annehmen oder ablehnen',
    'scope.tenders:read': 'Ausschreibungen zwischen Ihnen sehen',
    'scope.tenders:publish': 'Ihnen Ausschreibungen senden',
    'scope.tenders:decide': 'Ausschreibungen annehmen, nachverhandeln oder ablehnen',
    'scope.commitments:read': 'die geschlossenen Aufträge sehen',
    'scope.handovers:write': 'die Ausführungsdaten übergeben',
    'scope.handovers:read': 'Übergaben lesen',
    'scope.handovers:acknowledge': 'Übergaben bestätigen',
    'scope.execution:update': 'Statusmeldungen senden',
    'scope.outcomes:write': 'Ergebnisse melden',
    'scope.outcomes:review': 'Ergebnisse prüfen',
    'partners.title': 'Partner',
    'partners.none': 'Noch keine Partner. Laden Sie eine Organisation mit der ID ein, die sie Ihnen nennt: Sobald sie annimmt, sieht sie, was Sie teilen, und der Broker schlägt Ihnen passende Paarungen vor.',
    'partners.reason': 'Grund',
    'partners.request': 'Einladung senden',
    'partners.request.label': 'Einladung an {partner} senden',
    'partners.accept': 'Annehmen',
    'partners.accept.label': 'Partnerschaft mit {partner} annehmen',
    'partners.reject': 'Ablehnen',
    'partners.reject.label': 'Partnerschaft mit {partner} ablehnen',
    'partners.withdraw': 'Zurückziehen',
    'partners.withdraw.label': 'Einladung an {partner} zurückziehen',
    'partners.withdraw.reasonLabel': 'Grund für das Zurückziehen',
    'partners.withdraw.defaultReason': 'in der Konsole zurückgezogen',
    'partners.suspend': 'Aussetzen',
    'partners.suspend.label': 'Partnerschaft mit {partner} aussetzen',
    'partners.suspend.reasonLabel': 'Grund für das Aussetzen',
    'partners.suspend.defaultReason': 'in der Konsole ausgesetzt',
    'partners.reactivate': 'Wieder aufnehmen',
    'partners.reactivate.label': 'Partnerschaft mit {partner} wieder aufnehmen',
    'partners.terminate': 'Beenden',
    'partners.terminate.label': 'Partnerschaft mit {partner} beenden',
    'partners.terminate.reasonLabel': 'Grund für das Beenden',
    'partners.terminate.defaultReason': 'in der Konsole beendet',
    'partners.youInvited': 'von Ihnen eingeladen',
    'partners.theyInvited': 'hat Sie eingeladen',
    'partners.since': 'seit {when}',
    'partners.until': 'bis {when}',
    'partners.mayNow': 'Beide Seiten dürfen',
    'partners.mayLater': 'Beide Seiten dürften',
    'partners.nothingYet': 'noch nichts',
    'partners.invite.title': 'Partner einladen',
    'partners.invite.organization': 'Organisations-ID',
    'partners.invite.button': 'Partner einladen',
    'partners.invite.label': '{organization} als Partner einladen',
    'partners.invited': 'Eingeladen',
    'partners.invited.text': '{organization}; die Organisation sieht die Einladung jetzt und nimmt sie an oder lehnt sie ab.',
    'partners.notInvited': 'Nicht eingeladen',

    'org.status.invited': 'Eingeladen',
    'org.status.pending': 'Prüfung ausstehend',
    'org.status.active': 'Aktiv',
    'org.status.suspended': 'Ausgesetzt',
    'org.status.ended': 'Beendet',
    'org.status.disabled': 'Deaktiviert',
    'org.status.retired': 'Stillgelegt',
    'org.status.expired': 'Abgelaufen',
    'org.status.revoked': 'Widerrufen',
    'org.scheme.LEI': 'LEI (ISO 17442)',
    'org.scheme.VAT': 'USt-IdNr.',
    'org.scheme.EORI': 'EORI-Nummer',
    'org.verification.imported': 'Übernommen aus {evidence} {when}',
    'org.verification.verified': 'Geprüft {when} von {by} (Nachweis: {evidence})',
    'org.verification.rejected': 'Prüfung abgelehnt {when}: {reason}',
    'org.verification.none': 'Noch nicht geprüft',
    'org.key.secret': 'Client-Secret mit Endung {hint}',
    'org.key.jwk': 'Schlüssel {id}',
    'org.key.jwkCertificate': 'Schlüssel {id} (mit Zertifikat)',
    'org.key.added': 'hinzugefügt {when}',
    'org.key.until': 'gültig bis {when}',
    'org.key.noExpiry': 'ohne Ablauf',
    'org.key.lastUsed': 'zuletzt verwendet {when}',
    'org.key.neverUsed': 'nie verwendet',
    'org.key.revokeReason': 'Grund für den Widerruf',
    'org.key.revoke': 'Widerrufen',
    'org.title': 'Ihre Organisation: {name}',
    'org.noRecord': 'Ihre Organisation ist per Datei konfiguriert und hat noch keinen Datensatz.',
    'org.secret.of': 'Neues Client-Secret von {clientId}',
    'org.secret.once': 'Kopieren Sie es jetzt: Es wird nicht noch einmal angezeigt.',
    'org.connectors': 'Konnektoren',
    'org.connectors.none': 'Hier werden noch keine Konnektoren verwaltet.',
    'org.connectors.retired': 'Stillgelegte Konnektoren ({count})',
    'org.connector.may': 'Darf: {scopes}',
    'org.connector.nothing': 'noch nichts',
    'org.connector.noKeys': 'Noch keine Schlüssel.',
    'org.connector.disableReason': 'Grund für das Deaktivieren',
    'org.connector.disable': 'Konnektor deaktivieren',
    'org.connector.enable': 'Konnektor aktivieren',
    'org.connector.newSecret': 'Neues Client-Secret',
    'org.users': 'Benutzer',
    'org.users.none': 'Hier sind noch keine Benutzer eingeladen (Benutzer aus der Benutzerdatei werden nicht aufgeführt).',
    'org.invitation.of': 'Einladungscode für {userId}',
    'org.invitation.once': 'Geben Sie ihn jetzt an den Benutzer weiter (das Passwort auf der Anmeldeseite der Entwicklungsumgebung): Er wird nicht noch einmal angezeigt.',
    'org.role.planner': 'Disponent',
    'org.role.viewer': 'Leser',
    'org.role.admin': 'Administrator',
    'org.user.invitedUntil': 'Einladung offen bis {when}',
    'org.user.since': 'seit {when}',
    'org.user.disableReason': 'Grund für das Deaktivieren',
    'org.user.disable': 'Benutzer deaktivieren',
    'org.user.enable': 'Benutzer aktivieren',
    'org.user.reinvite': 'Erneut einladen',
    'org.invite.userId': 'Benutzer-ID (wie der Identitätsanbieter den Benutzer nennt)',
    'org.invite.name': 'Name des Benutzers',
    'org.invite.role': 'Rolle',
    'org.invite.button': 'Einladen',
    'org.webhooks': 'Webhook-Abonnements',
    'org.webhooks.none': 'Keine Webhook-Abonnements.',
    'org.webhook.active': 'aktiv',
    'org.webhook.inactive': 'inaktiv',
    'org.webhook.everyEvent': 'jedes Ereignis',

    'operator.title': 'Organisationen der Börse',
    'operator.name': 'Name der Organisation',
    'operator.id': 'Organisations-ID',
    'operator.scheme': 'Rechtliche Kennung',
    'operator.identifier': 'Kennung',
    'operator.register': 'Registrieren',
    'operator.column.organization': 'Organisation',
    'operator.column.identifier': 'Rechtliche Kennung',
    'operator.column.status': 'Status',
    'operator.column.verification': 'Prüfung',
    'operator.noIdentifier': 'keine',
    'operator.evidence': 'Nachweis (Referenz)',
    'operator.verify': 'Bestätigen',
    'operator.reason': 'Grund',
    'operator.reject': 'Ablehnen',
    'operator.suspend': 'Aussetzen',
    'operator.reinstate': 'Wieder zulassen',
    'operator.end': 'Beenden',
    'operator.adherenceUntil': 'Teilnahme bis {when}',

    'adapters.format.edifact': 'EDIFACT',
    'adapters.format.epcis': 'EPCIS-Ereignisse',
    'adapters.format.spreadsheet': 'Tabelle',
    'adapters.overHttp': 'per HTTP gesendet',
    'adapters.received': 'Empfangen {when}; {state}',
    'adapters.at': 'bei {position}',
    'adapters.correctedFile': 'Korrigierte Datei',
    'adapters.chooseFile': 'wählen Sie zuerst die korrigierte Datei',
    'adapters.released': 'Freigegeben: Die korrigierte Nachricht wird verarbeitet.',
    'adapters.release': 'Korrigierte Datei freigeben',
    'adapters.discarded': 'Verworfen.',
    'adapters.discard': 'Verwerfen',
    'adapters.none': 'Keine Nachrichten zurückgehalten: Alles, was Ihre Systeme gesendet haben, wurde verarbeitet.',
    'adapters.noAnswer': 'Das Adapter-Gateway hat nicht geantwortet ({message}).',
  },
  pl: {
    'language.label': 'Język',

    'place.somewhere': 'gdziekolwiek',
    'place.subdivision': '{code}, {country}',
    'place.circle': '{radius} wokół {latitude}, {longitude}',
    'place.drawn': 'narysowany obszar',
    'compass.N': 'N',
    'compass.S': 'S',
    'compass.E': 'E',
    'compass.W': 'W',

    'unit.t': '{value} t',
    'unit.kg': '{value} kg',
    'unit.km': '{value} km',
    'unit.ldm': '{value} LDM',
    'unit.m3': '{value} m³',
    'unit.pallets': { one: '{value} paleta', few: '{value} palety', many: '{value} palet', other: '{value} palety' },

    'explain.pickup.unknown': '(nieznane)',
    'explain.delivery.unknown': '(nieznane)',
    'explain.pickup': 'Miejsce załadunku {place} leży {offset} od trasy pojazdu (dopuszczalne {allowance}).',
    'explain.delivery': 'Miejsce rozładunku {place} leży {offset} od trasy pojazdu (dopuszczalne {allowance}).',
    'explain.detour': 'Objazd wynosi {detour}; dopuszczalne {allowance}.',
    'explain.timeWindow': 'Załadunek od {pickup}, dostawa do {delivery}; przejazd trwa {duration}.',
    'explain.duration': { one: 'około {hours} godzinę', few: 'około {hours} godziny', many: 'około {hours} godzin', other: 'około {hours} godziny' },
    'explain.duration.unknown': 'dłuższą chwilę',
    'explain.PICKUP_OUTSIDE_AVAILABILITY': 'Okno załadunku wypada poza dostępnością pojazdu.',
    'explain.DELIVERY_OUTSIDE_AVAILABILITY': 'Okno rozładunku wypada poza dostępnością pojazdu.',
    'explain.TRANSIT_TOO_SHORT': 'Za mało czasu na przejazd.',
    'explain.body': 'Nadwozie: {offered}.',
    'explain.body.wanted': 'Nadwozie: {offered} (wymagane: {wanted}).',
    'explain.relationship': 'Partnerzy w ramach obowiązującej współpracy.',
    'explain.relationship.missing': 'Współpraca nie obejmuje uprawnień: {scopes}.',
    'explain.capacity': 'Ładowność, {dimension}: potrzeba {required}, wolne {remaining}.',
    'explain.default': '{criterion}: {reason}.',
    'explain.VISIBILITY_MUTUAL': 'Każda ze stron widzi ogłoszenie drugiej.',
    'explain.LISTINGS_OPEN': 'Oba ogłoszenia są aktualne.',
    'explain.EQUIPMENT_NOT_REQUIRED': 'Nie jest potrzebne specjalne wyposażenie.',
    'explain.DANGEROUS_GOODS_NONE': 'Brak towarów niebezpiecznych.',
    'explain.TEMPERATURE_NOT_REQUIRED': 'Kontrola temperatury nie jest potrzebna.',
    'dimension.weightKg': 'waga',
    'dimension.palletSpaces': 'miejsca paletowe',
    'dimension.loadingMetres': 'metry ładowne',
    'dimension.volumeM3': 'objętość',

    'criterion.pickupArea': 'Obszar załadunku',
    'criterion.deliveryArea': 'Obszar rozładunku',
    'criterion.detour': 'Objazd',
    'criterion.timeWindow': 'Okno czasowe',
    'criterion.bodyType': 'Typ nadwozia',
    'criterion.equipment': 'Wyposażenie',
    'criterion.dangerousGoods': 'Towary niebezpieczne',
    'criterion.temperature': 'Temperatura',
    'criterion.relationship': 'Współpraca',
    'criterion.visibility': 'Widoczność',
    'criterion.status': 'Status',
    'criterion.capacity': 'Ładowność',
    'criterion.capacity.weightKg': 'Ładowność: waga',
    'criterion.capacity.palletSpaces': 'Ładowność: miejsca paletowe',
    'criterion.capacity.loadingMetres': 'Ładowność: metry ładowne',
    'criterion.capacity.volumeM3': 'Ładowność: objętość',

    'reason.AREA_PICKUP_ON_ROUTE': 'załadunek na trasie',
    'reason.AREA_PICKUP_OFF_ROUTE': 'załadunek poza trasą',
    'reason.AREA_DELIVERY_TOWARDS_DESTINATION': 'rozładunek w kierunku celu',
    'reason.AREA_DELIVERY_OFF_ROUTE': 'rozładunek poza trasą',
    'reason.DETOUR_WITHIN_LIMIT': 'objazd w dopuszczalnym limicie',
    'reason.DETOUR_EXCEEDS_LIMIT': 'objazd przekracza limit',
    'reason.TIME_WINDOW_FEASIBLE': 'okno czasowe do zrealizowania',
    'reason.PICKUP_OUTSIDE_AVAILABILITY': 'załadunek poza dostępnością',
    'reason.DELIVERY_OUTSIDE_AVAILABILITY': 'rozładunek poza dostępnością',
    'reason.TRANSIT_TOO_SHORT': 'za krótki czas przejazdu',
    'reason.BODY_TYPE_ANY': 'dowolne nadwozie',
    'reason.BODY_TYPE_MATCH': 'nadwozie pasuje',
    'reason.BODY_TYPE_MISMATCH': 'nadwozie nie pasuje',
    'reason.EQUIPMENT_NOT_REQUIRED': 'wyposażenie niewymagane',
    'reason.EQUIPMENT_AVAILABLE': 'wyposażenie dostępne',
    'reason.EQUIPMENT_MISSING': 'brak wyposażenia',
    'reason.DANGEROUS_GOODS_NONE': 'brak towarów niebezpiecznych',
    'reason.DANGEROUS_GOODS_PERMITTED': 'towary niebezpieczne dozwolone',
    'reason.DANGEROUS_GOODS_NOT_PERMITTED': 'towary niebezpieczne niedozwolone',
    'reason.TEMPERATURE_NOT_REQUIRED': 'temperatura niewymagana',
    'reason.TEMPERATURE_SATISFIED': 'temperatura spełniona',
    'reason.TEMPERATURE_NOT_SATISFIED': 'temperatura niespełniona',
    'reason.RELATIONSHIP_ACTIVE': 'współpraca aktywna',
    'reason.RELATIONSHIP_INACTIVE': 'współpraca nieaktywna',
    'reason.RELATIONSHIP_SCOPES_MISSING': 'brak uprawnień we współpracy',
    'reason.VISIBILITY_MUTUAL': 'wzajemna widoczność',
    'reason.OFFER_NOT_VISIBLE_TO_REQUESTER': 'oferta pojazdu niewidoczna dla zleceniodawcy',
    'reason.REQUEST_NOT_VISIBLE_TO_CARRIER': 'ładunek niewidoczny dla przewoźnika',
    'reason.LISTINGS_OPEN': 'ogłoszenia aktualne',
    'reason.OFFER_NOT_OPEN': 'oferta pojazdu nieaktualna',
    'reason.REQUEST_NOT_OPEN': 'ładunek nieaktualny',
    'reason.NO_COMMON_CAPACITY_DIMENSION': 'brak wspólnej miary ładowności',
    'reason.CAPACITY_WEIGHT_FITS': 'waga się mieści',
    'reason.CAPACITY_WEIGHT_EXCEEDS': 'waga przekroczona',
    'reason.CAPACITY_PALLET_SPACES_FITS': 'miejsca paletowe wystarczą',
    'reason.CAPACITY_PALLET_SPACES_EXCEEDS': 'za mało miejsc paletowych',
    'reason.CAPACITY_LOADING_METRES_FITS': 'metry ładowne wystarczą',
    'reason.CAPACITY_LOADING_METRES_EXCEEDS': 'za mało metrów ładownych',
    'reason.CAPACITY_VOLUME_FITS': 'objętość się mieści',
    'reason.CAPACITY_VOLUME_EXCEEDS': 'objętość przekroczona',

    'status.draft': 'szkic',
    'status.published': 'opublikowane',
    'status.partiallyMatched': 'częściowo dopasowane',
    'status.proposed': 'zaproponowane',
    'status.matched': 'dopasowane',
    'status.withdrawn': 'wycofane',
    'status.expired': 'wygasłe',
    'status.open': 'otwarte',
    'status.accepted': 'zaakceptowane',
    'status.rejected': 'odrzucone',
    'status.superseded': 'zastąpione',
    'status.cancelled': 'anulowane',
    'status.active': 'aktywne',
    'status.suspended': 'zawieszone',
    'status.terminated': 'rozwiązane',
    'status.requested': 'zaproszenie wysłane',
    'status.issued': 'wystawione',
    'status.amending': 'w trakcie zmiany',
    'status.accepting': 'w trakcie akceptacji',
    'status.closed': 'zamknięte',
    'status.completed': 'zrealizowane',
    'status.created': 'utworzone',
    'status.disabled': 'wyłączone',
    'status.disputed': 'sporne',
    'status.ended': 'zakończone',
    'status.failed': 'nieudane',
    'status.imported': 'przyjęte',
    'status.inProgress': 'w realizacji',
    'status.invited': 'zaproszone',
    'status.linked': 'powiązane',
    'status.offered': 'zaoferowane',
    'status.pending': 'oczekujące',
    'status.planned': 'zaplanowane',
    'status.quarantined': 'wstrzymane',
    'status.removed': 'usunięte',
    'status.retired': 'wycofane z użycia',
    'status.revoked': 'unieważnione',
    'status.skipped': 'pominięte',
    'status.succeeded': 'udane',
    'status.verified': 'zweryfikowane',
    'status.held': 'wstrzymane',
    'status.released': 'zwolnione',
    'status.discarded': 'odrzucone',
    'status.PENDING_INITIATOR_ACCEPT': 'czeka na akceptację inicjatora',
    'status.PENDING_ACCEPTOR_ACCEPT': 'czeka na akceptację drugiej strony',
    'status.COMMITTING': 'w trakcie zatwierdzania',
    'status.COMMITTED': 'zatwierdzone',
    'status.REJECTED': 'odrzucone',
    'status.EXPIRED': 'wygasłe',
    'status.CANCELLED': 'anulowane',
    'status.assigned': 'przydzielone',
    'status.atPickup': 'na miejscu załadunku',
    'status.pickedUp': 'załadowane',
    'status.inTransit': 'w drodze',
    'status.atDelivery': 'na miejscu rozładunku',
    'status.delivered': 'dostarczone',
    'status.delayed': 'opóźnione',
    'status.curtainsider': 'firanka',
    'status.box': 'kontener',
    'status.refrigerated': 'chłodnia',
    'status.insulated': 'izoterma',
    'status.tanker': 'cysterna',
    'status.silo': 'silos',
    'status.flatbed': 'platforma',
    'status.lowLoader': 'niskopodwozie',
    'status.tipper': 'wywrotka',
    'status.containerChassis': 'podkontenerówka',
    'status.carTransporter': 'autotransporter',
    'status.walkingFloor': 'ruchoma podłoga',
    'status.van': 'bus',
    'status.other': 'inne',
    'status.tailLift': 'winda załadowcza',
    'status.forkliftOnBoard': 'wózek widłowy na pojeździe',
    'status.palletJack': 'wózek paletowy',
    'status.straps': 'pasy',
    'status.garmentRails': 'drążki do odzieży',
    'status.adrEquipment': 'wyposażenie ADR',
    'status.temperatureRecorder': 'rejestrator temperatury',
    'status.pickup': 'załadunek',
    'status.delivery': 'rozładunek',
    'status.dispatch': 'spedycja',
    'status.emergency': 'kontakt awaryjny',
    'status.cargo': 'towar',
    'status.equipment': 'wyposażenie',
    'status.stops': 'punkty trasy',
    'status.commercialTerms': 'warunki handlowe',
    'status.externalTermsReference': 'warunki zewnętrzne',

    'grid.search.offer': 'pojazd oferta wolne auto',
    'grid.search.request': 'ładunek zlecenie',

    'notice.done': 'Gotowe',
    'problem.http': 'HTTP {status}',
    'problem.refused': 'Odmowa',

    'session.ended': 'Twoja sesja wygasła: zaloguj się ponownie, aby kontynuować.',
    'session.kept.otherUser': 'kliknął to {userId}, a nie Ty',
    'session.kept.tooOld': 'kliknięto to ponad 30 minut temu',

    'scope.capacity:read': 'widzieć udostępnione im pojazdy',
    'scope.capacity:publish': 'oferować Ci pojazdy',
    'scope.loads:read': 'widzieć udostępnione im ładunki',
    'scope.loads:publish': 'oferować Ci ładunki',
    'scope.matches:read': 'widzieć propozycje między Wami',
    'scope.matches:decide': 'akceptować lub odrzucać te propozycje',
    'scope.tenders:read': 'widzieć przetargi między Wami',
    'scope.tenders:publish': 'wystawiać Ci przetargi',
    'scope.tenders:decide': 'akceptować, negocjować lub odrzucać przetargi',
    'scope.commitments:read': 'widzieć zawarte zlecenia',
    'scope.handovers:write': 'przekazywać dane do realizacji',
    'scope.handovers:read': 'czytać przekazania',
    'scope.handovers:acknowledge': 'potwierdzać przekazania',
    'scope.execution:update': 'zgłaszać statusy przewozu',
    'scope.outcomes:write': 'zgłaszać wyniki',
    'scope.outcomes:review': 'sprawdzać wyniki',
    'partners.title': 'Partnerzy',
    'partners.none': 'Brak partnerów. Zaproś organizację, podając identyfikator, który Ci przekaże: gdy przyjmie zaproszenie, zobaczy to, co udostępniasz, a broker zacznie proponować Wam dopasowania.',
    'partners.reason': 'Powód',
    'partners.request': 'Wyślij zaproszenie',
    'partners.request.label': 'Wyślij zaproszenie do {partner}',
    'partners.accept': 'Akceptuj',
    'partners.accept.label': 'Zaakceptuj współpracę z {partner}',
    'partners.reject': 'Odrzuć',
    'partners.reject.label': 'Odrzuć współpracę z {partner}',
    'partners.withdraw': 'Wycofaj',
    'partners.withdraw.label': 'Wycofaj zaproszenie dla {partner}',
    'partners.withdraw.reasonLabel': 'Powód wycofania',
    'partners.withdraw.defaultReason': 'wycofano w konsoli',
    'partners.suspend': 'Zawieś',
    'partners.suspend.label': 'Zawieś współpracę z {partner}',
    'partners.suspend.reasonLabel': 'Powód zawieszenia',
    'partners.suspend.defaultReason': 'zawieszono w konsoli',
    'partners.reactivate': 'Wznów',
    'partners.reactivate.label': 'Wznów współpracę z {partner}',
    'partners.terminate': 'Rozwiąż',
    'partners.terminate.label': 'Rozwiąż współpracę z {partner}',
    'partners.terminate.reasonLabel': 'Powód rozwiązania',
    'partners.terminate.defaultReason': 'rozwiązano w konsoli',
    'partners.youInvited': 'zaproszenie od Ciebie',
    'partners.theyInvited': 'zaproszenie do Ciebie',
    'partners.since': 'od {when}',
    'partners.until': 'do {when}',
    'partners.mayNow': 'Każda ze stron może',
    'partners.mayLater': 'Każda ze stron będzie mogła',
    'partners.nothingYet': 'jeszcze nic',
    'partners.invite.title': 'Zaproś partnera',
    'partners.invite.organization': 'Identyfikator organizacji',
    'partners.invite.button': 'Zaproś partnera',
    'partners.invite.label': 'Zaproś {organization} jako partnera',
    'partners.invited': 'Zaproszono',
    'partners.invited.text': '{organization}; organizacja widzi teraz zaproszenie i może je przyjąć lub odrzucić.',
    'partners.notInvited': 'Nie zaproszono',

    'org.status.invited': 'Zaproszony',
    'org.status.pending': 'Oczekuje na weryfikację',
    'org.status.active': 'Aktywny',
    'org.status.suspended': 'Zawieszony',
    'org.status.ended': 'Zakończony',
    'org.status.disabled': 'Wyłączony',
    'org.status.retired': 'Wycofany z użycia',
    'org.status.expired': 'Wygasły',
    'org.status.revoked': 'Unieważniony',
    'org.scheme.LEI': 'LEI (ISO 17442)',
    'org.scheme.VAT': 'Numer VAT',
    'org.scheme.EORI': 'Numer EORI',
    'org.verification.imported': 'Zaimportowano z {evidence} {when}',
    'org.verification.verified': 'Zweryfikowano {when} przez {by} (dowód: {evidence})',
    'org.verification.rejected': 'Weryfikację odrzucono {when}: {reason}',
    'org.verification.none': 'Jeszcze nie zweryfikowano',
    'org.key.secret': 'Sekret klienta kończący się na {hint}',
    'org.key.jwk': 'Klucz {id}',
    'org.key.jwkCertificate': 'Klucz {id} (z certyfikatem)',
    'org.key.added': 'dodany {when}',
    'org.key.until': 'ważny do {when}',
    'org.key.noExpiry': 'bez terminu ważności',
    'org.key.lastUsed': 'ostatnio użyty {when}',
    'org.key.neverUsed': 'nigdy nieużyty',
    'org.key.revokeReason': 'Powód unieważnienia',
    'org.key.revoke': 'Unieważnij',
    'org.title': 'Twoja organizacja: {name}',
    'org.noRecord': 'Twoja organizacja jest skonfigurowana w pliku i nie ma jeszcze rekordu.',
    'org.secret.of': 'Nowy sekret klienta {clientId}',
    'org.secret.once': 'Skopiuj go teraz: nie zostanie pokazany ponownie.',
    'org.connectors': 'Konektory',
    'org.connectors.none': 'Nie ma tu jeszcze żadnych konektorów.',
    'org.connectors.retired': 'Konektory wycofane z użycia ({count})',
    'org.connector.may': 'Może: {scopes}',
    'org.connector.nothing': 'jeszcze nic',
    'org.connector.noKeys': 'Brak kluczy.',
    'org.connector.disableReason': 'Powód wyłączenia',
    'org.connector.disable': 'Wyłącz konektor',
    'org.connector.enable': 'Włącz konektor',
    'org.connector.newSecret': 'Nowy sekret klienta',
    'org.users': 'Użytkownicy',
    'org.users.none': 'Nie zaproszono tu jeszcze żadnych użytkowników (użytkownicy z pliku użytkowników nie są wymienieni).',
    'org.invitation.of': 'Kod zaproszenia dla {userId}',
    'org.invitation.once': 'Przekaż go teraz użytkownikowi (to hasło na stronie logowania środowiska deweloperskiego): nie zostanie pokazany ponownie.',
    'org.role.planner': 'Spedytor',
    'org.role.viewer': 'Podgląd',
    'org.role.admin': 'Administrator',
    'org.user.invitedUntil': 'zaproszenie ważne do {when}',
    'org.user.since': 'od {when}',
    'org.user.disableReason': 'Powód wyłączenia',
    'org.user.disable': 'Wyłącz użytkownika',
    'org.user.enable': 'Włącz użytkownika',
    'org.user.reinvite': 'Zaproś ponownie',
    'org.invite.userId': 'Identyfikator użytkownika (nadany przez dostawcę tożsamości)',
    'org.invite.name': 'Nazwa użytkownika',
    'org.invite.role': 'Rola',
    'org.invite.button': 'Zaproś',
    'org.webhooks': 'Subskrypcje webhooków',
    'org.webhooks.none': 'Brak subskrypcji webhooków.',
    'org.webhook.active': 'aktywna',
    'org.webhook.inactive': 'nieaktywna',
    'org.webhook.everyEvent': 'każde zdarzenie',

    'operator.title': 'Organizacje giełdy',
    'operator.name': 'Nazwa organizacji',
    'operator.id': 'Identyfikator organizacji',
    'operator.scheme': 'Identyfikator prawny',
    'operator.identifier': 'Numer',
    'operator.register': 'Zarejestruj',
    'operator.column.organization': 'Organizacja',
    'operator.column.identifier': 'Identyfikator prawny',
    'operator.column.status': 'Status',
    'operator.column.verification': 'Weryfikacja',
    'operator.noIdentifier': 'brak',
    'operator.evidence': 'Dowód (sygnatura)',
    'operator.verify': 'Zweryfikuj',
    'operator.reason': 'Powód',
    'operator.reject': 'Odrzuć',
    'operator.suspend': 'Zawieś',
    'operator.reinstate': 'Przywróć',
    'operator.end': 'Zakończ',
    'operator.adherenceUntil': 'Uczestnictwo do {when}',

    'adapters.format.edifact': 'EDIFACT',
    'adapters.format.epcis': 'Zdarzenia EPCIS',
    'adapters.format.spreadsheet': 'Arkusz kalkulacyjny',
    'adapters.overHttp': 'wysłano przez HTTP',
    'adapters.received': 'Odebrano {when}; {state}',
    'adapters.at': 'w {position}',
    'adapters.correctedFile': 'Poprawiony plik',
    'adapters.chooseFile': 'najpierw wybierz poprawiony plik',
    'adapters.released': 'Zwolniono: poprawiona wiadomość jest przetwarzana.',
    'adapters.release': 'Zwolnij poprawiony plik',
    'adapters.discarded': 'Odrzucono.',
    'adapters.discard': 'Odrzuć',
    'adapters.none': 'Brak wstrzymanych wiadomości: wszystko, co wysłały Twoje systemy, zostało przetworzone.',
    'adapters.noAnswer': 'Bramka adapterów nie odpowiedziała ({message}).',
  },
};
