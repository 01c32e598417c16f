// The posting form's model (console/post.js), pure: what the form's values become as the API's
// body (a capacity offer or a load request), and the field problems the form finds itself; the
// values a draft fills the form with; the PATCH that saves a draft edited (a JSON merge patch laid
// over what the draft holds beyond the form); which field a problem's pointer is about, and the
// problems said there with the field's own words. Tested in test/unit/console-post.test.ts.
import { localName, placeOf, t } from './format.js';
import { localInput } from './views.js';

export const BODY_TYPES = ['curtainsider', 'box', 'refrigerated', 'insulated', 'tanker', 'silo', 'flatbed', 'lowLoader', 'tipper', 'containerChassis', 'carTransporter', 'walkingFloor', 'van'];
/** Equipment a planner ticks (the vocabulary's, without "other", which needs words of its own). */
export const EQUIPMENT = ['tailLift', 'forkliftOnBoard', 'palletJack', 'straps', 'adrEquipment', 'temperatureRecorder', 'garmentRails'];
/** ADR classes as the vocabulary spells them ("3", "4.1"). */
export const ADR_CLASSES = ['1', '2', '3', '4.1', '4.2', '4.3', '5.1', '5.2', '6.1', '6.2', '7', '8', '9'];
export const KIND_OF_PATH = { offer: 'capacity-offers', request: 'load-requests' };

/** Which field a problem's pointer is about (offer and request fields alike). */
const FIELD_OF = [
  [/^\/(originArea|pickupArea)/, 'from'],
  [/^\/(destinationArea|deliveryArea)/, 'to'],
  [/^\/(availabilityWindow|pickupWindow)/, 'first'],
  [/^\/deliveryWindow/, 'second'],
  [/^\/(availableCapacity|requiredCapacity)/, 'capacity'],
  [/^\/(vehicleProfile|vehicleRequirements)/, 'body'],
  [/^\/expiresAt/, 'expires'],
  [/^\/visibility/, 'visibility'],
  [/^\/restrictedDetails\/goodsDetails/, 'goods'],
  [/^\/restrictedDetails/, 'price'],
  [/^\/(constraints|handlingRequirements)/, 'goods'],
];

/** The form's field a problem's pointer is about ("/expiresAt" → "expires"), or undefined. */
export const fieldOf = (pointer) => FIELD_OF.find(([re]) => re.test(pointer ?? ''))?.[1];

/** The field's words, as its label (or legend) says them for a truck or a load. */
export function labelOf(field, kind) {
  const truck = kind === 'offer';
  const words = {
    from: t('post.from'),
    to: t('post.to'),
    first: truck ? t('post.availableFrom') : t('post.pickupFrom'),
    second: t('post.deliveryFrom'),
    capacity: t('post.capacity'),
    body: truck ? t('post.body') : t('post.bodyWanted'),
    goods: truck ? t('post.goodsTruck') : t('post.goods'),
    price: t('post.price'),
    expires: t('post.expires'),
    visibility: t('post.seenBy'),
  };
  return words[field] ?? '';
}

/**
 * A problem (the broker's or the form's own) said where it belongs: `fields` the words beside each
 * field its errors' pointers name ("Listed until must be in the future."), `summary` the line under
 * the form (its title, and its detail unless the fields say it).
 */
export function problemsOf(problem, kind, fallback = t('post.notPosted')) {
  // A PATCH's fields may also be null (a merge patch removes them): the schema's "must be null"
  // and "must match exactly one schema in oneOf" beside the real problem say nothing to a planner.
  const all = problem.errors ?? [];
  const noise = (e) => /^must be null$|^must match exactly one schema in oneOf$/.test(e.message ?? '');
  const errors = all.filter((e) => !noise(e) || !all.some((o) => !noise(o) && (o.pointer ?? '').startsWith(e.pointer ?? '')));
  const fields = {};
  for (const error of errors) {
    const field = fieldOf(error.pointer);
    if (!field) continue;
    // Said with the field's own label, the pointer's rest after it.
    const rest = (error.pointer ?? '').split('/').slice(2).join(' ');
    const said = `${labelOf(field, kind)}${rest ? ` (${rest})` : ''} ${error.message}.`;
    fields[field] = fields[field] ? `${fields[field]} ${said}` : said;
  }
  const placed = Object.keys(fields).length > 0;
  const summary = `${problem.title ?? fallback}${problem.detail && !placed ? `: ${problem.detail}` : placed ? `: ${t('post.seeFields')}` : ''}`;
  return { fields, summary };
}

