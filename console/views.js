// What the console shows, as DOM built from data (textContent only: nothing the broker returns is
// ever parsed as HTML), in the planner's words (console/format.js): names, places, local times, units.
import { dateTimeInput } from './datetime.js';
import { addressOf, capacityOf, countryName, countryOf, criterionName, distanceModelText, endsOf, explanationOf, has, km, laneOf, moneyOf, nameOf, placeOf, reasonOf, statusOf, t, when, windowOf } from './format.js';

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
    // A choice no longer offered (a date just skipped) leaves the list's first in its place.
    if (field && value && (field.tagName !== 'SELECT' || [...field.options].some((o) => o.value === value))) field.value = value;
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
  if (!request) return t('proposal.listingGone');
  return [laneOf(request, ctx.places), windowOf(request.pickupWindow), capacityOf(request.requiredCapacity)].filter(Boolean).join(' · ');
}

/** One line of the inbox: lane, dates, capacity, partner, price where disclosed, state. */
export function proposalItem(p, ctx) {
  const { me, names, selected, onSelect, isNew } = ctx;
  const counterpart = p.offerOwnerOrganizationId === me ? p.requestOwnerOrganizationId : p.offerOwnerOrganizationId;
  const { offer, request } = pairOf(p, ctx);
  // The load's lane, else the truck's (a partner's request is no longer listed once it is matched).
  const lane = request ?? offer;
  const waiting = p.status === 'open' && !(p.decisions ?? []).some((d) => d.organizationId === me);
  return el(
    'li',
    {},
    el(
      'button',
      { type: 'button', class: `proposal-item status-${p.status}`, 'aria-pressed': selected ? 'true' : 'false', 'data-proposal': p.id, onclick: () => onSelect(p.id) },
      isNew ? el('span', { class: 'badge new' }, t('proposal.new')) : '',
      el('span', { class: 'lane' }, lane ? laneView(lane, ctx.places) : t('proposal.title')),
      el('span', { class: 'line' }, [request ? windowOf(request.pickupWindow) : '', request ? capacityOf(request.requiredCapacity) : '', ctx.priceOf?.(p) ? moneyOf(ctx.priceOf(p)) : '', t('proposal.with', { partner: nameOf(counterpart, names) }), p.score !== undefined ? t('proposal.score', { percent: Math.round(p.score * 100) }) : ''].filter(Boolean).join(' · ')),
      el('span', { class: `state ${waiting ? 'waiting' : ''}` }, waiting ? t('proposal.yourDecision') : p.status === 'accepted' ? t('proposal.short.matched') : p.status === 'open' ? t('proposal.short.waitingForThem') : statusOf(p.status)),
    ),
  );
}

/** The disclosed restricted details, as labelled values. */
function disclosedView(details) {
  const rows = [];
  if (details.price) rows.push([t('disclosed.price'), moneyOf(details.price)]);
  if (details.vehicleRegistration) rows.push([t('disclosed.vehicleRegistration'), details.vehicleRegistration]);
  if (details.pickupAddress) rows.push([t('disclosed.pickupAddress'), addressOf(details.pickupAddress)]);
  if (details.deliveryAddress) rows.push([t('disclosed.deliveryAddress'), addressOf(details.deliveryAddress)]);
  if (details.customer) rows.push([t('disclosed.customer'), [details.customer.name, details.customer.reference].filter(Boolean).join(', ') || JSON.stringify(details.customer)]);
  if (details.notes) rows.push([t('disclosed.notes'), details.notes]);
  for (const [k, v] of Object.entries(details)) {
    if (!['price', 'vehicleRegistration', 'pickupAddress', 'deliveryAddress', 'customer', 'notes'].includes(k)) rows.push([statusOf(k), typeof v === 'object' ? JSON.stringify(v) : String(v)]);
  }
  return el('dl', { class: 'disclosed' }, rows.flatMap(([k, v]) => [el('dt', {}, k), el('dd', {}, v)]));
}

/**
 * Who decided, as a person and never a user id: "by you", a colleague by name where the console
 * knows it (an admin reads the organization's users) else "by a colleague", a partner's planner
 * unnamed (people of another organization are not disclosed), a system by its connector.
 */
function deciderOf(d, ctx) {
  const userId = d.decidedBy?.userId;
  if (!userId) return t('proposal.decision.bySystem', { client: d.decidedBy?.clientId ?? '' });
  if (d.organizationId !== ctx.me) return t('proposal.decision.byTheirPlanner');
  if (userId === ctx.userId) return t('proposal.decision.byYou');
  const name = ctx.people?.get?.(userId);
  return name ? t('proposal.decision.byUser', { user: name }) : t('proposal.decision.byColleague');
}

