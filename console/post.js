// Posting: a truck (capacity offer) or a load (load request) from a form in the planner's terms:
// places found by name (GET /console/place-search) or an area drawn on the map as a circle, dates
// and times in the planner's zone, capacity in t / pallets / ldm, the body type, a price only the
// partner of an accepted match sees, and who may see it. "Post" creates and publishes; "Save as
// draft" only creates (published later from the grid). "Edit" on a draft in the grid fills the
// form with it; "Save changes" sends a PATCH (JSON merge patch, If-Match its version). The
// broker's problems are shown next to the fields their pointers name.
import { dateTimeInput } from './datetime.js';
import { el, localInput } from './views.js';
import { html, useState } from './ui.js';
import { countryName, nameOf, placeOf, statusOf, t } from './format.js';
import { drawCircle, showDraftAreas } from './map.js';

const BODY_TYPES = ['curtainsider', 'box', 'refrigerated', 'insulated', 'tanker', 'silo', 'flatbed', 'lowLoader', 'tipper', 'containerChassis', 'carTransporter', 'walkingFloor', 'van'];

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

/** Equipment a planner ticks (the vocabulary's, without "other", which needs words of its own). */
const EQUIPMENT = ['tailLift', 'forkliftOnBoard', 'palletJack', 'straps', 'adrEquipment', 'temperatureRecorder', 'garmentRails'];
/** ADR classes as the vocabulary spells them ("3", "4.1"). */
const ADR_CLASSES = ['1', '2', '3', '4.1', '4.2', '4.3', '5.1', '5.2', '6.1', '6.2', '7', '8', '9'];

const isoOf = (value) => (value ? new Date(value).toISOString() : undefined);

/** The posting form of this page (listingActions' "Edit" fills it). */
let current = null;

const KIND_OF_PATH = { offer: 'capacity-offers', request: 'load-requests' };

