// What the console shows, as DOM built from data (textContent only: nothing the broker returns is
// ever parsed as HTML), in the planner's words (console/format.js): names, places, local times, units.
import { addressOf, capacityOf, countryName, countryOf, criterionName, endsOf, explanationOf, laneOf, moneyOf, nameOf, placeOf, reasonOf, statusOf, when, windowOf } from './format.js';

const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') node.className = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) node.setAttribute(k, v === true ? '' : v);
  }
  for (const child of children.flat()) if (child !== undefined && child !== null && child !== false) node.append(child instanceof Node ? child : String(child));
  return node;
};
export { el };

/**
 * Replaces a container's content without losing what the user was doing in it: typed values of
 * fields with ids, open <details> (by class), and the focus. Live updates re-render often; a
 * reason half typed or a table opened must survive them.
 */
export function replacePreserving(container, ...children) {
  const values = new Map([...container.querySelectorAll('input[id], select[id], textarea[id]')].map((f) => [f.id, f.value]));
  const open = new Set([...container.querySelectorAll('details[open]')].map((d) => d.className));
  const focused = container.contains(document.activeElement) ? document.activeElement?.id : undefined;
  container.replaceChildren(...children);
  for (const [id, value] of values) {
    const field = container.querySelector(`#${CSS.escape(id)}`);
    if (field && value) field.value = value;
  }
  for (const d of container.querySelectorAll('details')) if (open.has(d.className)) d.open = true;
  if (focused) container.querySelector(`#${CSS.escape(focused)}`)?.focus();
}

/** An area by name, after its country's flag (an image: flag emoji are not drawn everywhere). */
export function placeView(area, places) {
  const country = countryOf(area);
  return el('span', { class: 'place' }, country ? el('img', { class: 'flag', src: `vendor/flags/${country.toLowerCase()}.svg`, alt: countryName(country), title: countryName(country), width: '16', height: '12' }) : '', placeOf(area, places));
}

/** A lane: from → to, each with its flag. */
export function laneView(listing, places) {
  const [from, to] = endsOf(listing);
  return el('span', { class: 'lane-text' }, placeView(from, places), ' → ', placeView(to, places));
}