/** A decision on the proposal in one line: "Baltic Shippers AB accepted on 28 Nov 2026, 10:00 CET, by you: “fine”". */
function decisionLine(d, ctx) {
  const names = ctx.names;
  const by = deciderOf(d, ctx);
  const line = t(d.decision === 'accept' ? 'proposal.decision.accept' : 'proposal.decision.reject', { organization: nameOf(d.organizationId, names), when: when(d.decidedAt), by });
  return d.comment ? `${line}: ${t('common.quote', { text: d.comment })}` : line;
}

/**
 * Where the proposal stands, from the reader's side, in words that never contradict its state: who
 * still has to decide and until when while open; "matched" once both accepted (a match is not
 * binding: a tender agreed makes the commitment); else the final state.
 */
export function proposalState(p, me, names) {
  const mine = p.offerOwnerOrganizationId === me ? 'offer' : 'request';
  const partner = nameOf(mine === 'offer' ? p.requestOwnerOrganizationId : p.offerOwnerOrganizationId, names);
  if (p.status === 'accepted') return t('proposal.state.matched');
  if (p.status !== 'open') return t('proposal.state.closed', { status: statusOf(p.status) });
  if (p.decisionState === 'COMMITTING') return t('proposal.state.committing');
  const ours = (p.decisions ?? []).some((d) => d.organizationId === me);
  const theirs = (p.decisions ?? []).some((d) => d.organizationId !== me);
  const until = when(p.validUntil);
  if (ours) return t('proposal.state.waitingForThem', { partner, until });
  if (theirs) return t('proposal.state.theyAccepted', { partner, until });
  return t('proposal.state.open', { until });
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
    el('h3', {}, request || offer ? laneView(request ?? offer, ctx.places) : t('proposal.title'), t(mine === 'offer' ? 'proposal.heading.offer' : 'proposal.heading.request', { partner: nameOf(counterpart, names) })),
    el('p', { class: 'facts' }, [request ? t('proposal.facts.load', { load: loadLine(request, ctx) }) : '', offer ? ` ${t('proposal.facts.truck', { truck: [statusOf(offer.vehicleProfile?.bodyType), capacityOf(offer.availableCapacity), windowOf(offer.availabilityWindow)].filter(Boolean).join(', ') })}` : ''].join('')),
    el('p', { class: 'proposal-state' }, el('strong', {}, proposalState(p, me, names)), ` ${t('proposal.scoreLine', { score: p.score !== undefined ? `${Math.round(p.score * 100)} %` : t('proposal.score.none') })}`),
    el('h4', {}, t('proposal.why')),
    el('ul', { class: 'explanation' }, sentences.map((s) => el('li', { class: !s.ok ? 'fail' : s.applies ? 'pass' : 'not-applicable' }, el('span', { class: 'mark', 'aria-label': t(!s.ok ? 'proposal.mark.fail' : s.applies ? 'proposal.mark.pass' : 'proposal.mark.notApplicable') }, !s.ok ? '✗' : s.applies ? '✓' : '–'), ` ${s.text}`))),
    el('p', { class: 'route' }, t('proposal.route', { offer: km(route.offerDistanceKm), load: km(route.loadDistanceKm), model: distanceModelText(route.distanceModel) })),
    el(
      'details',
      { class: 'as-data' },
      el('summary', {}, t('proposal.asData')),
      el(
        'table',
        { class: 'criteria' },
        el('caption', {}, t('proposal.criteria.caption')),
        el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, t('proposal.criteria.criterion')), el('th', { scope: 'col' }, t('proposal.criteria.result')), el('th', { scope: 'col' }, t('proposal.criteria.reasonCode')), el('th', { scope: 'col' }, t('proposal.criteria.figures')))),
        // Each cell names its column (data-label): on a phone the rows stack as cards, read without scrolling sideways.
        el('tbody', {}, (p.compatibility ?? []).map((c) => el('tr', { class: `result-${c.result}` }, el('th', { scope: 'row', title: criterionName(c.criterion) }, c.criterion), el('td', { 'data-label': t('proposal.criteria.result') }, c.result), el('td', { 'data-label': t('proposal.criteria.reasonCode') }, el('code', {}, c.reasonCode ?? '')), el('td', { 'data-label': t('proposal.criteria.figures') }, figures(c.figures))))),
      ),
      el('p', {}, t('proposal.rationale', { summary: p.rationale?.summary ?? '' })),
    ),
    el('h4', {}, t('proposal.decisions')),
    el(
      'ul',
      { class: 'decisions' },
      (p.decisions ?? []).length
        ? p.decisions.map((d) => el('li', {}, decisionLine(d, ctx)))
        : el('li', {}, t('proposal.decisions.none')),
    ),
  ];
  if (open && !decidedByUs) {
    if (canDecide) {
      parts.push(
        el('p', { class: 'disclosure' }, t(mine === 'offer' ? 'proposal.disclosure.offer' : 'proposal.disclosure.request', { partner: nameOf(counterpart, names) })),
        el('div', { class: 'actions' }, el('button', { type: 'button', class: 'accept', onclick: () => onDecide(p, 'accept') }, t('proposal.accept')), el('button', { type: 'button', class: 'reject', onclick: () => onDecide(p, 'reject') }, t('proposal.reject'))),
      );
    } else {
      parts.push(el('p', { class: 'muted' }, t('proposal.viewerOnly')));
    }
  }
  if (disclosed) parts.push(el('h4', {}, t('proposal.disclosedBy', { partner: nameOf(counterpart, names) })), disclosedView(disclosed));
  if (timeline) parts.push(timeline);
  return el('div', {}, parts);
}

