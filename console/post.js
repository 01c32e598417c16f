// Posting: a truck (capacity offer) or a load (load request) from a form in the planner's terms:
// places found by name (GET /console/place-search) or an area drawn on the map as a circle, dates
// and times in the planner's zone, capacity in t / pallets / ldm, the body type, a price only the
// partner of an accepted match sees, and who may see it. "Post" creates and publishes; "Save as
// draft" only creates (published later from the grid). "Edit" on a draft in the grid fills the
// form with it; "Save changes" sends a PATCH (JSON merge patch, If-Match its version). The
// broker's problems are shown next to the fields their pointers name.
import { el } from './views.js';
import { nameOf, placeOf } from './format.js';
import { drawCircle, showDraftAreas } from './map.js';

/** What this file says (the language catalogue takes these over). */
const TEXT = {
  what: 'What',
  truck: ' A truck (capacity on offer)',
  load: ' A load (freight looking for a truck)',
  placeholder: 'Type a place name',
  from: 'From',
  to: 'To',
  availableFrom: 'Available from',
  pickupFrom: 'Pickup from',
  deliveryFrom: 'Delivery from',
  until: 'until',
  capacity: 'Capacity',
  weight: 'Weight (t)',
  pallets: 'Pallets',
  ldm: 'Loading metres',
  body: 'Body',
  bodyWanted: 'Body wanted',
  price: 'Price (EUR)',
  priceHint: 'seen by the partner only once a match is accepted',
  expires: 'Listed until',
  seenBy: 'Seen by',
  allPartners: 'All partners',
  tickedPartners: 'Only the partners ticked below',
  noPartners: 'Your organization has no partner in force yet: what you post is seen by partners once a relationship is accepted (your administrator or your systems invite them).',
  post: 'Post',
  saveDraft: 'Save as draft',
  saveChanges: 'Save changes',
  savePublish: 'Save and publish',
  stopEditing: 'Stop editing',
  title: 'Post a truck or a load',
  editTitle: (what, lane) => `Edit the draft ${what} ${lane}`,
  truckNoun: 'truck',
  loadNoun: 'load',
  notPosted: 'Not posted',
  notSaved: 'Not saved',
  seeFields: ': see the fields marked above.',
  choosePlace: 'choose a place from the list (or type its UN/LOCODE), or draw a circle on the map',
  tickPartner: 'tick at least one partner',
  postedNotice: 'Posted: ',
  draftNotice: 'Saved as a draft: ',
  savedNotice: 'Saved: ',
  leftDraft: ' It was saved as a draft: publish it from the list once it is right.',
  drawCircle: 'Circle on the map',
  drawLabel: (field) => `Draw the ${field} area as a circle on the map`,
  drawing: 'Press on the map where the circle’s centre is and drag outwards; release to keep it, Escape to cancel.',
  drawingNow: (circle) => `${circle} (release to keep it)`,
  drawn: (circle) => `Drawn: ${circle}.`,
  publish: 'Publish',
  edit: 'Edit',
  editLabel: (what) => `Edit the draft ${what}`,
  withdraw: 'Withdraw',
  reason: 'Reason',
  reasonLabel: 'Reason to withdraw',
  withdrawnByPlanner: 'withdrawn by the planner',
  refused: 'Refused',
  publishLabel: (what) => `Publish the ${what}`,
  withdrawLabel: (what) => `Withdraw the ${what}`,
  listingOf: (kind, owner) => `${kind} of ${owner}`,
  postLabel: (publish, what, from, to) => `${publish ? 'Post' : 'Save'} the ${what} ${from} → ${to}`,
  saveLabel: (what, from, to) => `Save the draft ${what} ${from} → ${to}`,
};

const BODY_TYPES = ['curtainsider', 'box', 'refrigerated', 'insulated', 'tanker', 'silo', 'flatbed', 'lowLoader', 'tipper', 'containerChassis', 'carTransporter', 'walkingFloor', 'van'];
const BODY_NAMES = { lowLoader: 'low loader', containerChassis: 'container chassis', carTransporter: 'car transporter', walkingFloor: 'walking floor' };

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
  [/^\/restrictedDetails/, 'price'],
];

/** "2026-12-12T08:00" in the planner's zone, from a Date. */
const localInput = (d) => new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
const isoOf = (value) => (value ? new Date(value).toISOString() : undefined);