/** Figures as text for the table of criteria: "required: 8000; remaining: 24000; unit: KGM". */
const figures = (f) =>
  f
    ? Object.entries(f)
        .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.map((x) => (typeof x === 'object' ? JSON.stringify(x) : x)).join(', ') : v !== null && typeof v === 'object' ? JSON.stringify(v) : v}`)
        .join('; ')
    : '';

/** The listings a proposal pairs, as far as the console has them: { offer, request }. */
function pairOf(p, ctx) {
  return { offer: ctx.listings?.get(p.capacityOfferId), request: ctx.listings?.get(p.loadRequestId) };
}

/** What the load is, in one line: lane, pickup window, capacity. */
function loadLine(request, ctx) {
  if (!request) return 'listing no longer shown';
  return [laneOf(request, ctx.places), windowOf(request.pickupWindow), capacityOf(request.requiredCapacity)].filter(Boolean).join(' · ');
}

/** One line of the inbox: lane, dates, capacity, partner, price where disclosed, state. */
export function proposalItem(p, ctx) {
  const { me, names, selected, onSelect, isNew } = ctx;
  const counterpart = p.offerOwnerOrganizationId === me ? p.requestOwnerOrganizationId : p.offerOwnerOrganizationId;
  const { request } = pairOf(p, ctx);
  const waiting = p.status === 'open' && !(p.decisions ?? []).some((d) => d.organizationId === me);
  return el(
    'li',
    {},
    el(
      'button',
      { type: 'button', class: `proposal-item status-${p.status}`, 'aria-pressed': selected ? 'true' : 'false', 'data-proposal': p.id, onclick: () => onSelect(p.id) },
      isNew ? el('span', { class: 'badge new' }, 'new') : '',
      el('span', { class: 'lane' }, request ? laneView(request, ctx.places) : 'Proposal'),
      el('span', { class: 'line' }, [request ? windowOf(request.pickupWindow) : '', request ? capacityOf(request.requiredCapacity) : '', ctx.priceOf?.(p) ? moneyOf(ctx.priceOf(p)) : '', `with ${nameOf(counterpart, names)}`, p.score !== undefined ? `score ${Math.round(p.score * 100)} %` : ''].filter(Boolean).join(' · ')),
      el('span', { class: `state ${waiting ? 'waiting' : ''}` }, waiting ? 'your decision' : statusOf(p.status)),
    ),
  );
}

/** The disclosed restricted details, as labelled values. */
function disclosedView(details) {
  const rows = [];
  if (details.price) rows.push(['Price', moneyOf(details.price)]);
  if (details.vehicleRegistration) rows.push(['Vehicle registration', details.vehicleRegistration]);
  if (details.pickupAddress) rows.push(['Pickup address', addressOf(details.pickupAddress)]);
  if (details.deliveryAddress) rows.push(['Delivery address', addressOf(details.deliveryAddress)]);
  if (details.customer) rows.push(['Customer', [details.customer.name, details.customer.reference].filter(Boolean).join(', ') || JSON.stringify(details.customer)]);
  if (details.notes) rows.push(['Notes', details.notes]);
  for (const [k, v] of Object.entries(details)) {
    if (!['price', 'vehicleRegistration', 'pickupAddress', 'deliveryAddress', 'customer', 'notes'].includes(k)) rows.push([statusOf(k), typeof v === 'object' ? JSON.stringify(v) : String(v)]);
  }
  return el('dl', { class: 'disclosed' }, rows.flatMap(([k, v]) => [el('dt', {}, k), el('dd', {}, v)]));
}

/** The proposal with its explanation in sentences (the criteria as data for the curious) and the decisions the user may take. */
export function proposalDetail(p, ctx) {
  const { me, names, canDecide, onDecide, disclosed, timeline } = ctx;
  const mine = p.offerOwnerOrganizationId === me ? 'offer' : 'request';
  const counterpart = mine === 'offer' ? p.requestOwnerOrganizationId : p.offerOwnerOrganizationId;
  const { offer, request } = pairOf(p, ctx);
  const decidedByUs = (p.decisions ?? []).some((d) => d.organizationId === me);
  const open = p.status === 'open' && p.decisionState !== 'COMMITTING';
  const route = p.routeCompatibility ?? {};
  const sentences = explanationOf(p, { places: ctx.places, request, offer });
  const parts = [
    el('h3', {}, request ? laneView(request, ctx.places) : 'Proposal', `: your ${mine === 'offer' ? 'truck' : 'load'} with ${nameOf(counterpart, names)}`),
    el('p', { class: 'facts' }, [request ? `Load: ${loadLine(request, ctx)}.` : '', offer ? ` Truck: ${[statusOf(offer.vehicleProfile?.bodyType), capacityOf(offer.availableCapacity), windowOf(offer.availabilityWindow)].filter(Boolean).join(', ')}.` : ''].join('')),
    el('p', {}, el('strong', {}, statusOf(p.status)), ` (${statusOf(p.decisionState)}), score ${p.score !== undefined ? `${Math.round(p.score * 100)} %` : 'n/a'}, open for decisions until ${when(p.validUntil)}.`),
    el('h4', {}, 'Why it was proposed'),
    el('ul', { class: 'explanation' }, sentences.map((s) => el('li', { class: !s.ok ? 'fail' : s.applies ? 'pass' : 'not-applicable' }, el('span', { class: 'mark', 'aria-label': !s.ok ? 'not met' : s.applies ? 'met' : 'does not apply' }, !s.ok ? '✗' : s.applies ? '✓' : '–'), ` ${s.text}`))),
    el('p', { class: 'route' }, `The truck's route is ${route.offerDistanceKm ?? '?'} km, the load's ${route.loadDistanceKm ?? '?'} km (distances ${route.distanceModel ?? ''}).`),
    el(
      'details',
      { class: 'as-data' },
      el('summary', {}, 'The criteria as data'),
      el(
        'table',
        { class: 'criteria' },
        el('caption', {}, 'Compatibility, criterion by criterion'),
        el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, 'Criterion'), el('th', { scope: 'col' }, 'Result'), el('th', { scope: 'col' }, 'Reason code'), el('th', { scope: 'col' }, 'Figures'))),
        el('tbody', {}, (p.compatibility ?? []).map((c) => el('tr', { class: `result-${c.result}` }, el('th', { scope: 'row', title: criterionName(c.criterion) }, c.criterion), el('td', {}, c.result), el('td', {}, el('code', {}, c.reasonCode ?? '')), el('td', {}, figures(c.figures))))),
      ),
      el('p', {}, `Rationale: ${p.rationale?.summary ?? ''}`),
    ),
    el('h4', {}, 'Decisions'),
    el(
      'ul',
      { class: 'decisions' },
      (p.decisions ?? []).length
        ? p.decisions.map((d) => el('li', {}, `${nameOf(d.organizationId, names)} ${d.decision === 'accept' ? 'accepted' : 'rejected'} on ${when(d.decidedAt)}, ${d.decidedBy?.userId ? `by ${d.decidedBy.userId}` : `by its system (${d.decidedBy?.clientId ?? ''})`}${d.comment ? `: “${d.comment}”` : ''}`))
        : el('li', {}, 'None yet.'),
    ),
  ];
  if (open && !decidedByUs) {
    if (canDecide) {
      parts.push(
        el('p', { class: 'disclosure' }, `Accepting discloses your ${mine === 'offer' ? "offer's restricted details (its price)" : "request's restricted details (its addresses, customer and price)"} to ${nameOf(counterpart, names)} once every required organization has accepted; until then neither side sees the other's.`),
        el('div', { class: 'actions' }, el('button', { type: 'button', class: 'accept', onclick: () => onDecide(p, 'accept') }, 'Accept'), el('button', { type: 'button', class: 'reject', onclick: () => onDecide(p, 'reject') }, 'Reject')),
      );
    } else {
      parts.push(el('p', { class: 'muted' }, 'Your role does not let you decide on proposals (viewer).'));
    }
  }
  if (disclosed) parts.push(el('h4', {}, `Disclosed by ${nameOf(counterpart, names)}`), disclosedView(disclosed));
  if (timeline) parts.push(timeline);
  return el('div', {}, parts);
}