/** A term's value in words: money, a window, capacity, stops ("pickup in Hamburg, 12 Dec, 08:00 – 14:00 CET"), bodies. */
function termText(v, ctx) {
  if (v && typeof v === 'object' && 'amount' in v) return moneyOf(v);
  if (v && typeof v === 'object' && 'start' in v && 'end' in v) return windowOf(v);
  if (v && typeof v === 'object' && ('weight' in v || 'palletSpaces' in v)) return capacityOf(v);
  if (Array.isArray(v)) return v.map((s) => (s && typeof s === 'object' && s.area ? t('timeline.stop', { role: statusOf(s.role), place: placeOf(s.area, ctx.places), window: windowOf(s.timeWindow) }) : String(s))).join('; ');
  if (v && typeof v === 'object' && ('bodyTypes' in v || 'equipment' in v)) return [...(v.bodyTypes ?? []), ...(v.equipment ?? [])].map(statusOf).join(', ');
  if (v && typeof v === 'object') return Object.entries(v).map(([k, x]) => `${statusOf(k)} ${typeof x === 'object' ? JSON.stringify(x) : x}`).join(', ');
  return String(v);
}

/** A tender revision's changed terms in words: "commercial terms: €950.00". */
function termsOf(changes, ctx) {
  return (changes ?? []).map((c) => `${statusOf(c.term)}: ${termText(c.after, ctx)}`);
}

/** The transport has its outcome (completed, failed or cancelled): the execution is closed. */
const finished = (facts) => (facts.outcomes ?? []).length > 0 || ['completed', 'failed', 'cancelled'].includes(facts.reference?.status);