/** The UN/LOCODE a place field names: in brackets after its name, or typed alone. */
export const codeOf = (text) => /\(([A-Z]{2}[A-Z0-9]{3})\)\s*$/.exec(text)?.[1] ?? (/^[A-Za-z]{2}[A-Za-z0-9]{3}$/.test(text.trim()) ? text.trim().toUpperCase() : undefined);
/** A place field's words without the code in brackets (the notice's, the title's). */
export const placeText = (text) => text.replace(/\s*\([A-Z]{2}[A-Z0-9]{3}\)$/, '');
/** A place field's area: the one drawn or kept while the field shows its words, else its UN/LOCODE. */
export const areaOf = (text, chosen) => (chosen && text === chosen.text ? chosen.area : codeOf(text) ? { kind: 'unlocode', code: codeOf(text) } : undefined);

/** A new form's values: a truck or a load from tomorrow's next full hour for eight hours, listed until it begins. */
export function emptyValues(kind = 'offer', now = Date.now()) {
  const start = new Date(now + 24 * 3600_000);
  start.setMinutes(0, 0, 0);
  const at = (hours) => localInput(new Date(start.getTime() + hours * 3600_000));
  return {
    kind, from: '', to: '',
    firstStart: at(0), firstEnd: at(8), secondStart: at(8), secondEnd: at(32),
    weight: '', pallets: '', ldm: '', body: BODY_TYPES[0], price: '',
    adr: '', un: '', tempMin: '', tempMax: '', equipment: [],
    expires: at(0), visibility: 'open', partners: undefined,
  };
}

const isoOf = (value) => (value ? new Date(value).toISOString() : undefined);

/**
 * The body of the create, from the form's values (`partners` the organizations ticked) and the
 * areas chosen otherwise than by a code (`chosen.from`, `chosen.to`: { area, text }): { path, body },
 * or { errors } for fields that cannot be read (pointers as the broker's).
 */