/** A tender revision's changed terms in words. */
function termsOf(changes, ctx) {
  return (changes ?? []).map((c) => {
    const v = c.after;
    let text;
    if (v && typeof v === 'object' && 'amount' in v) text = moneyOf(v);
    else if (v && typeof v === 'object' && 'start' in v && 'end' in v) text = windowOf(v);
    else if (v && typeof v === 'object' && ('weight' in v || 'palletSpaces' in v)) text = capacityOf(v);
    else if (Array.isArray(v)) text = v.map((s) => (s && typeof s === 'object' && s.area ? `${s.role} in ${placeOf(s.area, ctx.places)}, ${windowOf(s.timeWindow)}` : String(s))).join('; ');
    else if (v && typeof v === 'object' && ('bodyTypes' in v || 'equipment' in v)) text = [...(v.bodyTypes ?? []), ...(v.equipment ?? [])].map(statusOf).join(', ');
    else if (v && typeof v === 'object') text = Object.entries(v).map(([k, x]) => `${statusOf(k)} ${typeof x === 'object' ? JSON.stringify(x) : x}`).join(', ');
    else text = String(v);
    return `${statusOf(c.term)}: ${text}`;
  });
}

/** Tenders with their revisions, the commitment, the handover, milestones and outcomes, in order. */
export function timelineView(t, ctx) {
  const { names } = ctx;
  const steps = [];
  for (const tender of t.tenders) {
    const all = t.revisions[tender.id] ?? [];
    const revisions = all.map((r) =>
      el('li', { class: 'revision' }, `Revision ${r.number} by ${nameOf(r.authorOrganizationId, names)}, ${when(r.createdAt)}: ${r.number === 1 ? 'issued with ' : 'changed '}${termsOf(r.changes, ctx).join('; ') || 'no term'}${r.outcome ? ` (${r.outcome})` : ''}`),
    );
    steps.push(el('li', {}, `Tender issued by ${nameOf(tender.issuingOrganizationId, names)}: ${statusOf(tender.status)}, revision ${tender.currentRevision}`, revisions.length ? el('ol', { class: 'sub' }, revisions) : '', all.length > 1 ? revisionDiff(all, ctx) : '', ctx.onTender && ['issued', 'amending'].includes(tender.status) ? tenderActions(tender, ctx) : ''));
  }
  if (!t.tenders.length && ctx.onIssueTender) steps.push(el('li', {}, issueForm(ctx)));
  for (const c of t.commitments) {
    const revision = c.acceptedRevision?.number ?? c.acceptedRevision;
    const price = moneyOf(c.acceptedRevision?.terms?.commercialTerms);
    steps.push(el('li', {}, `Commitment: ${statusOf(c.status)}, on revision ${revision}${price ? ` at ${price}` : ''}, sealed by digest `, el('code', { class: 'digest', title: `${c.digest?.algorithm ?? ''} over ${c.digest?.canonicalization ?? ''}` }, c.digest?.value ?? ''), ctx.onCommitment && c.status === 'active' ? commitmentActions(c, ctx) : ''));
  }
  for (const h of t.handovers) steps.push(el('li', {}, handoverView(h, ctx)));
  // The shipper hands over the active commitment's execution package (one per commitment version).
  const active = t.commitments.find((c) => c.status === 'active');
  if (active && ctx.onHandover && active.issuingOrganizationId === ctx.me && !t.handovers.some((h) => h.commitmentId === active.id)) steps.push(el('li', {}, handoverForm(active, ctx)));
  if (t.reference) {
    const milestones = t.updates.map((u) => el('li', {}, `${when(u.occurredAt)}: ${statusOf(u.milestone ?? u.kind ?? 'update')}`));
    const outcomes = t.outcomes.map((o) => el('li', {}, `Outcome: ${statusOf(o.status)}${o.supersedes ? ` (corrects an earlier report: ${o.correctionReason ?? ''})` : ''}`));
    steps.push(el('li', {}, `Execution: ${statusOf(t.reference.status)}`, milestones.length || outcomes.length ? el('ol', { class: 'sub' }, milestones, outcomes) : ''));
  }
  // The carrier without a TMS reports here (the broker decides who may: its problem is shown).
  const report = t.reference && ctx.onReport && t.reference.carrierOrganizationId === ctx.me && !['completed', 'cancelled'].includes(t.reference.status) ? reportForm(t, ctx) : '';
  return el('section', { class: 'timeline', 'aria-label': 'Execution timeline' }, el('h4', {}, 'From tender to outcome'), steps.length ? el('ol', {}, steps) : el('p', { class: 'muted' }, 'No tender yet.'), report);
}