/** Tenders with their revisions, the commitment, the handover, milestones and outcomes, in order. */
export function timelineView(facts, ctx) {
  const { names } = ctx;
  const steps = [];
  for (const tender of facts.tenders) {
    const all = facts.revisions[tender.id] ?? [];
    const revisions = all.map((r) =>
      el('li', { class: 'revision' }, t(r.number === 1 ? 'timeline.revision.issued' : 'timeline.revision.changed', { number: r.number, author: nameOf(r.authorOrganizationId, names), when: when(r.createdAt), terms: termsOf(r.changes, ctx).join('; ') || t('timeline.noTerm') }), r.reason ? ` ${t('timeline.revision.reason', { reason: r.reason })}` : '', r.outcome ? ` (${statusOf(r.outcome)})` : ''),
    );
    steps.push(el('li', {}, t('timeline.tender', { issuer: nameOf(tender.issuingOrganizationId, names), status: statusOf(tender.status), revision: tender.currentRevision }), revisions.length ? el('ol', { class: 'sub' }, revisions) : '', all.length > 1 ? revisionDiff(all, ctx) : '', ctx.onTender && ['issued', 'amending'].includes(tender.status) ? tenderActions(tender, ctx) : ''));
  }
  if (!facts.tenders.length && ctx.onIssueTender) steps.push(el('li', {}, issueForm(ctx)));
  for (const c of facts.commitments) {
    const revision = c.acceptedRevision?.number ?? c.acceptedRevision;
    const price = moneyOf(c.acceptedRevision?.terms?.commercialTerms);
    const sealed = price ? t('timeline.commitment.price', { status: statusOf(c.status), revision: revision ?? '?', price }) : t('timeline.commitment', { status: statusOf(c.status), revision: revision ?? '?' });
    // The order numbers a planner knows in front; the digest behind "verify" for whoever checks the seal.
    const refs = referencesOf(c, facts, ctx);
    steps.push(el('li', {}, sealed, refs ? ` · ${refs}` : '',
      el('details', { class: 'seal' }, el('summary', {}, t('timeline.commitment.verify')),
        el('p', {}, t('timeline.digest', { algorithm: c.digest?.algorithm ?? '', canonicalization: c.digest?.canonicalization ?? '' }), ' ', el('code', { class: 'digest' }, c.digest?.value ?? ''))),
      // Once the transport has its outcome there is nothing left to amend or cancel: the finished transport offers neither.
      ctx.onCommitment && c.status === 'active' && !finished(facts) ? commitmentActions(c, ctx) : ''));
  }
  for (const h of facts.handovers) steps.push(el('li', {}, handoverView(h, ctx)));
  // The shipper hands over the active commitment's execution package (one per commitment version).
  const active = facts.commitments.find((c) => c.status === 'active');
  if (active && ctx.onHandover && active.issuingOrganizationId === ctx.me && !facts.handovers.some((h) => h.commitmentId === active.id)) steps.push(el('li', {}, handoverForm(active, ctx)));
  if (facts.reference) {
    const milestones = facts.updates.map((u) => el('li', {}, `${when(u.occurredAt)}: ${statusOf(u.milestone ?? u.kind ?? 'update')}`));
    const outcomes = facts.outcomes.map((o) => el('li', { class: o.supersededByOutcomeId ? 'superseded' : '' }, outcomeLine(o)));
    steps.push(el('li', {}, executionStep(facts.reference, facts.updates), milestones.length || outcomes.length ? el('ol', { class: 'sub' }, milestones, outcomes) : ''));
  }
  // The carrier without a TMS reports here (the broker decides who may: its problem is shown).
  const report = facts.reference && ctx.onReport && facts.reference.carrierOrganizationId === ctx.me && !['completed', 'cancelled'].includes(facts.reference.status) ? reportForm(facts, ctx) : '';
  return el('section', { class: 'timeline', 'aria-label': t('timeline.label') }, el('h4', {}, t('timeline.title')), steps.length ? el('ol', {}, steps) : el('p', { class: 'muted' }, t('timeline.none')), report);
}

/** An outcome in words: "Completed: 12 Dec, 08:10 – 18:40 CET", a correction with its reason, a note. */
function outcomeLine(o) {
  const range = o.actualTimeRange?.start && o.actualTimeRange?.end ? windowOf(o.actualTimeRange) : '';
  const notes = (o.operationalDeviations ?? []).map((d) => d.description).filter(Boolean).join('; ');
  const line = t(range ? 'timeline.outcome.times' : 'timeline.outcome', { status: statusOf(o.status), times: range });
  const said = o.supersedes ? ` ${t('timeline.outcome.corrects', { reason: o.correctionReason ?? '' })}` : notes ? `: ${notes}` : '';
  return `${line}${said}${o.supersededByOutcomeId ? ` ${t('timeline.outcome.superseded')}` : ''}`;
}

/**
 * The movement's step in words, never a bare record status: "Completed", "Cancelled", "Last
 * milestone: delivered, 12 Dec 18:40: the outcome is still to be reported", or "Planned".
 */
function executionStep(reference, updates = []) {
  if (reference.status === 'completed') return t('timeline.execution.completed');
  if (reference.status === 'cancelled') return t('timeline.execution.cancelled');
  const last = reference.currentMilestone ?? [...updates].reverse().find((u) => u.milestone);
  if (!last) return t('timeline.execution.planned');
  return t(last.milestone === 'delivered' ? 'timeline.execution.awaitingOutcome' : 'timeline.execution.underway', { milestone: statusOf(last.milestone), when: when(last.occurredAt) });
}

/** A commitment's order and trip numbers from either side ("your order O-9, their trip T-1"), from its handovers. */
function referencesOf(c, facts, ctx) {
  const parts = [];
  for (const h of facts.handovers.filter((x) => x.commitmentId === c.id)) {
    const ours = h.issuingOrganizationId === ctx.me;
    for (const r of h.sourceExternalReferences ?? []) parts.push(t(ours ? 'timeline.ref.yours' : 'timeline.ref.theirs', { type: referenceType(r.type), value: r.value }));
    for (const a of (h.acknowledgements ?? []).filter((x) => x.destinationExternalReference)) parts.push(t(ours ? 'timeline.ref.theirs' : 'timeline.ref.yours', { type: referenceType(a.destinationExternalReference.type), value: a.destinationExternalReference.value }));
  }
  return [...new Set(parts)].join(', ');
}