export function bodyOf(v, chosen = {}, timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone) {
  const truck = v.kind === 'offer';
  const errors = [];
  const fromArea = areaOf(v.from, chosen.from);
  const toArea = areaOf(v.to, chosen.to);
  if (!fromArea) errors.push({ pointer: truck ? '/originArea' : '/pickupArea', message: t('post.choosePlace') });
  if (!toArea) errors.push({ pointer: truck ? '/destinationArea' : '/deliveryArea', message: t('post.choosePlace') });
  const capacity = {};
  if (v.weight) capacity.weight = { value: Number(v.weight), unitCode: 'TNE' };
  if (v.pallets) capacity.palletSpaces = Number(v.pallets);
  if (v.ldm) capacity.loadingMetres = { value: Number(v.ldm), unitCode: 'MTR' };
  const ticked = v.partners ?? [];
  const seenBy = v.visibility === 'open' ? { mode: 'open' } : { mode: 'partners', organizationIds: ticked };
  if (v.visibility === 'partners' && !ticked.length) errors.push({ pointer: '/visibility', message: t('post.tickPartner') });
  // ADR classes typed as "3, 8" (a comma, a semicolon or spaces between); one the vocabulary lacks is said at the field.
  const classes = v.adr.split(/[\s,;]+/).map((c) => c.trim()).filter(Boolean);
  const unknown = classes.filter((c) => !ADR_CLASSES.includes(c));
  if (unknown.length) errors.push({ pointer: truck ? '/constraints/dangerousGoods' : '/handlingRequirements/dangerousGoods', message: t('post.adrUnknown', { classes: unknown.join(', ') }) });
  // UN numbers typed as "1203, UN 1993": four digits each.
  const unNumbers = truck ? [] : [...new Set(v.un.replace(/UN/gi, ' ').split(/[\s,;]+/).filter(Boolean))];
  const notUn = unNumbers.filter((n) => !/^\d{4}$/.test(n));
  if (notUn.length) errors.push({ pointer: '/restrictedDetails/goodsDetails/unNumbers', message: t('post.unWrong', { numbers: notUn.join(', ') }) });
  if ((v.tempMin === '') !== (v.tempMax === '')) errors.push({ pointer: truck ? '/constraints/temperature' : '/handlingRequirements/temperature', message: t('post.tempBoth') });
  if (errors.length) return { errors };
  const handling = {
    ...(classes.length ? { dangerousGoods: { adrClasses: [...new Set(classes)] } } : {}),
    ...(v.tempMin !== '' ? { temperature: { minCelsius: Number(v.tempMin), maxCelsius: Number(v.tempMax) } } : {}),
  };
  const equipment = EQUIPMENT.filter((e) => v.equipment.includes(e));
  const restricted = {
    ...(v.price ? { price: { amount: Number(v.price), currency: 'EUR' } } : {}),
    ...(unNumbers.length ? { goodsDetails: { unNumbers } } : {}),
  };
  const common = { expiresAt: isoOf(v.expires), visibility: seenBy, ...(Object.keys(restricted).length ? { restrictedDetails: restricted } : {}) };
  const firstWindow = { start: isoOf(v.firstStart), end: isoOf(v.firstEnd), timeZone };
  if (truck) {
    return { path: '/capacity-offers', body: { availabilityWindow: firstWindow, originArea: fromArea, destinationArea: toArea, vehicleProfile: { bodyType: v.body, ...(equipment.length ? { equipment } : {}) }, availableCapacity: capacity, ...(Object.keys(handling).length ? { constraints: handling } : {}), ...common } };
  }
  return {
    path: '/load-requests',
    body: {
      pickupArea: fromArea, pickupWindow: firstWindow, deliveryArea: toArea,
      deliveryWindow: { start: isoOf(v.secondStart), end: isoOf(v.secondEnd), timeZone },
      requiredCapacity: capacity, vehicleRequirements: { bodyTypes: [v.body], ...(equipment.length ? { equipment } : {}) }, goodsProfile: { category: 'general' },
      ...(Object.keys(handling).length ? { handlingRequirements: handling } : {}), ...common,
    },
  };
}

/** Mass units in tonnes (a draft a connector wrote may weigh in kg or lb). */
const TONNES = { KGM: 0.001, TNE: 1, GRM: 0.000001, LBR: 0.00045359237 };

/**
 * A draft of ours as the form's values, with the areas it names otherwise than by a UN/LOCODE
 * (`chosen`: kept while the field shows their words). A code is shown after its place's name.
 */