/** The last two revisions side by side, term by term: what the counterproposal changed. */
function revisionDiff(revisions, ctx) {
  const [before, after] = revisions.slice(-2);
  const terms = [...new Set((after.changes ?? []).map((c) => c.term))];
  const words = (term, value) => termsOf([{ term, after: value }], ctx)[0].replace(/^[^:]*: /, '');
  return el(
    'table',
    { class: 'criteria revision-diff' },
    el('caption', {}, `Revision ${before.number} and ${after.number} side by side`),
    el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, 'Term'), el('th', { scope: 'col' }, `Revision ${before.number} (${nameOf(before.authorOrganizationId, ctx.names)})`), el('th', { scope: 'col' }, `Revision ${after.number} (${nameOf(after.authorOrganizationId, ctx.names)})`))),
    el('tbody', {}, terms.map((term) => el('tr', {}, el('th', { scope: 'row' }, statusOf(term)), el('td', {}, words(term, before.terms?.[term])), el('td', { class: 'changed' }, words(term, after.terms?.[term]))))),
  );
}

/**
 * A slot for the broker's refusal and a wrapper for an action's handler that clears the slot,
 * runs the action and shows its refusal there (a session that ended is said by its banner).
 */
function guarded() {
  const problem = el('p', { class: 'field-error', role: 'alert' });
  const run = (fn) => async (event) => {
    event?.preventDefault();
    problem.textContent = '';
    try {
      await fn();
    } catch (err) {
      if (err?.sessionEnded) return;
      problem.textContent = `${err?.problem?.title ?? 'Refused'}${err?.problem?.detail ? `: ${err.problem.detail}` : ''}`;
    }
  };
  return [problem, run];
}