/** The last two revisions side by side, term by term: what the counterproposal changed. */
function revisionDiff(revisions, ctx) {
  const [before, after] = revisions.slice(-2);
  const terms = [...new Set((after.changes ?? []).map((c) => c.term))];
  return el(
    'table',
    { class: 'criteria revision-diff' },
    el('caption', {}, t('tender.diff.caption', { before: before.number, after: after.number })),
    el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, t('tender.diff.term')), el('th', { scope: 'col' }, t('tender.diff.revision', { number: before.number, author: nameOf(before.authorOrganizationId, ctx.names) })), el('th', { scope: 'col' }, t('tender.diff.revision', { number: after.number, author: nameOf(after.authorOrganizationId, ctx.names) })))),
    el('tbody', {}, terms.map((term) => el('tr', {}, el('th', { scope: 'row' }, statusOf(term)), el('td', {}, termText(before.terms?.[term], ctx)), el('td', { class: 'changed' }, termText(after.terms?.[term], ctx))))),
  );
}

/**
 * A slot for the broker's refusal and a wrapper for an action's handler that clears the slot,
 * runs the action and shows its refusal there (a session that ended is said by its banner): the
 * problem's title and detail, else `fallback` ("Refused", or what the action says, "Not issued").
 */
function guarded(fallback = t('problem.refused')) {
  const problem = el('p', { class: 'field-error', role: 'alert' });
  const run = (fn) => async (event) => {
    event?.preventDefault();
    problem.textContent = '';
    try {
      await fn();
    } catch (err) {
      if (err?.sessionEnded) return;
      problem.textContent = `${err?.problem?.title ?? fallback}${err?.problem?.detail ? `: ${err.problem.detail}` : ''}`;
    }
  };
  return [problem, run];
}

/** Accept or reject the current revision, or counter it with another price. */
function tenderActions(tender, ctx) {
  const decided = (tender.decisions ?? []).some((d) => d.organizationId === ctx.me && d.revision === tender.currentRevision);
  const [problem, run] = guarded();
  if (decided) return el('p', { class: 'muted' }, t('tender.waiting', { revision: tender.currentRevision, partner: nameOf(tender.issuingOrganizationId === ctx.me ? tender.executingOrganizationId : tender.issuingOrganizationId, ctx.names) }));
  const currency = tenderCurrency(tender);
  const price = el('input', { id: `counter-price-${tender.id}`, type: 'number', min: '0', step: '0.01', required: true });
  const reason = el('input', { id: `counter-reason-${tender.id}`, placeholder: t('common.why') });
  return el(
    'div',
    { class: 'tender-actions' },
    el('div', { class: 'actions' },
      el('button', { type: 'button', class: 'accept', onclick: run(() => ctx.onTender(tender, 'accept')) }, t('tender.acceptRevision', { revision: tender.currentRevision })),
      el('button', { type: 'button', class: 'reject', onclick: run(() => ctx.onTender(tender, 'reject')) }, t('tender.reject'))),
    el('form', { class: 'action', onsubmit: run(() => ctx.onTender(tender, 'counter', { price: { amount: Number(price.value), currency }, reason: reason.value.trim() || t('tender.counter.defaultReason') })) },
      el('label', { for: price.id }, t('tender.counterPrice', { currency: currencyName(currency) })), price, el('label', { for: reason.id }, t('common.reason')), reason, el('button', { type: 'submit' }, t('tender.counter'))),
    problem,
  );
}

/** Amend the committed price (a new revision both decide on), or cancel the commitment, with a reason. */
function commitmentActions(c, ctx) {
  const [problem, run] = guarded();
  const currency = c.acceptedRevision?.terms?.commercialTerms?.currency ?? 'EUR';
  const price = el('input', { id: `amend-price-${c.id}`, type: 'number', min: '0', step: '0.01', required: true });
  const why = el('input', { id: `amend-reason-${c.id}`, placeholder: t('common.why') });
  const cancelWhy = el('input', { id: `cancel-reason-${c.id}`, placeholder: t('common.why') });
  return el(
    'div',
    { class: 'commitment-actions tender-actions' },
    el('form', { class: 'action', onsubmit: run(() => ctx.onCommitment(c, 'amend', { price: { amount: Number(price.value), currency }, reason: why.value.trim() || t('commitment.amend.defaultReason') })) },
      el('label', { for: price.id }, t('commitment.amendPrice', { currency: currencyName(currency) })), price, el('label', { for: why.id }, t('common.reason')), why, el('button', { type: 'submit' }, t('commitment.amend'))),
    el('form', { class: 'action', onsubmit: run(() => ctx.onCommitment(c, 'cancel', { reason: cancelWhy.value.trim() || t('commitment.cancel.defaultReason') })) },
      el('label', { for: cancelWhy.id }, t('commitment.cancelReason')), cancelWhy, el('button', { type: 'submit', class: 'reject' }, t('commitment.cancel'))),
    problem,
  );
}

