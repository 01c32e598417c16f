// Posting: a truck (capacity offer) or a load (load request) from a form in the planner's terms:
// places found by name (GET /console/place-search), dates and times in the planner's zone, capacity
// in t / pallets / ldm, the body type, a price only the partner of an accepted match sees, and who
// may see it. "Post" creates and publishes; "Save as draft" only creates (published later from the
// market list). The broker's problems are shown next to the fields their pointers name.
import { el } from './views.js';
import { nameOf } from './format.js';

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

export function createPosting({ api, state, onPosted, notice }) {
  const field = (id, label, input, hint) =>
    el('div', { class: 'field', id: `post-${id}-field` }, el('label', { for: input.id }, label), input, hint ? el('span', { class: 'hint' }, hint) : '', el('span', { class: 'field-error', id: `post-${id}-error`, role: 'alert' }));
  const input = (id, attrs = {}) => el('input', { id: `post-${id}`, name: id, 'aria-describedby': `post-${id}-error`, ...attrs });

  /** A place field: type a name, pick from what the broker finds; the UN/LOCODE travels in brackets. */
  function placeInput(id) {
    const list = el('datalist', { id: `post-${id}-list` });
    const box = input(id, { list: `post-${id}-list`, autocomplete: 'off', placeholder: 'Type a place name', required: true });
    let timer;
    box.addEventListener('input', () => {
      clearTimeout(timer);
      const q = box.value.trim();
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

  const kind = el('fieldset', { class: 'kind' }, el('legend', {}, 'What'),
    el('label', {}, el('input', { type: 'radio', name: 'post-kind', value: 'offer', checked: true }), ' A truck (capacity on offer)'),
    el('label', {}, el('input', { type: 'radio', name: 'post-kind', value: 'request' }), ' A load (freight looking for a truck)'));
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
  const visibility = el('select', { id: 'post-visibility', 'aria-describedby': 'post-visibility-error' }, el('option', { value: 'open' }, 'All partners'), el('option', { value: 'partners' }, 'Only the partners ticked below'));
  const partnerBoxes = el('div', { class: 'partners', id: 'post-partners' });
  const firstLabel = el('span', {}, 'Available from');
  const secondField = el('div', { class: 'field', id: 'post-second-field', hidden: true },
    el('label', { for: 'post-second-start' }, 'Delivery from'), secondStart,
    el('label', { for: 'post-second-end' }, 'until'), secondEnd,
    el('span', { class: 'field-error', id: 'post-second-error', role: 'alert' }));
  const bodyLabel = el('span', {}, 'Body');

  const form = el('form', { id: 'post-form', class: 'post', novalidate: true },
    kind,
    field('from', 'From', from), fromList,
    field('to', 'To', to), toList,
    el('div', { class: 'field', id: 'post-first-field' }, el('label', { for: 'post-first-start' }, firstLabel), firstStart, el('label', { for: 'post-first-end' }, 'until'), firstEnd, el('span', { class: 'field-error', id: 'post-first-error', role: 'alert' })),
    secondField,
    el('fieldset', { class: 'capacity', id: 'post-capacity-field' }, el('legend', {}, 'Capacity'),
      el('span', { class: 'pair' }, el('label', { for: 'post-weight' }, 'Weight (t)'), weight),
      el('span', { class: 'pair' }, el('label', { for: 'post-pallets' }, 'Pallets'), pallets),
      el('span', { class: 'pair' }, el('label', { for: 'post-ldm' }, 'Loading metres'), ldm),
      el('span', { class: 'field-error', id: 'post-capacity-error', role: 'alert' })),
    el('div', { class: 'field', id: 'post-body-field' }, el('label', { for: 'post-body' }, bodyLabel), body, el('span', { class: 'field-error', id: 'post-body-error', role: 'alert' })),
    field('price', 'Price (EUR)', price, 'seen by the partner only once a match is accepted'),
    field('expires', 'Listed until', expires),
    el('div', { class: 'field', id: 'post-visibility-field' }, el('label', { for: 'post-visibility' }, 'Seen by'), visibility, partnerBoxes, el('span', { class: 'field-error', id: 'post-visibility-error', role: 'alert' })),
    el('div', { class: 'actions' }, el('button', { type: 'submit', class: 'accept', value: 'post' }, 'Post'), el('button', { type: 'submit', value: 'draft' }, 'Save as draft')),
    el('p', { id: 'post-problem', class: 'field-error', role: 'alert' }),
  );

  const kindOf = () => form.querySelector('input[name="post-kind"]:checked').value;
  function adapt() {
    const truck = kindOf() === 'offer';
    firstLabel.textContent = truck ? 'Available from' : 'Pickup from';
    secondField.hidden = truck;
    bodyLabel.textContent = truck ? 'Body' : 'Body wanted';
  }
  kind.addEventListener('change', adapt);
  // A truck's listing ends when it leaves; a load's once its pickup window has begun.
  firstStart.addEventListener('change', () => (expires.value = firstStart.value));

  function renderPartners() {
    const active = (state.partnerList ?? []).filter((p) => p.relationship === 'active');
    partnerBoxes.replaceChildren(
      ...(active.length
        ? active.map((p) => el('label', {}, el('input', { type: 'checkbox', value: p.organizationId, checked: true }), ` ${p.name}`))
        : [el('p', { class: 'muted' }, 'Your organization has no partner in force yet: what you post is seen by partners once a relationship is accepted (your administrator or your systems invite them).')]),
    );
  }

  const codeOf = (text) => /\(([A-Z]{2}[A-Z0-9]{3})\)\s*$/.exec(text)?.[1] ?? (/^[A-Za-z]{2}[A-Za-z0-9]{3}$/.test(text.trim()) ? text.trim().toUpperCase() : undefined);

  function clearProblems() {
    for (const e of form.querySelectorAll('.field-error')) e.textContent = '';
    for (const e of form.querySelectorAll('[aria-invalid]')) e.removeAttribute('aria-invalid');
  }

  function showProblems(problem) {
    let placed = false;
    for (const error of problem.errors ?? []) {
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
    form.querySelector('#post-problem').textContent = `${problem.title ?? 'Not posted'}${problem.detail && !placed ? `: ${problem.detail}` : placed ? ': see the fields marked above.' : ''}`;
  }

  /** The body of the create, from the form; a field that cannot be read is a problem of that field. */
  function bodyOf() {
    const truck = kindOf() === 'offer';
    const errors = [];
    const fromCode = codeOf(from.value);
    const toCode = codeOf(to.value);
    if (!fromCode) errors.push({ pointer: truck ? '/originArea' : '/pickupArea', message: 'choose a place from the list (or type its UN/LOCODE)' });
    if (!toCode) errors.push({ pointer: truck ? '/destinationArea' : '/deliveryArea', message: 'choose a place from the list (or type its UN/LOCODE)' });
    const capacity = {};
    if (weight.value) capacity.weight = { value: Number(weight.value), unitCode: 'TNE' };
    if (pallets.value) capacity.palletSpaces = Number(pallets.value);
    if (ldm.value) capacity.loadingMetres = { value: Number(ldm.value), unitCode: 'MTR' };
    const chosen = [...partnerBoxes.querySelectorAll('input:checked')].map((b) => b.value);
    const seenBy = visibility.value === 'open' ? { mode: 'open' } : { mode: 'partners', organizationIds: chosen };
    if (visibility.value === 'partners' && !chosen.length) errors.push({ pointer: '/visibility', message: 'tick at least one partner' });
    if (errors.length) return { errors };
    const area = (code) => ({ kind: 'unlocode', code });
    const common = { expiresAt: isoOf(expires.value), visibility: seenBy, ...(price.value ? { restrictedDetails: { price: { amount: Number(price.value), currency: 'EUR' } } } : {}) };
    const firstWindow = { start: isoOf(firstStart.value), end: isoOf(firstEnd.value), timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone };
    if (truck) {
      return { path: '/capacity-offers', body: { availabilityWindow: firstWindow, originArea: area(fromCode), destinationArea: area(toCode), vehicleProfile: { bodyType: body.value }, availableCapacity: capacity, ...common } };
    }
    return {
      path: '/load-requests',
      body: {
        pickupArea: area(fromCode), pickupWindow: firstWindow, deliveryArea: area(toCode),
        deliveryWindow: { start: isoOf(secondStart.value), end: isoOf(secondEnd.value), timeZone: firstWindow.timeZone },
        requiredCapacity: capacity, vehicleRequirements: { bodyTypes: [body.value] }, goodsProfile: { category: 'general' }, ...common,
      },
    };
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearProblems();
    const publish = event.submitter?.value !== 'draft';
    const made = bodyOf();
    if (made.errors) return showProblems({ title: 'Not posted', errors: made.errors });
    const label = `${publish ? 'Post' : 'Save'} the ${made.path === '/capacity-offers' ? 'truck' : 'load'} ${from.value.replace(/\s*\(.*\)$/, '')} → ${to.value.replace(/\s*\(.*\)$/, '')}`;
    let created;
    try {
      created = await api.post(made.path, made.body, undefined, label);
      if (publish) await api.post(`${made.path}/${created.id}/publish`, undefined, created.resourceVersion, label);
      notice(el('strong', {}, publish ? 'Posted: ' : 'Saved as a draft: '), `${label.replace(/^(Post|Save) the /, '')}.`);
      form.querySelector('#post-problem').textContent = '';
      await onPosted();
    } catch (err) {
      if (err?.sessionEnded) return;
      showProblems(err?.problem ?? { title: String(err?.message ?? err) });
      // A draft that could not be published stays a draft: say so, it is in the market list.
      if (created) form.querySelector('#post-problem').append(` It was saved as a draft: publish it from the list once it is right.`);
      await onPosted();
    }
  });

  adapt();
  return {
    form,
    refresh: renderPartners,
  };
}

/** The actions on one of the organization's own listings: publish a draft, withdraw an open one. */
export function listingActions(l, { api, onDone, names }) {
  const path = `/${l.kind === 'offer' ? 'capacity-offers' : 'load-requests'}/${l.id}`;
  const what = `${l.kind === 'offer' ? 'truck' : 'load'} of ${nameOf(l.ownerOrganizationId, names)}`;
  const act = async (command, body, label, problemSlot) => {
    try {
      await api.post(`${path}/${command}`, body, l.resourceVersion, label);
      await onDone();
    } catch (err) {
      if (err?.sessionEnded) return;
      const problem = err?.problem ?? {};
      problemSlot.textContent = `${problem.title ?? 'Refused'}${problem.detail ? `: ${problem.detail}` : ''}`;
    }
  };
  const slot = el('span', { class: 'field-error', role: 'alert' });
  if (l.status === 'draft') {
    return el('span', { class: 'listing-actions' }, el('button', { type: 'button', onclick: () => act('publish', undefined, `Publish the ${what}`, slot) }, 'Publish'), slot);
  }
  if (['published', 'partiallyMatched', 'proposed'].includes(l.status)) {
    const reason = el('input', { id: `withdraw-${l.id}`, placeholder: 'Reason', required: true });
    return el(
      'form',
      { class: 'listing-actions', onsubmit: (e) => (e.preventDefault(), act('withdraw', { reason: reason.value.trim() || 'withdrawn by the planner' }, `Withdraw the ${what}`, slot)) },
      el('label', { for: `withdraw-${l.id}`, class: 'visually-hidden' }, 'Reason to withdraw'),
      reason,
      el('button', { type: 'submit' }, 'Withdraw'),
      slot,
    );
  }
  return null;
}