/** The posting form of this page (listingActions' "Edit" fills it). */
let current = null;

const KIND_OF_PATH = { offer: 'capacity-offers', request: 'load-requests' };

export function createPosting({ api, state, onPosted, notice }) {
  const field = (id, label, input, hint, ...more) =>
    el('div', { class: 'field', id: `post-${id}-field` }, el('label', { for: input.id }, label), input, ...more, hint ? el('span', { class: 'hint', id: `post-${id}-hint` }, hint) : '', el('span', { class: 'field-error', id: `post-${id}-error`, role: 'alert' }));
  const input = (id, attrs = {}) => el('input', { id: `post-${id}`, name: id, 'aria-describedby': `post-${id}-error`, ...attrs });

  /** The areas chosen otherwise than by a UN/LOCODE (a circle drawn, a draft's area): kept while the field shows their words. */
  const chosen = { from: null, to: null };

  /** A place field: type a name, pick from what the broker finds; the UN/LOCODE travels in brackets. */
  function placeInput(id) {
    const list = el('datalist', { id: `post-${id}-list` });
    const box = input(id, { list: `post-${id}-list`, autocomplete: 'off', placeholder: TEXT.placeholder, required: true });
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
          list.replaceChildren(...items.map((p) => el('option', { value: `${p.name} (${p.code})` })));
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
  function drawButton(id, label) {
    let cancel = null;
    const button = el('button', { type: 'button', class: 'draw', id: `post-${id}-draw`, 'aria-label': TEXT.drawLabel(label), 'aria-pressed': 'false' }, TEXT.drawCircle);
    button.addEventListener('click', () => {
      if (!state.map) return;
      if (cancel) return cancel();
      const hint = form.querySelector(`#post-${id}-hint`);
      const box = form.querySelector(`#post-${id}`);
      hint.textContent = TEXT.drawing;
      button.setAttribute('aria-pressed', 'true');
      document.getElementById('map').scrollIntoView({ block: 'center' });
      cancel = drawCircle(state.map, {
        onChange: (circle) => {
          hint.textContent = TEXT.drawingNow(placeOf(circle));
          chosen[id] = { area: circle, text: placeOf(circle) };
          drawDrafts();
        },
        onDone: (circle) => {
          cancel = null;
          button.setAttribute('aria-pressed', 'false');
          if (circle) {
            chosen[id] = { area: circle, text: placeOf(circle) };
            box.value = chosen[id].text;
            hint.textContent = TEXT.drawn(placeOf(circle));
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

  const kind = el('fieldset', { class: 'kind' }, el('legend', {}, TEXT.what),
    el('label', {}, el('input', { type: 'radio', name: 'post-kind', value: 'offer', checked: true }), TEXT.truck),
    el('label', {}, el('input', { type: 'radio', name: 'post-kind', value: 'request' }), TEXT.load));
  const [from, fromList] = placeInput('from');
  const [to, toList] = placeInput('to');
  const start = new Date(Date.now() + 24 * 3600_000);
  start.setMinutes(0, 0, 0);
  const firstStart = input('first-start', { type: 'datetime-local', required: true, value: localInput(start) });
  const firstEnd = input('first-end', { type: 'datetime-local', required: true, value: localInput(new Date(start.getTime() + 8 * 3600_000)) });
  const secondStart = input('second-start', { type: 'datetime-local', value: localInput(new Date(start.getTime() + 8 * 3600_000)) });
  const secondEnd = input('second-end', { type: 'datetime-local', value: localInput(new Date(start.getTime() + 32 * 3600_000)) });
  const weight = input('weight', { type: 'number', min: '0', step: '0.1', inputmode: 'decimal' });
  const pallets = input('pallets', { type: 'number', min: '0', step: '1', inputmode: 'numeric' });
  const ldm = input('ldm', { type: 'number', min: '0', step: '0.1', inputmode: 'decimal' });
  const body = el('select', { id: 'post-body', 'aria-describedby': 'post-body-error' }, BODY_TYPES.map((b) => el('option', { value: b }, BODY_NAMES[b] ?? b)));
  const price = input('price', { type: 'number', min: '0', step: '1', inputmode: 'decimal' });
  const expires = input('expires', { type: 'datetime-local', required: true, value: localInput(start) });
  const visibility = el('select', { id: 'post-visibility', 'aria-describedby': 'post-visibility-error' }, el('option', { value: 'open' }, TEXT.allPartners), el('option', { value: 'partners' }, TEXT.tickedPartners));
  const partnerBoxes = el('div', { class: 'partners', id: 'post-partners' });
  const firstLabel = el('span', {}, TEXT.availableFrom);
  const secondField = el('div', { class: 'field', id: 'post-second-field', hidden: true },
    el('label', { for: 'post-second-start' }, TEXT.deliveryFrom), secondStart,
    el('label', { for: 'post-second-end' }, TEXT.until), secondEnd,
    el('span', { class: 'field-error', id: 'post-second-error', role: 'alert' }));
  const bodyLabel = el('span', {}, TEXT.body);
  const createButtons = [el('button', { type: 'submit', class: 'accept', value: 'post' }, TEXT.post), el('button', { type: 'submit', value: 'draft' }, TEXT.saveDraft)];
  const editButtons = [
    el('button', { type: 'submit', class: 'accept', value: 'save' }, TEXT.saveChanges),
    el('button', { type: 'submit', value: 'save-publish' }, TEXT.savePublish),
    el('button', { type: 'button', onclick: () => stopEditing() }, TEXT.stopEditing),
  ];
  for (const b of editButtons) b.hidden = true;

  const form = el('form', { id: 'post-form', class: 'post', novalidate: true },
    kind,
    field('from', TEXT.from, from, ' ', drawButton('from', TEXT.from)), fromList,
    field('to', TEXT.to, to, ' ', drawButton('to', TEXT.to)), toList,
    el('div', { class: 'field', id: 'post-first-field' }, el('label', { for: 'post-first-start' }, firstLabel), firstStart, el('label', { for: 'post-first-end' }, TEXT.until), firstEnd, el('span', { class: 'field-error', id: 'post-first-error', role: 'alert' })),
    secondField,
    el('fieldset', { class: 'capacity', id: 'post-capacity-field' }, el('legend', {}, TEXT.capacity),
      el('span', { class: 'pair' }, el('label', { for: 'post-weight' }, TEXT.weight), weight),
      el('span', { class: 'pair' }, el('label', { for: 'post-pallets' }, TEXT.pallets), pallets),
      el('span', { class: 'pair' }, el('label', { for: 'post-ldm' }, TEXT.ldm), ldm),
      el('span', { class: 'field-error', id: 'post-capacity-error', role: 'alert' })),
    el('div', { class: 'field', id: 'post-body-field' }, el('label', { for: 'post-body' }, bodyLabel), body, el('span', { class: 'field-error', id: 'post-body-error', role: 'alert' })),
    field('price', TEXT.price, price, TEXT.priceHint),
    field('expires', TEXT.expires, expires),
    el('div', { class: 'field', id: 'post-visibility-field' }, el('label', { for: 'post-visibility' }, TEXT.seenBy), visibility, partnerBoxes, el('span', { class: 'field-error', id: 'post-visibility-error', role: 'alert' })),
    el('div', { class: 'actions' }, ...createButtons, ...editButtons),
    el('p', { id: 'post-problem', class: 'field-error', role: 'alert' }),
  );
  for (const id of ['from', 'to']) form.querySelector(`#post-${id}-hint`).textContent = '';

  const kindOf = () => form.querySelector('input[name="post-kind"]:checked').value;
  function adapt() {
    const truck = kindOf() === 'offer';
    firstLabel.textContent = truck ? TEXT.availableFrom : TEXT.pickupFrom;
    secondField.hidden = truck;
    bodyLabel.textContent = truck ? TEXT.body : TEXT.bodyWanted;
  }
  kind.addEventListener('change', adapt);
  // A truck's listing ends when it leaves; a load's once its pickup window has begun.
  firstStart.addEventListener('change', () => (expires.value = firstStart.value));

  function renderPartners(ticked) {
    const active = (state.partnerList ?? []).filter((p) => p.relationship === 'active');
    partnerBoxes.replaceChildren(
      ...(active.length
        ? active.map((p) => el('label', {}, el('input', { type: 'checkbox', value: p.organizationId, checked: ticked ? ticked.includes(p.organizationId) : true }), ` ${p.name}`))
        : [el('p', { class: 'muted' }, TEXT.noPartners)]),
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

  function showProblems(problem, fallback = TEXT.notPosted) {
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
    form.querySelector('#post-problem').textContent = `${problem.title ?? fallback}${problem.detail && !placed ? `: ${problem.detail}` : placed ? TEXT.seeFields : ''}`;
  }

  /** The body of the create, from the form; a field that cannot be read is a problem of that field. */
  function bodyOf() {
    const truck = kindOf() === 'offer';
    const errors = [];
    const fromArea = areaOf('from', from);
    const toArea = areaOf('to', to);
    if (!fromArea) errors.push({ pointer: truck ? '/originArea' : '/pickupArea', message: TEXT.choosePlace });
    if (!toArea) errors.push({ pointer: truck ? '/destinationArea' : '/deliveryArea', message: TEXT.choosePlace });
    const capacity = {};
    if (weight.value) capacity.weight = { value: Number(weight.value), unitCode: 'TNE' };
    if (pallets.value) capacity.palletSpaces = Number(pallets.value);
    if (ldm.value) capacity.loadingMetres = { value: Number(ldm.value), unitCode: 'MTR' };
    const ticked = [...partnerBoxes.querySelectorAll('input:checked')].map((b) => b.value);
    const seenBy = visibility.value === 'open' ? { mode: 'open' } : { mode: 'partners', organizationIds: ticked };
    if (visibility.value === 'partners' && !ticked.length) errors.push({ pointer: '/visibility', message: TEXT.tickPartner });
    if (errors.length) return { errors };
    const common = { expiresAt: isoOf(expires.value), visibility: seenBy, ...(price.value ? { restrictedDetails: { price: { amount: Number(price.value), currency: 'EUR' } } } : {}) };
    const firstWindow = { start: isoOf(firstStart.value), end: isoOf(firstEnd.value), timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone };
    if (truck) {
      return { path: '/capacity-offers', body: { availabilityWindow: firstWindow, originArea: fromArea, destinationArea: toArea, vehicleProfile: { bodyType: body.value }, availableCapacity: capacity, ...common } };
    }
    return {
      path: '/load-requests',
      body: {
        pickupArea: fromArea, pickupWindow: firstWindow, deliveryArea: toArea,
        deliveryWindow: { start: isoOf(secondStart.value), end: isoOf(secondEnd.value), timeZone: firstWindow.timeZone },
        requiredCapacity: capacity, vehicleRequirements: { bodyTypes: [body.value] }, goodsProfile: { category: 'general' }, ...common,
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
    expires.value = local(l.expiresAt);
    visibility.value = l.visibility?.mode === 'partners' ? 'partners' : 'open';
    renderPartners(l.visibility?.mode === 'partners' ? l.visibility.organizationIds ?? [] : undefined);
    for (const b of createButtons) b.hidden = true;
    for (const b of editButtons) b.hidden = false;
    document.getElementById('post-title').textContent = TEXT.editTitle(truck ? TEXT.truckNoun : TEXT.loadNoun, `${placeText(from)} → ${placeText(to)}`);
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
    document.getElementById('post-title').textContent = TEXT.title;
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
    const restricted = over(l.restrictedDetails, b.restrictedDetails ?? {}, ['price']);
    const patch = { expiresAt: b.expiresAt, visibility: b.visibility, restrictedDetails: Object.keys(restricted).length ? restricted : null };
    if (l.kind === 'offer') {
      Object.assign(patch, {
        availabilityWindow: b.availabilityWindow, originArea: b.originArea, destinationArea: b.destinationArea,
        vehicleProfile: over(l.vehicleProfile, b.vehicleProfile),
        availableCapacity: over(l.availableCapacity, b.availableCapacity, ['weight', 'palletSpaces', 'loadingMetres']),
      });
    } else {
      Object.assign(patch, {
        pickupArea: b.pickupArea, pickupWindow: b.pickupWindow, deliveryArea: b.deliveryArea, deliveryWindow: b.deliveryWindow,
        vehicleRequirements: over(l.vehicleRequirements, b.vehicleRequirements),
        requiredCapacity: over(l.requiredCapacity, b.requiredCapacity, ['weight', 'palletSpaces', 'loadingMetres']),
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
    if (made.errors) return showProblems({ title: TEXT.notPosted, errors: made.errors });
    const what = made.path === '/capacity-offers' ? TEXT.truckNoun : TEXT.loadNoun;
    const label = TEXT.postLabel(publish, what, placeText(from), placeText(to));
    let created;
    try {
      created = await api.post(made.path, made.body, undefined, label);
      if (publish) await api.post(`${made.path}/${created.id}/publish`, undefined, created.resourceVersion, label);
      notice(el('strong', {}, publish ? TEXT.postedNotice : TEXT.draftNotice), `${what} ${placeText(from)} → ${placeText(to)}.`);
      form.querySelector('#post-problem').textContent = '';
      chosen.from = chosen.to = null;
      drawDrafts();
      await onPosted();
    } catch (err) {
      if (err?.sessionEnded) return;
      showProblems(err?.problem ?? { title: String(err?.message ?? err) });
      // A draft that could not be published stays a draft: say so, it is in the market list.
      if (created) form.querySelector('#post-problem').append(TEXT.leftDraft);
      await onPosted();
    }
  });

  async function saveDraft(made, publish) {
    const l = editing;
    if (made.errors) return showProblems({ title: TEXT.notSaved, errors: made.errors }, TEXT.notSaved);
    const path = `/${KIND_OF_PATH[l.kind]}/${l.id}`;
    const what = l.kind === 'offer' ? TEXT.truckNoun : TEXT.loadNoun;
    const label = TEXT.saveLabel(what, placeText(from), placeText(to));
    try {
      // A PATCH is a command like the others: If-Match its version, one Idempotency-Key per click.
      const saved = await api.resend({ method: 'PATCH', path, body: patchOf(l, made), ifMatch: l.resourceVersion, label });
      editing = { ...l, ...saved };
      if (publish) await api.post(`${path}/publish`, undefined, saved?.resourceVersion ?? l.resourceVersion + 1, TEXT.publishLabel(what));
      notice(el('strong', {}, publish ? TEXT.postedNotice : TEXT.savedNotice), `${what} ${placeText(from)} → ${placeText(to)}.`);
      stopEditing();
      await onPosted();
    } catch (err) {
      if (err?.sessionEnded) return;
      showProblems(err?.problem ?? { title: String(err?.message ?? err) }, TEXT.notSaved);
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

/** The actions on one of the organization's own listings: edit or publish a draft, withdraw an open one. */
export function listingActions(l, { api, onDone, names }) {
  const path = `/${KIND_OF_PATH[l.kind]}/${l.id}`;
  const what = TEXT.listingOf(l.kind === 'offer' ? TEXT.truckNoun : TEXT.loadNoun, nameOf(l.ownerOrganizationId, names));
  const act = async (command, body, label, problemSlot) => {
    try {
      await api.post(`${path}/${command}`, body, l.resourceVersion, label);
      await onDone();
    } catch (err) {
      if (err?.sessionEnded) return;
      const problem = err?.problem ?? {};
      problemSlot.textContent = `${problem.title ?? TEXT.refused}${problem.detail ? `: ${problem.detail}` : ''}`;
    }
  };
  const slot = el('span', { class: 'field-error', role: 'alert' });
  if (l.status === 'draft') {
    return el(
      'span',
      { class: 'listing-actions' },
      current ? el('button', { type: 'button', 'aria-label': TEXT.editLabel(what), onclick: () => current.edit(l) }, TEXT.edit) : '',
      el('button', { type: 'button', onclick: () => act('publish', undefined, TEXT.publishLabel(what), slot) }, TEXT.publish),
      slot,
    );
  }
  if (['published', 'partiallyMatched', 'proposed'].includes(l.status)) {
    const reason = el('input', { id: `withdraw-${l.id}`, placeholder: TEXT.reason, required: true });
    return el(
      'form',
      { class: 'listing-actions', onsubmit: (e) => (e.preventDefault(), act('withdraw', { reason: reason.value.trim() || TEXT.withdrawnByPlanner }, TEXT.withdrawLabel(what), slot)) },
      el('label', { for: `withdraw-${l.id}`, class: 'visually-hidden' }, TEXT.reasonLabel),
      reason,
      el('button', { type: 'submit' }, TEXT.withdraw),
      slot,
    );
  }
  return null;
}