/**
 * A tender for the accepted match: its price (the truck's price the match disclosed, else empty:
 * never one's own load price unasked), open until a time; the other terms come from the match.
 */
function issueForm(ctx) {
  const until = new Date(Date.now() + 24 * 3600_000);
  const offered = ctx.tenderPrice;
  const currency = offered?.currency ?? ctx.currency ?? 'EUR';
  const price = el('input', { id: 'tender-price', type: 'number', min: '0', step: '0.01', required: true, value: offered ? String(offered.amount) : '' });
  const expires = dateTimeInput({ id: 'tender-expires', value: localInput(until) });
  const [problem, run] = guarded(t('tender.notIssued'));
  return el('form', { class: 'action issue-tender', onsubmit: run(() => ctx.onIssueTender({ expiresAt: new Date(expires.value).toISOString(), price: { amount: Number(price.value), currency } })) },
    el('label', { for: price.id }, t('tender.price', { currency: currencyName(currency) })), price,
    el('label', { for: 'tender-expires' }, t('tender.openUntil')), expires, el('button', { type: 'submit' }, t('tender.issue')), problem);
}

/** A currency as the planner writes it: "€", "zł", else its code. */
export function currencyName(code) {
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency: code, currencyDisplay: 'narrowSymbol' }).formatToParts(0).find((p) => p.type === 'currency')?.value ?? code;
  } catch {
    return code;
  }
}

/** The currency the tender is negotiated in: its current revision's price, else euro. */
const tenderCurrency = (tender) => [...(tender.revisions ?? [])].reverse().find((r) => r.terms?.commercialTerms)?.terms.commercialTerms.currency ?? 'EUR';

/** A stop of the package in one line: "Pickup at Hafen DC, Kaistraße 7, 20457 Hamburg, Germany; 27 Nov, 10:00–12:00; Gate desk +49 40 123456". */
const stopRole = (role) => (has(`handover.stop.${role}`) ? t(`handover.stop.${role}`) : statusOf(role));
function stopLine(s) {
  const contacts = (s.contacts ?? []).map((c) => [c.name, c.phone, c.email].filter(Boolean).join(' ')).join(', ');
  return [t('handover.stopAt', { role: stopRole(s.role), address: [s.location?.name, addressOf(s.location?.address)].filter(Boolean).join(', ') }), windowOf(s.timeWindow), s.instructions, contacts].filter(Boolean).join('; ');
}

/** An external reference's type in words ("trip", "order"), else as the record spells it. */
const referenceType = (type) => (has(`handover.refType.${type}`) ? t(`handover.refType.${type}`) : type);

/** The handover: its state, the package as the executing organization will drive it, its acknowledgements, and the acknowledgement form for the executing organization. */
function handoverView(h, ctx) {
  const pkg = h.package ?? {};
  const cargo = pkg.cargo ? [pkg.cargo.description, capacityOf({ weight: pkg.cargo.weight, palletSpaces: pkg.cargo.palletSpaces, loadingMetres: pkg.cargo.loadingMetres })].filter(Boolean).join(', ') : '';
  const acks = (h.acknowledgements ?? []).map((a) =>
    el('li', {}, [
      t('handover.ack', { outcome: statusOf(a.outcome), organization: nameOf(h.executingOrganizationId, ctx.names), when: when(a.acknowledgedAt ?? a.recordedAt) }),
      a.destinationExternalReference ? ` ${t('handover.ack.as', { type: referenceType(a.destinationExternalReference.type), value: a.destinationExternalReference.value })}` : '',
      a.reason ? `: ${a.reason}` : '',
    ].join('')),
  );
  const mayAcknowledge = ctx.onAcknowledge && h.executingOrganizationId === ctx.me && ['offered', 'quarantined'].includes(h.status);
  return el(
    'div',
    { class: 'handover' },
    t('handover.title', { from: nameOf(h.issuingOrganizationId, ctx.names), to: nameOf(h.executingOrganizationId, ctx.names), status: statusOf(h.status) }),
    el('ol', { class: 'sub package' },
      (pkg.stops ?? []).map((s) => el('li', {}, stopLine(s))),
      cargo ? el('li', {}, t('handover.cargo', { cargo })) : '',
      pkg.instructions ? el('li', {}, t('handover.instructions', { text: pkg.instructions })) : '',
      (pkg.contacts ?? []).length ? el('li', {}, contactsView(pkg.contacts)) : '',
      (h.sourceExternalReferences ?? []).length ? el('li', {}, t(h.issuingOrganizationId === ctx.me ? 'handover.yourReference' : 'handover.theirReference', { references: h.sourceExternalReferences.map((r) => `${referenceType(r.type)} ${r.value}`).join(', ') })) : '',
      acks),
    mayAcknowledge ? acknowledgeForm(h, ctx) : '',
  );
}