/** Accept or reject the current revision, or counter it with another price. */
function tenderActions(tender, ctx) {
  const decided = (tender.decisions ?? []).some((d) => d.organizationId === ctx.me && d.revision === tender.currentRevision);
  const [problem, run] = guarded();
  if (decided) return el('p', { class: 'muted' }, `You accepted revision ${tender.currentRevision}; waiting for ${nameOf(tender.issuingOrganizationId === ctx.me ? tender.executingOrganizationId : tender.issuingOrganizationId, ctx.names)}.`);
  const price = el('input', { id: `counter-price-${tender.id}`, type: 'number', min: '0', step: '1' });
  const reason = el('input', { id: `counter-reason-${tender.id}`, placeholder: 'why' });
  return el(
    'div',
    { class: 'tender-actions' },
    el('div', { class: 'actions' },
      el('button', { type: 'button', class: 'accept', onclick: run(() => ctx.onTender(tender, 'accept')) }, `Accept revision ${tender.currentRevision}`),
      el('button', { type: 'button', class: 'reject', onclick: run(() => ctx.onTender(tender, 'reject')) }, 'Reject the tender')),
    el('form', { class: 'action', onsubmit: run(() => ctx.onTender(tender, 'counter', { price: Number(price.value), reason: reason.value.trim() || 'another price' })) },
      el('label', { for: price.id }, 'Counter with price (EUR)'), price, el('label', { for: reason.id }, 'Reason'), reason, el('button', { type: 'submit' }, 'Counter')),
    problem,
  );
}

/** Amend the committed price (a new revision both decide on), or cancel the commitment, with a reason. */
function commitmentActions(c, ctx) {
  const [problem, run] = guarded();
  const price = el('input', { id: `amend-price-${c.id}`, type: 'number', min: '0', step: '1' });
  const why = el('input', { id: `amend-reason-${c.id}`, placeholder: 'why' });
  const cancelWhy = el('input', { id: `cancel-reason-${c.id}`, placeholder: 'why' });
  return el(
    'div',
    { class: 'commitment-actions tender-actions' },
    el('form', { class: 'action', onsubmit: run(() => ctx.onCommitment(c, 'amend', { price: Number(price.value), reason: why.value.trim() || 'changed price' })) },
      el('label', { for: price.id }, 'Amend the price (EUR)'), price, el('label', { for: why.id }, 'Reason'), why, el('button', { type: 'submit' }, 'Propose the amendment')),
    el('form', { class: 'action', onsubmit: run(() => ctx.onCommitment(c, 'cancel', { reason: cancelWhy.value.trim() || 'cancelled in the console' })) },
      el('label', { for: cancelWhy.id }, 'Reason to cancel'), cancelWhy, el('button', { type: 'submit', class: 'reject' }, 'Cancel the commitment')),
    problem,
  );
}

/** A tender for the accepted match (its terms from the match; listed until a time). */
function issueForm(ctx) {
  const until = new Date(Date.now() + 24 * 3600_000);
  const expires = el('input', { id: 'tender-expires', type: 'datetime-local', value: new Date(until.getTime() - until.getTimezoneOffset() * 60_000).toISOString().slice(0, 16) });
  const problem = el('p', { class: 'field-error', role: 'alert' });
  return el('form', { class: 'action issue-tender', onsubmit: async (event) => {
    event.preventDefault();
    problem.textContent = '';
    try {
      await ctx.onIssueTender({ expiresAt: new Date(expires.value).toISOString() });
    } catch (err) {
      if (err?.sessionEnded) return;
      problem.textContent = `${err?.problem?.title ?? 'Not issued'}${err?.problem?.detail ? `: ${err.problem.detail}` : ''}`;
    }
  } }, el('label', { for: 'tender-expires' }, 'Open until'), expires, el('button', { type: 'submit' }, 'Issue a tender for this match'), problem);
}

/** A stop of the package in one line: "Pickup at Hafen DC, Kaistraße 7, 20457 Hamburg, Germany; 27 Nov, 10:00–12:00; Gate desk +49 40 123456". */
const STOP_ROLE = { pickup: 'Pickup', delivery: 'Delivery' };
function stopLine(s) {
  const contacts = (s.contacts ?? []).map((c) => [c.name, c.phone, c.email].filter(Boolean).join(' ')).join(', ');
  return [`${STOP_ROLE[s.role] ?? s.role} at ${[s.location?.name, addressOf(s.location?.address)].filter(Boolean).join(', ')}`, windowOf(s.timeWindow), s.instructions, contacts].filter(Boolean).join('; ');
}