export function createPosting({ api, state, onPosted, notice }) {
  const field = (id, label, input, hint, ...more) =>
    el('div', { class: 'field', id: `post-${id}-field` }, el('label', { for: input.id }, label), input, ...more, hint ? el('span', { class: 'hint', id: `post-${id}-hint` }, hint) : '', el('span', { class: 'field-error', id: `post-${id}-error`, role: 'alert' }));
  const input = (id, attrs = {}) => el('input', { id: `post-${id}`, name: id, 'aria-describedby': `post-${id}-error`, ...attrs });
  // A date and time in the planner's writing, with a calendar (console/datetime.js).
  const dateInput = (id, attrs = {}) => dateTimeInput({ id: `post-${id}`, name: id, 'aria-describedby': `post-${id}-error`, ...attrs });

  /** The areas chosen otherwise than by a UN/LOCODE (a circle drawn, a draft's area): kept while the field shows their words. */
  const chosen = { from: null, to: null };

  /** A place field: type a name, pick from what the broker finds; the UN/LOCODE travels in brackets. */
  function placeInput(id) {
    const list = el('datalist', { id: `post-${id}-list` });
    const box = input(id, { list: `post-${id}-list`, autocomplete: 'off', placeholder: t('post.placeholder'), required: true });
    let timer;
    box.addEventListener('input', () => {
      clearTimeout(timer);
      const q = box.value.trim();
      if (chosen[id] && box.value !== chosen[id].text) {
        chosen[id] = null;
        drawDrafts();
      }
      if (q.length < 2 || /\([A-Z]{2}[A-Z0-9]{3}\)$/.test(q)) return;
      timer = setTimeout(async () => {
        try {
          const { items } = await api.get(`/console/place-search?q=${encodeURIComponent(q)}`);
          // The country named: "Hamburg, Germany (DEHAM)" is told from "Hamburg, United States (USHAM)".
          list.replaceChildren(...items.map((p) => el('option', { value: `${p.name}, ${countryName(p.country)} (${p.code})` })));
        } catch {
          // A search that failed leaves the list as it was; typing a code still works.
        }
      }, 200);
    });
    return [box, list];
  }

  function drawDrafts() {
    if (state.map) showDraftAreas(state.map, [chosen.from?.area, chosen.to?.area]);
  }

  /** "Circle on the map": the next drag on the map draws the field's area; its centre and radius are said as it grows. */
  function drawButton(id) {
    let cancel = null;
    const button = el('button', { type: 'button', class: 'draw', id: `post-${id}-draw`, 'aria-label': t(`post.drawLabel.${id}`), 'aria-pressed': 'false' }, t('post.drawCircle'));
    button.addEventListener('click', () => {
      if (!state.map) return;
      if (cancel) return cancel();
      const hint = form.querySelector(`#post-${id}-hint`);
      const box = form.querySelector(`#post-${id}`);
      hint.textContent = t('post.drawing');
      button.setAttribute('aria-pressed', 'true');
      document.getElementById('map').scrollIntoView({ block: 'center' });
      cancel = drawCircle(state.map, {
        onChange: (circle) => {
          hint.textContent = t('post.drawingNow', { circle: placeOf(circle) });
          chosen[id] = { area: circle, text: placeOf(circle) };
          drawDrafts();
        },
        onDone: (circle) => {
          cancel = null;
          button.setAttribute('aria-pressed', 'false');
          if (circle) {
            chosen[id] = { area: circle, text: placeOf(circle) };
            box.value = chosen[id].text;
            hint.textContent = t('post.drawn', { circle: placeOf(circle) });
          } else {
            hint.textContent = '';
            if (chosen[id] && box.value !== chosen[id].text) chosen[id] = null;
          }
          drawDrafts();
          box.scrollIntoView({ block: 'center' });
        },
      });
    });
    return button;
  }

  const kind = el('fieldset', { class: 'kind' }, el('legend', {}, t('post.what')),
    el('label', {}, el('input', { type: 'radio', name: 'post-kind', value: 'offer', checked: true }), ` ${t('post.truck')}`),
    el('label', {}, el('input', { type: 'radio', name: 'post-kind', value: 'request' }), ` ${t('post.load')}`));
  const [from, fromList] = placeInput('from');
  const [to, toList] = placeInput('to');
  const start = new Date(Date.now() + 24 * 3600_000);
  start.setMinutes(0, 0, 0);
  const firstStart = dateInput('first-start', { required: true, value: localInput(start) });
  const firstEnd = dateInput('first-end', { required: true, value: localInput(new Date(start.getTime() + 8 * 3600_000)) });
  const secondStart = dateInput('second-start', { value: localInput(new Date(start.getTime() + 8 * 3600_000)) });
  const secondEnd = dateInput('second-end', { value: localInput(new Date(start.getTime() + 32 * 3600_000)) });
  const weight = input('weight', { type: 'number', min: '0', step: '0.1', inputmode: 'decimal' });
  const pallets = input('pallets', { type: 'number', min: '0', step: '1', inputmode: 'numeric' });
  const ldm = input('ldm', { type: 'number', min: '0', step: '0.1', inputmode: 'decimal' });
  const body = el('select', { id: 'post-body', 'aria-describedby': 'post-body-error' }, BODY_TYPES.map((b) => el('option', { value: b }, statusOf(b))));
  const price = input('price', { type: 'number', min: '0', step: '1', inputmode: 'decimal' });
  // The goods and what they need, as the broker matches them: ADR classes, a temperature range, equipment.
  const adr = input('adr', { placeholder: t('post.adrPlaceholder'), inputmode: 'decimal' });
  // A load's UN numbers: the exact dangerous goods, disclosed to the carrier with the other restricted details once a match is accepted.
  const un = input('un', { placeholder: t('post.unPlaceholder'), inputmode: 'numeric' });
  const unPair = el('span', { class: 'pair' }, el('label', { for: 'post-un' }, t('post.un')), un);
  const tempMin = input('temp-min', { type: 'number', min: '-40', max: '40', step: '1', inputmode: 'numeric' });
  const tempMax = input('temp-max', { type: 'number', min: '-40', max: '40', step: '1', inputmode: 'numeric' });
  const equipmentBoxes = EQUIPMENT.map((e) => el('label', { class: 'scope' }, el('input', { type: 'checkbox', value: e, name: 'post-equipment' }), ` ${statusOf(e)}`));
  const goodsLegend = el('legend', {}, t('post.goods'));
  const expires = dateInput('expires', { required: true, value: localInput(start) });
  const visibility = el('select', { id: 'post-visibility', 'aria-describedby': 'post-visibility-error' }, el('option', { value: 'open' }, t('post.allPartners')), el('option', { value: 'partners' }, t('post.tickedPartners')));
  const partnerBoxes = el('div', { class: 'partners', id: 'post-partners' });
  const firstLabel = el('span', {}, t('post.availableFrom'));
  const secondField = el('div', { class: 'field', id: 'post-second-field', hidden: true },
    el('label', { for: 'post-second-start' }, t('post.deliveryFrom')), secondStart,
    el('label', { for: 'post-second-end' }, t('post.until')), secondEnd,
    el('span', { class: 'field-error', id: 'post-second-error', role: 'alert' }));
  const bodyLabel = el('span', {}, t('post.body'));
  const createButtons = [el('button', { type: 'submit', class: 'accept', value: 'post' }, t('post.post')), el('button', { type: 'submit', value: 'draft' }, t('post.saveDraft'))];
  const editButtons = [
    el('button', { type: 'submit', class: 'accept', value: 'save' }, t('post.saveChanges')),
    el('button', { type: 'submit', value: 'save-publish' }, t('post.savePublish')),
    el('button', { type: 'button', onclick: () => stopEditing() }, t('post.stopEditing')),
  ];
  for (const b of editButtons) b.hidden = true;

  const form = el('form', { id: 'post-form', class: 'post', novalidate: true },
    kind,
    field('from', t('post.from'), from, ' ', drawButton('from')), fromList,
    field('to', t('post.to'), to, ' ', drawButton('to')), toList,
    el('div', { class: 'field', id: 'post-first-field' }, el('label', { for: 'post-first-start' }, firstLabel), firstStart, el('label', { for: 'post-first-end' }, t('post.until')), firstEnd, el('span', { class: 'field-error', id: 'post-first-error', role: 'alert' })),
    secondField,
    el('fieldset', { class: 'capacity', id: 'post-capacity-field' }, el('legend', {}, t('post.capacity')),
      el('span', { class: 'pair' }, el('label', { for: 'post-weight' }, t('post.weight')), weight),
      el('span', { class: 'pair' }, el('label', { for: 'post-pallets' }, t('post.pallets')), pallets),
      el('span', { class: 'pair' }, el('label', { for: 'post-ldm' }, t('post.ldm')), ldm),
      el('span', { class: 'field-error', id: 'post-capacity-error', role: 'alert' })),
    el('div', { class: 'field', id: 'post-body-field' }, el('label', { for: 'post-body' }, bodyLabel), body, el('span', { class: 'field-error', id: 'post-body-error', role: 'alert' })),
    el('fieldset', { class: 'goods', id: 'post-goods-field' }, goodsLegend,
      el('span', { class: 'pair' }, el('label', { for: 'post-adr' }, t('post.adr')), adr),
      unPair,
      el('span', { class: 'pair' }, el('label', { for: 'post-temp-min' }, t('post.tempMin')), tempMin),
      el('span', { class: 'pair' }, el('label', { for: 'post-temp-max' }, t('post.tempMax')), tempMax),
      el('span', { class: 'equipment' }, equipmentBoxes),
      el('span', { class: 'field-error', id: 'post-goods-error', role: 'alert' })),
    field('price', t('post.price'), price, t('post.priceHint')),
    field('expires', t('post.expires'), expires),
    el('div', { class: 'field', id: 'post-visibility-field' }, el('label', { for: 'post-visibility' }, t('post.seenBy')), visibility, partnerBoxes, el('span', { class: 'field-error', id: 'post-visibility-error', role: 'alert' })),
    el('div', { class: 'actions' }, ...createButtons, ...editButtons),
    el('p', { id: 'post-problem', class: 'field-error', role: 'alert' }),
  );
  for (const id of ['from', 'to']) form.querySelector(`#post-${id}-hint`).textContent = '';

  const kindOf = () => form.querySelector('input[name="post-kind"]:checked').value;
  function adapt() {
    const truck = kindOf() === 'offer';
    firstLabel.textContent = truck ? t('post.availableFrom') : t('post.pickupFrom');
    secondField.hidden = truck;
    bodyLabel.textContent = truck ? t('post.body') : t('post.bodyWanted');
    goodsLegend.textContent = truck ? t('post.goodsTruck') : t('post.goods');
    unPair.hidden = truck;
  }
  kind.addEventListener('change', adapt);
  // A truck's listing ends when it leaves; a load's once its pickup window has begun.
  firstStart.addEventListener('change', () => (expires.value = firstStart.value));

  function renderPartners(ticked) {
    const active = (state.partnerList ?? []).filter((p) => p.relationship === 'active');
    partnerBoxes.replaceChildren(
      ...(active.length
        ? active.map((p) => el('label', {}, el('input', { type: 'checkbox', value: p.organizationId, checked: ticked ? ticked.includes(p.organizationId) : true }), ` ${p.name}`))
        : [el('p', { class: 'muted' }, t('post.noPartners'))]),
    );
  }

  const codeOf = (text) => /\(([A-Z]{2}[A-Z0-9]{3})\)\s*$/.exec(text)?.[1] ?? (/^[A-Za-z]{2}[A-Za-z0-9]{3}$/.test(text.trim()) ? text.trim().toUpperCase() : undefined);
  /** A place field's area: the one drawn or kept while the field shows its words, else its UN/LOCODE. */
  const areaOf = (id, box) => (chosen[id] && box.value === chosen[id].text ? chosen[id].area : codeOf(box.value) ? { kind: 'unlocode', code: codeOf(box.value) } : undefined);
  const placeText = (box) => box.value.replace(/\s*\([A-Z]{2}[A-Z0-9]{3}\)$/, '');

  function clearProblems() {
    for (const e of form.querySelectorAll('.field-error')) e.textContent = '';
    for (const e of form.querySelectorAll('[aria-invalid]')) e.removeAttribute('aria-invalid');
  }

  function showProblems(problem, fallback = t('post.notPosted')) {
    let placed = false;
    // A PATCH's fields may also be null (a merge patch removes them): the schema's "must be null"
    // and "must match exactly one schema in oneOf" beside the real problem say nothing to a planner.
    const all = problem.errors ?? [];
    const noise = (e) => /^must be null$|^must match exactly one schema in oneOf$/.test(e.message ?? '');
    const errors = all.filter((e) => !noise(e) || !all.some((o) => !noise(o) && (o.pointer ?? '').startsWith(e.pointer ?? '')));
    for (const error of errors) {
      const match = FIELD_OF.find(([re]) => re.test(error.pointer ?? ''));
      if (!match) continue;
      const slot = form.querySelector(`#post-${match[1]}-error`);
      // Said with the field's own label ("Listed until must be in the future"), the pointer's rest after it.
      const label = form.querySelector(`#post-${match[1]}-field label, #post-${match[1]}-field legend`)?.textContent ?? '';
      const rest = (error.pointer ?? '').split('/').slice(2).join(' ');
      slot.textContent = `${slot.textContent ? `${slot.textContent} ` : ''}${label}${rest ? ` (${rest})` : ''} ${error.message}.`;
      form.querySelector(`#post-${match[1]}-field input, #post-${match[1]}-field select, #post-${match[1]}`)?.setAttribute('aria-invalid', 'true');
      placed = true;
    }
    form.querySelector('#post-problem').textContent = `${problem.title ?? fallback}${problem.detail && !placed ? `: ${problem.detail}` : placed ? `: ${t('post.seeFields')}` : ''}`;
  }

  /** The body of the create, from the form; a field that cannot be read is a problem of that field. */
  function bodyOf() {
    const truck = kindOf() === 'offer';
    const errors = [];
    const fromArea = areaOf('from', from);
    const toArea = areaOf('to', to);
    if (!fromArea) errors.push({ pointer: truck ? '/originArea' : '/pickupArea', message: t('post.choosePlace') });
    if (!toArea) errors.push({ pointer: truck ? '/destinationArea' : '/deliveryArea', message: t('post.choosePlace') });
    const capacity = {};
    if (weight.value) capacity.weight = { value: Number(weight.value), unitCode: 'TNE' };
    if (pallets.value) capacity.palletSpaces = Number(pallets.value);
    if (ldm.value) capacity.loadingMetres = { value: Number(ldm.value), unitCode: 'MTR' };
    const ticked = [...partnerBoxes.querySelectorAll('input:checked')].map((b) => b.value);
    const seenBy = visibility.value === 'open' ? { mode: 'open' } : { mode: 'partners', organizationIds: ticked };
    if (visibility.value === 'partners' && !ticked.length) errors.push({ pointer: '/visibility', message: t('post.tickPartner') });
    // ADR classes typed as "3, 8" (a comma, a semicolon or spaces between); one the vocabulary lacks is said at the field.
    const classes = adr.value.split(/[\s,;]+/).map((c) => c.trim()).filter(Boolean);
    const unknown = classes.filter((c) => !ADR_CLASSES.includes(c));
    if (unknown.length) errors.push({ pointer: truck ? '/constraints/dangerousGoods' : '/handlingRequirements/dangerousGoods', message: t('post.adrUnknown', { classes: unknown.join(', ') }) });
    // UN numbers typed as "1203, UN 1993": four digits each.
    const unNumbers = truck ? [] : [...new Set(un.value.replace(/UN/gi, ' ').split(/[\s,;]+/).filter(Boolean))];
    const notUn = unNumbers.filter((n) => !/^\d{4}$/.test(n));
    if (notUn.length) errors.push({ pointer: '/restrictedDetails/goodsDetails/unNumbers', message: t('post.unWrong', { numbers: notUn.join(', ') }) });
    if ((tempMin.value === '') !== (tempMax.value === '')) errors.push({ pointer: truck ? '/constraints/temperature' : '/handlingRequirements/temperature', message: t('post.tempBoth') });
    if (errors.length) return { errors };
    const handling = {
      ...(classes.length ? { dangerousGoods: { adrClasses: [...new Set(classes)] } } : {}),
      ...(tempMin.value !== '' ? { temperature: { minCelsius: Number(tempMin.value), maxCelsius: Number(tempMax.value) } } : {}),
    };
    const equipment = equipmentBoxes.map((b) => b.querySelector('input')).filter((b) => b.checked).map((b) => b.value);
    const restricted = {
      ...(price.value ? { price: { amount: Number(price.value), currency: 'EUR' } } : {}),
      ...(unNumbers.length ? { goodsDetails: { unNumbers } } : {}),
    };
    const common = { expiresAt: isoOf(expires.value), visibility: seenBy, ...(Object.keys(restricted).length ? { restrictedDetails: restricted } : {}) };
    const firstWindow = { start: isoOf(firstStart.value), end: isoOf(firstEnd.value), timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone };
    if (truck) {
      return { path: '/capacity-offers', body: { availabilityWindow: firstWindow, originArea: fromArea, destinationArea: toArea, vehicleProfile: { bodyType: body.value, ...(equipment.length ? { equipment } : {}) }, availableCapacity: capacity, ...(Object.keys(handling).length ? { constraints: handling } : {}), ...common } };
    }
    return {
      path: '/load-requests',
      body: {
        pickupArea: fromArea, pickupWindow: firstWindow, deliveryArea: toArea,
        deliveryWindow: { start: isoOf(secondStart.value), end: isoOf(secondEnd.value), timeZone: firstWindow.timeZone },
        requiredCapacity: capacity, vehicleRequirements: { bodyTypes: [body.value], ...(equipment.length ? { equipment } : {}) }, goodsProfile: { category: 'general' },
        ...(Object.keys(handling).length ? { handlingRequirements: handling } : {}), ...common,
      },
    };
  }

  // ---- editing a draft ---------------------------------------------------------------------

  let editing = null;

  /** The form filled with a draft of ours; saved with a PATCH. */
  function edit(l) {
    editing = l;
    clearProblems();
    const truck = l.kind === 'offer';
    for (const radio of form.querySelectorAll('input[name="post-kind"]')) {
      radio.checked = radio.value === l.kind;
      radio.disabled = true;
    }
    adapt();
    const put = (id, box, area) => {
      const code = area?.kind === 'unlocode' ? area.code : undefined;
      const name = code ? state.places?.[code]?.name : undefined;
      chosen[id] = area && !code ? { area, text: placeOf(area, state.places) } : null;
      box.value = code ? (name ? `${name} (${code})` : code) : (chosen[id]?.text ?? '');
      form.querySelector(`#post-${id}-hint`).textContent = '';
    };
    put('from', from, truck ? l.originArea : l.pickupArea);
    put('to', to, truck ? l.destinationArea : l.deliveryArea);
    const first = truck ? l.availabilityWindow : l.pickupWindow;
    const local = (iso) => (iso ? localInput(new Date(iso)) : '');
    firstStart.value = local(first?.start);
    firstEnd.value = local(first?.end);
    secondStart.value = local(l.deliveryWindow?.start);
    secondEnd.value = local(l.deliveryWindow?.end);
    const capacity = (truck ? l.availableCapacity : l.requiredCapacity) ?? {};
    const KG = { KGM: 0.001, TNE: 1, GRM: 0.000001, LBR: 0.00045359237 };
    weight.value = capacity.weight ? String(Math.round(capacity.weight.value * (KG[capacity.weight.unitCode] ?? 0.001) * 1000) / 1000) : '';
    pallets.value = capacity.palletSpaces ?? '';
    ldm.value = capacity.loadingMetres?.value ?? '';
    const bodyType = truck ? l.vehicleProfile?.bodyType : l.vehicleRequirements?.bodyTypes?.[0];
    if (bodyType && BODY_TYPES.includes(bodyType)) body.value = bodyType;
    price.value = l.restrictedDetails?.price?.amount ?? '';
    const handling = (truck ? l.constraints : l.handlingRequirements) ?? {};
    adr.value = (handling.dangerousGoods?.adrClasses ?? []).join(', ');
    un.value = (l.restrictedDetails?.goodsDetails?.unNumbers ?? []).join(', ');
    tempMin.value = handling.temperature?.minCelsius ?? '';
    tempMax.value = handling.temperature?.maxCelsius ?? '';
    const fitted = (truck ? l.vehicleProfile?.equipment : l.vehicleRequirements?.equipment) ?? [];
    for (const b of equipmentBoxes) b.querySelector('input').checked = fitted.includes(b.querySelector('input').value);
    expires.value = local(l.expiresAt);
    visibility.value = l.visibility?.mode === 'partners' ? 'partners' : 'open';
    renderPartners(l.visibility?.mode === 'partners' ? l.visibility.organizationIds ?? [] : undefined);
    for (const b of createButtons) b.hidden = true;
    for (const b of editButtons) b.hidden = false;
    document.getElementById('post-title').textContent = t(`post.editTitle.${l.kind}`, { lane: `${placeText(from)} → ${placeText(to)}` });
    drawDrafts();
    const details = document.getElementById('post');
    details.open = true;
    details.scrollIntoView({ block: 'start' });
    from.focus();
  }

  function stopEditing() {
    editing = null;
    for (const radio of form.querySelectorAll('input[name="post-kind"]')) radio.disabled = false;
    for (const b of createButtons) b.hidden = false;
    for (const b of editButtons) b.hidden = true;
    document.getElementById('post-title').textContent = t('post.title');
    clearProblems();
    chosen.from = chosen.to = null;
    drawDrafts();
  }

  /**
   * The draft's PATCH: a JSON merge patch replaces each top-level member given as a whole, so the
   * form's values are laid over what the draft holds beyond them (other vehicle details, volume).
   */
  function patchOf(l, made) {
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

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearProblems();
    const action = event.submitter?.value ?? (editing ? 'save' : 'post');
    const made = bodyOf();
    if (editing) return saveDraft(made, action === 'save-publish');
    const publish = action !== 'draft';
    if (made.errors) return showProblems({ title: t('post.notPosted'), errors: made.errors });
    const listingKind = made.path === '/capacity-offers' ? 'offer' : 'request';
    const lane = { from: placeText(from), to: placeText(to) };
    const label = publish ? t(`post.postLabel.${listingKind}`, lane) : t(`post.saveNewLabel.${listingKind}`, lane);
    let created;
    try {
      created = await api.post(made.path, made.body, undefined, label);
      if (publish) await api.post(`${made.path}/${created.id}/publish`, undefined, created.resourceVersion, label);
      notice(el('strong', {}, `${publish ? t('post.postedNotice') : t('post.draftNotice')}: `), t(`post.noticeText.${listingKind}`, lane));
      form.querySelector('#post-problem').textContent = '';
      // Posted: the form is empty again for the next truck or load (its kind kept).
      const kind = kindOf();
      form.reset();
      for (const radio of form.querySelectorAll('input[name="post-kind"]')) radio.checked = radio.value === kind;
      adapt();
      renderPartners();
      chosen.from = chosen.to = null;
      drawDrafts();
      await onPosted();
    } catch (err) {
      if (err?.sessionEnded) return;
      showProblems(err?.problem ?? { title: String(err?.message ?? err) });
      // Nothing half done: a draft whose publication the broker refused is discarded (its own key),
      // and the form keeps what was typed, to be corrected and posted again.
      if (created && publish) {
        await api.post(`${made.path}/${created.id}/withdraw`, { reason: t('post.discardedAfterRefusal') }, created.resourceVersion, t('post.discardLabel')).catch(() => {
          form.querySelector('#post-problem').append(` ${t('post.leftDraft')}`);
        });
      }
      await onPosted();
    }
  });

  async function saveDraft(made, publish) {
    const l = editing;
    if (made.errors) return showProblems({ title: t('post.notSaved'), errors: made.errors }, t('post.notSaved'));
    const path = `/${KIND_OF_PATH[l.kind]}/${l.id}`;
    const lane = { from: placeText(from), to: placeText(to) };
    const label = t(`post.saveLabel.${l.kind}`, lane);
    try {
      // A PATCH is a command like the others: If-Match its version, one Idempotency-Key per click.
      const saved = await api.resend({ method: 'PATCH', path, body: patchOf(l, made), ifMatch: l.resourceVersion, label });
      editing = { ...l, ...saved };
      if (publish) await api.post(`${path}/publish`, undefined, saved?.resourceVersion ?? l.resourceVersion + 1, t(`post.publishLabel.${l.kind}`, { owner: nameOf(l.ownerOrganizationId, state.names) }));
      notice(el('strong', {}, `${publish ? t('post.postedNotice') : t('post.savedNotice')}: `), t(`post.noticeText.${l.kind}`, lane));
      stopEditing();
      await onPosted();
    } catch (err) {
      if (err?.sessionEnded) return;
      showProblems(err?.problem ?? { title: String(err?.message ?? err) }, t('post.notSaved'));
      await onPosted();
    }
  }

  adapt();
  const posting = {
    form,
    refresh: () => (editing ? undefined : renderPartners()),
    edit,
    get editing() {
      return editing;
    },
  };
  current = posting;
  return posting;
}