/**
 * The package's contacts, their phone numbers and e-mail addresses tappable (tel:, mailto:): the
 * same words as before ("Contacts: dispatch Hafen DC +49 40 123456"), a planner on a phone calls
 * with one tap.
 */
function contactsView(contacts) {
  const [before, after = ''] = t('handover.contacts', { contacts: '\u0000' }).split('\u0000');
  const parts = contacts.flatMap((c, i) => [
    i ? ', ' : '',
    [statusOf(c.role), c.name].filter(Boolean).join(' '),
    c.phone ? [' ', el('a', { href: `tel:${c.phone.replace(/[^+0-9]/g, '')}` }, c.phone)] : '',
    c.email ? [' ', el('a', { href: `mailto:${c.email}` }, c.email)] : '',
  ]);
  return [before, ...parts.flat(), after];
}

/** The carrier takes the package into its plan under its own reference, or refuses it with a reason. */
function acknowledgeForm(h, ctx) {
  const [problem, run] = guarded();
  const reference = el('input', { id: `ack-reference-${h.id}`, placeholder: t('handover.tripPlaceholder') });
  const reason = el('input', { id: `ack-reason-${h.id}`, placeholder: t('common.why') });
  return el(
    'div',
    { class: 'handover-actions tender-actions' },
    el('form', { class: 'action', onsubmit: run(() => ctx.onAcknowledge(h, { outcome: 'imported', destinationExternalReference: { system: 'pcx-console', type: 'trip', value: reference.value.trim() || `trip-${h.id.slice(0, 8)}` } })) },
      el('label', { for: reference.id }, t('handover.tripReference')), reference, el('button', { type: 'submit', class: 'accept' }, t('handover.take'))),
    el('form', { class: 'action', onsubmit: run(() => ctx.onAcknowledge(h, { outcome: 'rejected', reason: reason.value.trim() || t('handover.refuse.defaultReason') })) },
      el('label', { for: reason.id }, t('handover.refuseReason')), reason, el('button', { type: 'submit', class: 'reject' }, t('handover.refuse'))),
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
    const where = `${stopRole(s.role)} ${s.sequence}`;
    const street = field(`street-${s.sequence}`, address.lines?.[0] ?? '', { required: true });
    const postal = field(`postal-${s.sequence}`, address.postalCode ?? '');
    const city = field(`city-${s.sequence}`, address.city ?? (s.area?.kind === 'unlocode' ? placeOf(s.area, ctx.places) : ''), { required: true });
    const country = field(`country-${s.sequence}`, address.countryCode ?? countryOf(s.area) ?? '', { required: true, maxlength: '2', size: '3' });
    return {
      nodes: el('fieldset', { class: 'stop' }, el('legend', {}, `${where}, ${placeOf(s.area, ctx.places)}, ${windowOf(s.timeWindow)}`),
        labelled(street, t('handover.street', { stop: where })), labelled(postal, t('handover.postalCode')), labelled(city, t('handover.city')), labelled(country, t('handover.country'))),
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
    el('h5', {}, t('handover.to', { partner: nameOf(c.executingOrganizationId, ctx.names) })),
    stopFields.map((f) => f.nodes),
    labelled(contact, t('handover.contact')), labelled(phone, t('handover.phone')), labelled(email, t('handover.email')), labelled(instructions, t('handover.driverInstructions')), labelled(ours, t('handover.orderReference')),
    el('button', { type: 'submit' }, t('handover.send')),
    problem,
  );
}

const MILESTONES = ['atPickup', 'pickedUp', 'inTransit', 'delayed', 'atDelivery', 'delivered', 'failed'];
const OUTCOMES = ['completed', 'failed', 'disputed', 'cancelled'];
/** Why a head is corrected, in the specification's vocabulary (CorrectionRequest.correctionReasonCode). */
const CORRECTION_CODES = ['DATA_ENTRY_ERROR', 'LATE_INFORMATION', 'DISPUTE_RESOLVED', 'PARTIAL_EXECUTION', 'CLAIM_SETTLED', 'OTHER'];

/** A time as the date-and-time fields hold it (console/datetime.js: the browser's zone, to the minute). */
export const localInput = (date) => (date ? new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16) : '');