/** The handover: its state, the package as the executing organization will drive it, its acknowledgements, and the acknowledgement form for the executing organization. */
function handoverView(h, ctx) {
  const pkg = h.package ?? {};
  const cargo = pkg.cargo ? [pkg.cargo.description, capacityOf({ weight: pkg.cargo.weight, palletSpaces: pkg.cargo.palletSpaces, loadingMetres: pkg.cargo.loadingMetres })].filter(Boolean).join(', ') : '';
  const acks = (h.acknowledgements ?? []).map((a) =>
    el('li', {}, `${statusOf(a.outcome)} by ${nameOf(h.executingOrganizationId, ctx.names)}, ${when(a.acknowledgedAt ?? a.recordedAt)}${a.destinationExternalReference ? ` as ${a.destinationExternalReference.type} ${a.destinationExternalReference.value}` : ''}${a.reason ? `: ${a.reason}` : ''}`),
  );
  const mayAcknowledge = ctx.onAcknowledge && h.executingOrganizationId === ctx.me && ['offered', 'quarantined'].includes(h.status);
  return el(
    'div',
    { class: 'handover' },
    `Handover from ${nameOf(h.issuingOrganizationId, ctx.names)} to ${nameOf(h.executingOrganizationId, ctx.names)}: ${statusOf(h.status)}`,
    el('ol', { class: 'sub package' },
      (pkg.stops ?? []).map((s) => el('li', {}, stopLine(s))),
      cargo ? el('li', {}, `Cargo: ${cargo}`) : '',
      pkg.instructions ? el('li', {}, `Instructions: ${pkg.instructions}`) : '',
      (pkg.contacts ?? []).length ? el('li', {}, `Contacts: ${pkg.contacts.map((c) => `${statusOf(c.role)} ${[c.name, c.phone, c.email].filter(Boolean).join(' ')}`).join(', ')}`) : '',
      (h.sourceExternalReferences ?? []).length ? el('li', {}, `Their reference: ${h.sourceExternalReferences.map((r) => `${r.type} ${r.value}`).join(', ')}`) : '',
      acks),
    mayAcknowledge ? acknowledgeForm(h, ctx) : '',
  );
}

/** The carrier takes the package into its plan under its own reference, or refuses it with a reason. */
function acknowledgeForm(h, ctx) {
  const [problem, run] = guarded();
  const reference = el('input', { id: `ack-reference-${h.id}`, placeholder: 'e.g. trip 2411-07' });
  const reason = el('input', { id: `ack-reason-${h.id}`, placeholder: 'why' });
  return el(
    'div',
    { class: 'handover-actions tender-actions' },
    el('form', { class: 'action', onsubmit: run(() => ctx.onAcknowledge(h, { outcome: 'imported', destinationExternalReference: { system: 'pcx-console', type: 'trip', value: reference.value.trim() || `trip-${h.id.slice(0, 8)}` } })) },
      el('label', { for: reference.id }, 'Your trip reference'), reference, el('button', { type: 'submit', class: 'accept' }, 'Take into our plan')),
    el('form', { class: 'action', onsubmit: run(() => ctx.onAcknowledge(h, { outcome: 'rejected', reason: reason.value.trim() || 'refused in the console' })) },
      el('label', { for: reason.id }, 'Reason to refuse'), reason, el('button', { type: 'submit', class: 'reject' }, 'Refuse the handover')),
    problem,
  );
}

/**
 * The shipper's handover of an active commitment: the agreed stops at exact addresses (filled from
 * the load's restricted details where it has them), a contact, instructions and its own reference.
 */