export function valuesOf(l, places) {
  const truck = l.kind === 'offer';
  const chosen = { from: null, to: null };
  const put = (id, area) => {
    const code = area?.kind === 'unlocode' ? area.code : undefined;
    const name = code ? localName(places?.[code]) : undefined;
    chosen[id] = area && !code ? { area, text: placeOf(area, places) } : null;
    return code ? (name ? `${name} (${code})` : code) : (chosen[id]?.text ?? '');
  };
  const first = truck ? l.availabilityWindow : l.pickupWindow;
  const local = (iso) => (iso ? localInput(new Date(iso)) : '');
  const capacity = (truck ? l.availableCapacity : l.requiredCapacity) ?? {};
  const bodyType = truck ? l.vehicleProfile?.bodyType : l.vehicleRequirements?.bodyTypes?.[0];
  const handling = (truck ? l.constraints : l.handlingRequirements) ?? {};
  const fitted = (truck ? l.vehicleProfile?.equipment : l.vehicleRequirements?.equipment) ?? [];
  const text = (v) => (v === undefined || v === null ? '' : String(v));
  const values = {
    kind: l.kind,
    from: put('from', truck ? l.originArea : l.pickupArea),
    to: put('to', truck ? l.destinationArea : l.deliveryArea),
    firstStart: local(first?.start), firstEnd: local(first?.end),
    secondStart: local(l.deliveryWindow?.start), secondEnd: local(l.deliveryWindow?.end),
    weight: capacity.weight ? String(Math.round(capacity.weight.value * (TONNES[capacity.weight.unitCode] ?? 0.001) * 1000) / 1000) : '',
    pallets: text(capacity.palletSpaces),
    ldm: text(capacity.loadingMetres?.value),
    body: bodyType && BODY_TYPES.includes(bodyType) ? bodyType : BODY_TYPES[0],
    price: text(l.restrictedDetails?.price?.amount),
    adr: (handling.dangerousGoods?.adrClasses ?? []).join(', '),
    un: (l.restrictedDetails?.goodsDetails?.unNumbers ?? []).join(', '),
    tempMin: text(handling.temperature?.minCelsius),
    tempMax: text(handling.temperature?.maxCelsius),
    equipment: EQUIPMENT.filter((e) => fitted.includes(e)),
    expires: local(l.expiresAt),
    visibility: l.visibility?.mode === 'partners' ? 'partners' : 'open',
    partners: l.visibility?.mode === 'partners' ? l.visibility.organizationIds ?? [] : undefined,
  };
  return { values, chosen };
}

/**
 * The draft's PATCH: a JSON merge patch replaces each top-level member given as a whole, so the
 * form's values (`made`, bodyOf's answer) are laid over what the draft holds beyond them (other
 * vehicle details, volume).
 */
export function patchOf(l, made) {
  const b = made.body;
  const over = (old, fresh, drop = []) => {
    const merged = { ...(old ?? {}), ...fresh };
    for (const key of drop) if (!(key in fresh)) delete merged[key];
    return merged;
  };
  // An emptied member is removed (null in a merge patch), not sent as {}.
  const nonEmpty = (o) => (Object.keys(o).length ? o : null);
  // The form's UN numbers within the goods details a connector may have written more of.
  const goodsDetails = nonEmpty(over(l.restrictedDetails?.goodsDetails, b.restrictedDetails?.goodsDetails ?? {}, ['unNumbers']));
  const restricted = over(l.restrictedDetails, { ...(b.restrictedDetails ?? {}), ...(l.kind === 'request' && goodsDetails ? { goodsDetails } : {}) }, ['price', ...(l.kind === 'request' ? ['goodsDetails'] : [])]);
  const patch = { expiresAt: b.expiresAt, visibility: b.visibility, restrictedDetails: Object.keys(restricted).length ? restricted : null };
  if (l.kind === 'offer') {
    Object.assign(patch, {
      availabilityWindow: b.availabilityWindow, originArea: b.originArea, destinationArea: b.destinationArea,
      vehicleProfile: over(l.vehicleProfile, b.vehicleProfile, ['equipment']),
      availableCapacity: over(l.availableCapacity, b.availableCapacity, ['weight', 'palletSpaces', 'loadingMetres']),
      constraints: nonEmpty(over(l.constraints, b.constraints ?? {}, ['dangerousGoods', 'temperature'])),
    });
  } else {
    Object.assign(patch, {
      pickupArea: b.pickupArea, pickupWindow: b.pickupWindow, deliveryArea: b.deliveryArea, deliveryWindow: b.deliveryWindow,
      vehicleRequirements: over(l.vehicleRequirements, b.vehicleRequirements, ['equipment']),
      requiredCapacity: over(l.requiredCapacity, b.requiredCapacity, ['weight', 'palletSpaces', 'loadingMetres']),
      handlingRequirements: nonEmpty(over(l.handlingRequirements, b.handlingRequirements ?? {}, ['dangerousGoods', 'temperature'])),
    });
  }
  return patch;
}