/**
 * A time field that means "now" until the planner touches it: its value is filled when the form
 * is drawn, but a form left open for an hour still reports the moment it is sent, not when it was drawn.
 */
function timeField(id, initial) {
  const input = dateTimeInput({ id, value: localInput(initial ?? new Date()) });
  let touched = Boolean(initial);
  input.addEventListener('input', () => void (touched = true));
  return { input, iso: () => (touched && input.value ? new Date(input.value).toISOString() : new Date().toISOString()) };
}

/** When a milestone of the reference last happened, as a Date (undefined when never reported). */
function lastMilestone(facts, names) {
  const u = [...facts.updates].reverse().find((x) => names.includes(x.milestone));
  return u ? new Date(u.occurredAt) : undefined;
}

/**
 * What the carrier's planner reports: a milestone when it happened (now by default), and the
 * outcome: completed with when the movement actually started and ended (the broker requires both,
 * filled from the pickup and delivery milestones), failed, disputed or cancelled with a note. Once
 * an outcome is recorded, the form corrects it: the same fields with a reason the other side reads.
 */
function reportForm(facts, ctx) {
  const id = facts.reference.id;
  const milestone = el('select', { id: `report-milestone-${id}` }, MILESTONES.map((m) => el('option', { value: m }, statusOf(m))));
  const at = timeField(`report-at-${id}`);
  const head = facts.outcomes.find((o) => !o.supersededByOutcomeId);
  const outcome = el('select', { id: `report-outcome-${id}` }, OUTCOMES.map((o) => el('option', { value: o }, statusOf(o))));
  // The movement's times: from the first pickup milestone (else the match) to the delivery (else now).
  const created = facts.reference.createdAt ? new Date(facts.reference.createdAt) : undefined;
  const pickedUp = lastMilestone(facts, ['pickedUp', 'atPickup']) ?? created;
  const delivered = lastMilestone(facts, ['delivered', 'atDelivery']);
  const start = dateTimeInput({ id: `outcome-start-${id}`, value: localInput(pickedUp) });
  const end = timeField(`outcome-end-${id}`, delivered);
  const times = el('fieldset', { class: 'outcome-times' }, el('legend', {}, t('report.actualTimes')),
    el('label', { for: start.id }, t('report.started')), start, el('label', { for: end.input.id }, t('report.ended')), end.input);
  const note = el('input', { id: `outcome-note-${id}`, placeholder: t(head ? 'report.correctionReasonPlaceholder' : 'report.notePlaceholder') });
  const code = el('select', { id: `outcome-code-${id}` }, CORRECTION_CODES.map((c) => el('option', { value: c }, t(`report.correctionCode.${c}`))));
  const showTimes = () => void (times.hidden = outcome.value !== 'completed');
  outcome.addEventListener('change', showTimes);
  showTimes();
  const [problem, run] = guarded(t('report.notReported'));
  const outcomeFields = () => ({
    status: outcome.value,
    ...(outcome.value === 'completed' ? { actualTimeRange: { start: new Date(start.value).toISOString(), end: end.iso() } } : {}),
    ...(!head && note.value.trim() ? { operationalDeviations: [{ code: `CONSOLE_${outcome.value.toUpperCase()}`, description: note.value.trim() }] } : {}),
  });
  const sendMilestone = run(() => ctx.onReport('milestone', { milestone: milestone.value, occurredAt: at.iso() }));
  const sendOutcome = run(() =>
    head
      ? ctx.onReport('correction', { ...outcomeFields(), outcomeId: head.id, observedOutcomeVersion: head.resourceVersion, correctionReason: note.value.trim() || t('report.correction.defaultReason'), correctionReasonCode: code.value })
      : ctx.onReport('outcome', outcomeFields()),
  );
  return el(
    'div',
    { class: 'report' },
    el('h4', {}, t('report.title')),
    el('form', { class: 'action', onsubmit: sendMilestone }, el('label', { for: milestone.id }, t('report.milestone')), milestone, el('label', { for: at.input.id }, t('report.at')), at.input, el('button', { type: 'submit' }, t('report.sendMilestone'))),
    el('form', { class: 'action outcome-form', onsubmit: sendOutcome },
      el('h5', {}, t(head ? 'report.correctTitle' : 'report.outcomeTitle')),
      el('label', { for: outcome.id }, t('report.outcome')), outcome, times,
      head ? [el('label', { for: code.id }, t('report.correctionCode')), code] : '',
      el('label', { for: note.id }, t(head ? 'report.correctionReason' : 'report.note')), note,
      el('button', { type: 'submit' }, t(head ? 'report.sendCorrection' : 'report.sendOutcome'))),
    problem,
  );
}

export { reasonOf };