function handoverForm(c, ctx) {
  const [problem, run] = guarded();
  const stops = c.acceptedRevision?.terms?.stops ?? [];
  const known = ctx.request?.restrictedDetails ?? {};
  const field = (name, value = '', attrs = {}) => el('input', { id: `handover-${name}-${c.id}`, value, ...attrs });
  const labelled = (input, text) => [el('label', { for: input.id }, text), input];
  const stopFields = stops.map((s) => {
    const address = (s.role === 'pickup' ? known.pickupAddress : known.deliveryAddress) ?? {};
    const where = `${STOP_ROLE[s.role] ?? s.role} ${s.sequence}`;
    const street = field(`street-${s.sequence}`, address.lines?.[0] ?? '', { required: true });
    const postal = field(`postal-${s.sequence}`, address.postalCode ?? '');
    const city = field(`city-${s.sequence}`, address.city ?? (s.area?.kind === 'unlocode' ? placeOf(s.area, ctx.places) : ''), { required: true });
    const country = field(`country-${s.sequence}`, address.countryCode ?? countryOf(s.area) ?? '', { required: true, maxlength: '2', size: '3' });
    return {
      nodes: el('fieldset', { class: 'stop' }, el('legend', {}, `${where}, ${placeOf(s.area, ctx.places)}, ${windowOf(s.timeWindow)}`),
        labelled(street, `${where}: street`), labelled(postal, 'Postal code'), labelled(city, 'City'), labelled(country, 'Country code')),
      value: () => ({
        sequence: s.sequence,
        role: s.role,
        location: { address: { lines: [street.value.trim()], ...(postal.value.trim() ? { postalCode: postal.value.trim() } : {}), city: city.value.trim(), countryCode: country.value.trim().toUpperCase() } },
        timeWindow: s.timeWindow,
      }),
    };
  });
  const contact = field('contact', ctx.userName ?? '');
  const phone = field('phone', '', { type: 'tel', placeholder: '+49 40 123456' });
  const email = field('email', '', { type: 'email' });
  const instructions = field('instructions');
  const ours = field('reference', `order-${c.id.slice(0, 8)}`, { required: true });
  return el(
    'form',
    {
      class: 'action handover-form',
      onsubmit: run(() =>
        ctx.onHandover(c, {
          commitmentId: c.id,
          package: {
            stops: stopFields.map((f) => f.value()),
            ...(instructions.value.trim() ? { instructions: instructions.value.trim() } : {}),
            ...(contact.value.trim() && (phone.value.trim() || email.value.trim())
              ? { contacts: [{ role: 'dispatch', name: contact.value.trim(), ...(phone.value.trim() ? { phone: phone.value.trim() } : {}), ...(email.value.trim() ? { email: email.value.trim() } : {}) }] }
              : {}),
          },
          sourceExternalReferences: [{ system: 'pcx-console', type: 'order', value: ours.value.trim() }],
        }),
      ),
    },
    el('h5', {}, `Hand over to ${nameOf(c.executingOrganizationId, ctx.names)}`),
    stopFields.map((f) => f.nodes),
    labelled(contact, 'Contact name'), labelled(phone, 'Phone'), labelled(email, 'Email'), labelled(instructions, 'Instructions for the driver'), labelled(ours, 'Your order reference'),
    el('button', { type: 'submit' }, 'Hand over the execution details'),
    problem,
  );
}

const MILESTONES = ['atPickup', 'pickedUp', 'inTransit', 'delayed', 'atDelivery', 'delivered', 'failed'];
const OUTCOMES = ['completed', 'failed', 'disputed', 'cancelled'];

/** What the carrier's planner reports: a milestone when it happened (now by default), the outcome. */
function reportForm(t, ctx) {
  const id = t.reference.id;
  const milestone = el('select', { id: `report-milestone-${id}` }, MILESTONES.map((m) => el('option', { value: m }, statusOf(m))));
  const now = new Date();
  const at = el('input', { id: `report-at-${id}`, type: 'datetime-local', value: new Date(now.getTime() - now.getTimezoneOffset() * 60_000).toISOString().slice(0, 16) });
  const outcome = el('select', { id: `report-outcome-${id}` }, OUTCOMES.map((o) => el('option', { value: o }, statusOf(o))));
  const problem = el('p', { class: 'field-error', role: 'alert' });
  const send = (kind) => async (event) => {
    event.preventDefault();
    problem.textContent = '';
    try {
      await ctx.onReport(kind, kind === 'milestone' ? { milestone: milestone.value, occurredAt: new Date(at.value).toISOString() } : { status: outcome.value });
    } catch (err) {
      if (err?.sessionEnded) return;
      problem.textContent = `${err?.problem?.title ?? 'Not reported'}${err?.problem?.detail ? `: ${err.problem.detail}` : ''}`;
    }
  };
  return el(
    'div',
    { class: 'report' },
    el('h4', {}, 'Report as the carrier'),
    el('form', { class: 'action', onsubmit: send('milestone') }, el('label', { for: milestone.id }, 'Milestone'), milestone, el('label', { for: at.id }, 'at'), at, el('button', { type: 'submit' }, 'Report milestone')),
    el('form', { class: 'action', onsubmit: send('outcome') }, el('label', { for: outcome.id }, 'Outcome'), outcome, el('button', { type: 'submit' }, 'Report outcome')),
    problem,
  );
}

export { reasonOf };
