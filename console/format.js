// What the console says, in the planner's words: places by name with their country's flag, times
// in the planner's own time zone, capacity in units (24 t, 33 pallets, 13.6 ldm), prices as money,
// organizations by name, reason codes as sentences. Pure functions of data (test/unit/console-format.test.ts).

/** The locale and time zone the console speaks in: the browser's, unless a test pins them. */
export const settings = { locale: undefined, timeZone: undefined };

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

const degrees = (value, positive, negative) => `${Math.abs(value).toFixed(2)}° ${value >= 0 ? positive : negative}`;

/** An area in words: "Hamburg", "Germany", "DE-HH, Germany", "50 km around 51.92° N, 4.47° E" (its flag: countryOf). */
export function placeOf(area, places = {}) {
  if (!area) return 'somewhere';
  switch (area.kind) {
    case 'unlocode':
      return places[area.code]?.name ?? area.code;
    case 'country':
      return countryName(area.code);
    case 'subdivision':
      return `${area.code}, ${countryName(area.code.slice(0, 2))}`;
    case 'circle':
      return `${area.radiusKm} km around ${degrees(area.center[1], 'N', 'S')}, ${degrees(area.center[0], 'E', 'W')}`;
    case 'list':
      return area.areas.map((a) => placeOf(a, places)).join(' or ');
    default:
      return 'a drawn area';
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

/** A moment in the planner's time zone: "12 Dec 2026, 08:00 CET". */
export function when(iso) {
  if (!iso) return '';
  return dateTime({ dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso)) + ` ${zoneOf(iso)}`;
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

const number = (value, digits = 1) => new Intl.NumberFormat(settings.locale, { maximumFractionDigits: digits }).format(value);

const KG_PER = { KGM: 1, TNE: 1000, GRM: 0.001, LBR: 0.45359237 };
const M3_PER = { MTQ: 1, LTR: 0.001, DMQ: 0.001, FTQ: 0.028316846592 };
const M_PER = { MTR: 1, CMT: 0.01, MMT: 0.001, FOT: 0.3048 };

/** A weight in tonnes from 1 t up, else kilograms. */
export function weightOf(w) {
  if (!w) return '';
  const kg = w.value * (KG_PER[w.unitCode] ?? 1);
  return kg >= 1000 ? `${number(kg / 1000)} t` : `${number(kg, 0)} kg`;
}

/** Capacity in words: "24 t, 33 pallets, 13.6 ldm, 80 m³". */
export function capacityOf(c) {
  if (!c) return '';
  const parts = [];
  if (c.weight) parts.push(weightOf(c.weight));
  if (c.palletSpaces !== undefined) parts.push(`${number(c.palletSpaces, 0)} pallet${c.palletSpaces === 1 ? '' : 's'}`);
  if (c.loadingMetres) parts.push(`${number(c.loadingMetres.value * (M_PER[c.loadingMetres.unitCode] ?? 1))} ldm`);
  if (c.volume) parts.push(`${number(c.volume.value * (M3_PER[c.volume.unitCode] ?? 1))} m³`);
  return parts.join(', ');
}

/** Money: "€875.00". */
export function moneyOf(p) {
  if (!p || typeof p.amount !== 'number' || !/^[A-Z]{3}$/.test(p.currency ?? '')) return '';
  return new Intl.NumberFormat(settings.locale, { style: 'currency', currency: p.currency }).format(p.amount);
}

/** An address on one line. */
export function addressOf(a) {
  if (!a) return '';
  return [...(a.lines ?? []), [a.postalCode, a.city].filter(Boolean).join(' '), a.countryCode ? countryName(a.countryCode) : ''].filter(Boolean).join(', ');
}

/** A criterion's name: "pickupArea" → "Pickup area", "capacity.weightKg" → "Capacity: weight". */
export function criterionName(name) {
  const [head, tail] = String(name).split('.');
  const words = (s) => s.replace(/Kg$/, '').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  const text = tail ? `${words(head)}: ${words(tail)}` : words(head);
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A reason code as words: "CAPACITY_WEIGHT_FITS" → "capacity weight fits". */
export function reasonOf(code) {
  return code ? String(code).toLowerCase().replace(/_/g, ' ') : '';
}

/** An organization by name: the directory's (GET /partners), else its id. */
export function nameOf(organizationId, names = {}) {
  return names[organizationId] ?? organizationId ?? '';
}

/** A status as a planner reads it: "partiallyMatched" → "partially matched", "PENDING_INITIATOR_ACCEPT" → "pending initiator accept". */
export function statusOf(status) {
  return String(status ?? '')
    .replace(/_/g, ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
}

/** A quantity of a capacity dimension as the explanation gives it (the unit is the dimension's). */
function amountOf(dimension, value, unit) {
  if (dimension.startsWith('weight')) return weightOf({ value, unitCode: unit || 'KGM' });
  if (dimension.startsWith('pallet')) return `${number(value, 0)} pallet${value === 1 ? '' : 's'}`;
  if (dimension.startsWith('loading')) return `${number(value)} ldm`;
  if (dimension.startsWith('volume')) return `${number(value)} m³`;
  return `${number(value)} ${unit ?? ''}`.trim();
}

const km = (v) => (typeof v === 'number' ? `${number(v, 0)} km` : '? km');

/** Reason codes that say it all in a sentence. */
const PLAIN = {
  VISIBILITY_MUTUAL: 'Each side may see the other\u2019s listing.',
  LISTINGS_OPEN: 'Both listings are open.',
  EQUIPMENT_NOT_REQUIRED: 'No special equipment is needed.',
  DANGEROUS_GOODS_NONE: 'No dangerous goods.',
  TEMPERATURE_NOT_REQUIRED: 'No temperature control is needed.',
};

/**
 * The explanation in sentences, one per criterion, each { ok, text }: what the broker compared,
 * with units, places by name and times in the planner's zone.
 */
export function explanationOf(p, { places = {}, request, offer } = {}) {
  const pickup = request ? placeOf(request.pickupArea, places) : 'the pickup';
  const delivery = request ? placeOf(request.deliveryArea, places) : 'the delivery';
  return (p.compatibility ?? []).map((c) => {
    const f = c.figures ?? {};
    const ok = c.result !== 'fail';
    const said = PLAIN[c.reasonCode];
    let text;
    switch (said ? '' : c.criterion) {
      case '':
        text = said;
        break;
      case 'pickupArea':
        text = `Pickup in ${pickup} is ${km(f.pickupOffsetKm)} off the truck's way (${km(f.allowanceKm)} allowed).`;
        break;
      case 'deliveryArea':
        text = `Delivery in ${delivery} is ${km(f.deliveryOffsetKm)} off the truck's way (${km(f.allowanceKm)} allowed).`;
        break;
      case 'detour':
        text = `The detour is ${km(f.detourKm)}; ${km(f.allowanceKm)} allowed.`;
        break;
      case 'timeWindow': {
        const hours = typeof f.transitMinutes === 'number' ? `about ${number(f.transitMinutes / 60)} h` : 'a while';
        const reason = ok ? '' : { PICKUP_OUTSIDE_AVAILABILITY: ' The pickup window lies outside the truck\u2019s availability.', DELIVERY_OUTSIDE_AVAILABILITY: ' The delivery window lies outside the truck\u2019s availability.', TRANSIT_TOO_SHORT: ' There is not time enough for the drive.' }[c.reasonCode] ?? '';
        text = `Loading from ${when(f.earliestPickup)}, delivered by ${when(f.latestDelivery)}; the drive takes ${hours}.${reason}`;
        break;
      }
      case 'bodyType':
        text = `Body: ${statusOf(f.offered)}${Array.isArray(f.accepted) && f.accepted.length ? ` (${f.accepted.map(statusOf).join(' or ')} wanted)` : ''}.`;
        break;
      case 'relationship':
        text = ok ? 'Partners under a relationship in force.' : `The relationship does not grant ${[].concat(f.missingScopes ?? []).join(', ')}.`;
        break;
      default:
        if (c.criterion.startsWith('capacity.')) {
          const dimension = c.criterion.slice('capacity.'.length);
          text = `${criterionName(c.criterion).replace(/^Capacity: /, 'Capacity, ')}: ${amountOf(dimension, f.required, f.unit)} needed, ${amountOf(dimension, f.remaining, f.unit)} free.`;
        } else {
          text = `${criterionName(c.criterion)}: ${reasonOf(c.reasonCode)}.`;
        }
    }
    return { ok, applies: c.result !== 'notApplicable', criterion: c.criterion, text };
  });
}