/**
 * The actions on one of the organization's own listings: edit or publish a draft, withdraw an open
 * one. A component of its own (the grid's row draws it, keyed by the listing and its status): the
 * reason typed, the problem its last command met and the focus stay through the grid's redraws.
 */
function ListingActions({ l, api, onDone, names }) {
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState('');
  const path = `/${KIND_OF_PATH[l.kind]}/${l.id}`;
  const owner = { owner: nameOf(l.ownerOrganizationId, names) };
  const act = async (command, body, label) => {
    setProblem('');
    try {
      await api.post(`${path}/${command}`, body, l.resourceVersion, label);
      await onDone();
    } catch (err) {
      if (err?.sessionEnded) return;
      const p = err?.problem ?? {};
      setProblem(`${p.title ?? t('problem.refused')}${p.detail ? `: ${p.detail}` : ''}`);
    }
  };
  // A draft partners never saw can be discarded (withdrawn from draft).
  if (l.status === 'draft') {
    return html`<span class="listing-actions">
      ${current ? html`<button type="button" aria-label=${t(`post.editLabel.${l.kind}`, owner)} onClick=${() => current.edit(l)}>${t('post.edit')}</button>` : ''}
      <button type="button" onClick=${() => act('publish', undefined, t(`post.publishLabel.${l.kind}`, owner))}>${t('post.publish')}</button>
      <button type="button" class="reject" onClick=${() => act('withdraw', { reason: t('post.discardedByPlanner') }, t('post.discardLabel'))}>${t('post.discard')}</button>
      <span class="field-error" role="alert">${problem}</span>
    </span>`;
  }
  const submit = (e) => {
    e.preventDefault();
    act('withdraw', { reason: reason.trim() || t('post.withdrawnByPlanner') }, t(`post.withdrawLabel.${l.kind}`, owner));
  };
  return html`<form class="listing-actions" onSubmit=${submit}>
    <label for=${`withdraw-${l.id}`} class="visually-hidden">${t('post.reasonLabel')}</label>
    <input id=${`withdraw-${l.id}`} placeholder=${t('common.reason')} required value=${reason} onInput=${(e) => setReason(e.currentTarget.value)} />
    <button type="submit">${t('post.withdraw')}</button>
    <span class="field-error" role="alert">${problem}</span>
  </form>`;
}

/** A listing's actions for the grid's row (a component drawn there), or null when it has none. */
export function listingActions(l, { api, onDone, names }) {
  if (l.status !== 'draft' && !['published', 'partiallyMatched', 'proposed'].includes(l.status)) return null;
  return html`<${ListingActions} key=${`${l.id}:${l.status}`} l=${l} api=${api} onDone=${onDone} names=${names} />`;
}
