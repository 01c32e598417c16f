// The selected proposal drawn as components (./ui.js): its explanation in sentences, the decisions,
// what the partner disclosed, and the match's whole path from tender to outcome with the forms
// of the commands the planner's role allows (console/proposal-actions.js makes them; absent
// commands draw no form). Each form is a component with its own state, so what a planner typed,
// the problem a refusal left and the focus survive the redraws that follow every event; each is
// keyed by its record (a tender, a commitment, a handover, an execution), so state never moves to
// another record's form. Words in the planner's language (console/format.js); nothing the broker
// returns is parsed as HTML.
import { html, useLayoutEffect, useRef, useState } from './ui.js';
import { upgradeDateTimeInput } from './datetime.js';
import { addressOf, capacityOf, countryOf, criterionName, distanceModelText, explanationOf, has, km, laneOf, moneyOf, nameOf, placeOf, statusOf, t, when, windowOf } from './format.js';
import { currencyName, localInput, proposalState } from './views.js';
import { Lane } from './lane.js';

/**
 * A command's runner and the slot for its refusal: `run(fn)` is a handler (a form's submit, a
 * button's click) that clears the problem, runs the command and shows its refusal (the problem's
 * title and detail, else `fallback`: "Refused", or the form's own word, "Not issued"); a session
 * that ended is said by its banner, not here.
 */
function useCommand(fallback = t('problem.refused')) {
  const [problem, setProblem] = useState('');
  const run = (fn) => async (event) => {
    event?.preventDefault();
    setProblem('');
    try {
      await fn();
    } catch (err) {
      if (err?.sessionEnded) return;
      setProblem(`${err?.problem?.title ?? fallback}${err?.problem?.detail ? `: ${err.problem.detail}` : ''}`);
    }
  };
  return [html`<p class="field-error" role="alert">${problem}</p>`, run];
}

/** A text field's value kept by its component: [props for the <input>, the value]. */
function useField(initial = '') {
  const [value, setValue] = useState(initial);
  return [{ value, onInput: (e) => setValue(e.currentTarget.value) }, value, setValue];
}

/**
 * A date-and-time field (console/datetime.js: the planner's writing, a calendar, the form's value
 * as local time to the minute), read through `field.current.value` when its form is sent. With
 * `untilTouched`, its time means "now" until the planner touches it (`field.current.touched`): a
 * form left open for an hour reports the moment it is sent, not when it was drawn.
 */
function DateTimeField({ id, initial, field, untilTouched = false }) {
  const input = useRef(null);
  useLayoutEffect(() => {
    const node = upgradeDateTimeInput(input.current, localInput(initial ?? new Date()));
    const state = { touched: !untilTouched || Boolean(initial) };
    node.addEventListener('input', () => void (state.touched = true));
    field.current = { get value() { return node.value; }, get touched() { return state.touched; } };
  }, []);
  return html`<input id=${id} ref=${input} autocomplete="off" spellcheck=${false} />`;
}

/** A date field's moment as ISO: now while untouched (see DateTimeField). */
const momentOf = (field) => (field.current?.touched && field.current.value ? new Date(field.current.value).toISOString() : new Date().toISOString());

/** Figures as text for the table of criteria: "required: 8000; remaining: 24000; unit: KGM". */
const figures = (f) =>
  f
    ? Object.entries(f)
        .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.map((x) => (typeof x === 'object' ? JSON.stringify(x) : x)).join(', ') : v !== null && typeof v === 'object' ? JSON.stringify(v) : v}`)
        .join('; ')
    : '';

/** The disclosed restricted details, as labelled values. */
function Disclosed({ details }) {
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
  return html`<dl class="disclosed">${rows.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>`;
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
  const line = t(d.decision === 'accept' ? 'proposal.decision.accept' : 'proposal.decision.reject', { organization: nameOf(d.organizationId, ctx.names), when: when(d.decidedAt), by: deciderOf(d, ctx) });
  return d.comment ? `${line}: ${t('common.quote', { text: d.comment })}` : line;
}

/** What the load is, in one line: lane, pickup window, capacity. */
function loadLine(request, ctx) {
  if (!request) return t('proposal.listingGone');
  return [laneOf(request, ctx.places), windowOf(request.pickupWindow), capacityOf(request.requiredCapacity)].filter(Boolean).join(' · ');
}

/** One line of the inbox: lane, dates, capacity, partner, price where disclosed, state. */
export function ProposalItem({ p, ctx, selected, isNew, onSelect }) {
  const counterpart = p.offerOwnerOrganizationId === ctx.me ? p.requestOwnerOrganizationId : p.offerOwnerOrganizationId;
  const offer = ctx.listings?.get(p.capacityOfferId);
  const request = ctx.listings?.get(p.loadRequestId);
  // The load's lane, else the truck's (a partner's request is no longer listed once it is matched).
  const lane = request ?? offer;
  const waiting = p.status === 'open' && !(p.decisions ?? []).some((d) => d.organizationId === ctx.me);
  const price = ctx.priceOf?.(p);
  const line = [request ? windowOf(request.pickupWindow) : '', request ? capacityOf(request.requiredCapacity) : '', price ? moneyOf(price) : '', t('proposal.with', { partner: nameOf(counterpart, ctx.names) }), p.score !== undefined ? t('proposal.score', { percent: Math.round(p.score * 100) }) : ''];
  const stateWord = waiting ? t('proposal.yourDecision') : p.status === 'accepted' ? t('proposal.short.matched') : p.status === 'open' ? t('proposal.short.waitingForThem') : statusOf(p.status);
  return html`<li><button type="button" class=${`proposal-item status-${p.status}`} aria-pressed=${selected ? 'true' : 'false'} data-proposal=${p.id} onClick=${() => onSelect(p.id)}>
    ${isNew ? html`<span class="badge new">${t('proposal.new')}</span>` : ''}<span class="lane">${lane ? html`<${Lane} listing=${lane} places=${ctx.places} />` : t('proposal.title')}</span><span class="line">${line.filter(Boolean).join(' · ')}</span><span class=${`state ${waiting ? 'waiting' : ''}`}>${stateWord}</span>
  </button></li>`;
}

/** The inbox: the organization's proposals, newest first as read, the selected one pressed; or the word that there are none. */
export function Inbox({ proposals, ctx, selected, isNew, onSelect }) {
  if (!proposals.length) return html`<li class="muted">${t('console.noProposals')}</li>`;
  return proposals.map((p) => html`<${ProposalItem} key=${p.id} p=${p} ctx=${ctx} selected=${p.id === selected} isNew=${isNew(p)} onSelect=${onSelect} />`);
}

/**
 * The proposal with its explanation in sentences (the criteria as data for the curious), the
 * decisions the user may take, what the partner disclosed and, once matched, the path to the
 * outcome (`facts`, console/proposal-actions.js readPath; its commands in `ctx`).
 */
export function ProposalDetail({ p, ctx, disclosed, facts }) {
  const { me, names, canDecide, onDecide } = ctx;
  const mine = p.offerOwnerOrganizationId === me ? 'offer' : 'request';
  const counterpart = mine === 'offer' ? p.requestOwnerOrganizationId : p.offerOwnerOrganizationId;
  const offer = ctx.listings?.get(p.capacityOfferId);
  const request = ctx.listings?.get(p.loadRequestId);
  const decidedByUs = (p.decisions ?? []).some((d) => d.organizationId === me);
  const open = p.status === 'open' && p.decisionState !== 'COMMITTING';
  const route = p.routeCompatibility ?? {};
  const sentences = explanationOf(p, { places: ctx.places, request, offer });
  const mark = (s) => (!s.ok ? ['fail', '✗', 'proposal.mark.fail'] : s.applies ? ['pass', '✓', 'proposal.mark.pass'] : ['not-applicable', '–', 'proposal.mark.notApplicable']);
  const lane = request ?? offer;
  return html`<div>
    <h3>${lane ? html`<${Lane} listing=${lane} places=${ctx.places} />` : t('proposal.title')}${t(mine === 'offer' ? 'proposal.heading.offer' : 'proposal.heading.request', { partner: nameOf(counterpart, names) })}</h3>
    <p class="facts">${[request ? t('proposal.facts.load', { load: loadLine(request, ctx) }) : '', offer ? ` ${t('proposal.facts.truck', { truck: [statusOf(offer.vehicleProfile?.bodyType), capacityOf(offer.availableCapacity), windowOf(offer.availabilityWindow)].filter(Boolean).join(', ') })}` : ''].join('')}</p>
    <p class="proposal-state"><strong>${proposalState(p, me, names)}</strong>${` ${t('proposal.scoreLine', { score: p.score !== undefined ? `${Math.round(p.score * 100)} %` : t('proposal.score.none') })}`}</p>
    <h4>${t('proposal.why')}</h4>
    <ul class="explanation">${sentences.map((s) => {
      const [cls, sign, label] = mark(s);
      return html`<li class=${cls}><span class="mark" aria-label=${t(label)}>${sign}</span>${` ${s.text}`}</li>`;
    })}</ul>
    <p class="route">${t('proposal.route', { offer: km(route.offerDistanceKm), load: km(route.loadDistanceKm), model: distanceModelText(route.distanceModel) })}</p>
    <details class="as-data">
      <summary>${t('proposal.asData')}</summary>
      <table class="criteria">
        <caption>${t('proposal.criteria.caption')}</caption>
        <thead><tr><th scope="col">${t('proposal.criteria.criterion')}</th><th scope="col">${t('proposal.criteria.result')}</th><th scope="col">${t('proposal.criteria.reasonCode')}</th><th scope="col">${t('proposal.criteria.figures')}</th></tr></thead>
        ${/* Each cell names its column (data-label): on a phone the rows stack as cards, read without scrolling sideways. */ ''}
        <tbody>${(p.compatibility ?? []).map((c) => html`<tr class=${`result-${c.result}`}>
          <th scope="row" title=${criterionName(c.criterion)}>${c.criterion}</th>
          <td data-label=${t('proposal.criteria.result')}>${c.result}</td>
          <td data-label=${t('proposal.criteria.reasonCode')}><code>${c.reasonCode ?? ''}</code></td>
          <td data-label=${t('proposal.criteria.figures')}>${figures(c.figures)}</td>
        </tr>`)}</tbody>
      </table>
      <p>${t('proposal.rationale', { summary: p.rationale?.summary ?? '' })}</p>
    </details>
    <h4>${t('proposal.decisions')}</h4>
    <ul class="decisions">${(p.decisions ?? []).length ? p.decisions.map((d) => html`<li key=${d.id ?? d.organizationId}>${decisionLine(d, ctx)}</li>`) : html`<li>${t('proposal.decisions.none')}</li>`}</ul>
    ${open && !decidedByUs && canDecide
      ? html`<p class="disclosure">${t(mine === 'offer' ? 'proposal.disclosure.offer' : 'proposal.disclosure.request', { partner: nameOf(counterpart, names) })}</p>
          <div class="actions"><button type="button" class="accept" onClick=${() => onDecide(p, 'accept')}>${t('proposal.accept')}</button><button type="button" class="reject" onClick=${() => onDecide(p, 'reject')}>${t('proposal.reject')}</button></div>`
      : ''}
    ${open && !decidedByUs && !canDecide ? html`<p class="muted">${t('proposal.viewerOnly')}</p>` : ''}
    ${disclosed ? html`<h4>${t('proposal.disclosedBy', { partner: nameOf(counterpart, names) })}</h4><${Disclosed} details=${disclosed} />` : ''}
    ${facts ? html`<${Timeline} facts=${facts} ctx=${ctx} />` : ''}
  </div>`;
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
const termsOf = (changes, ctx) => (changes ?? []).map((c) => `${statusOf(c.term)}: ${termText(c.after, ctx)}`);

/** The transport has its outcome (completed, failed or cancelled): the execution is closed. */
const finished = (facts) => (facts.outcomes ?? []).length > 0 || ['completed', 'failed', 'cancelled'].includes(facts.reference?.status);

/** Tenders with their revisions, the commitment, the handover, milestones and outcomes, in order. */
export function Timeline({ facts, ctx }) {
  const { names } = ctx;
  const steps = [];
  for (const tender of facts.tenders) {
    const all = facts.revisions[tender.id] ?? [];
    steps.push(html`<li key=${`tender-${tender.id}`}>
      ${t('timeline.tender', { issuer: nameOf(tender.issuingOrganizationId, names), status: statusOf(tender.status), revision: tender.currentRevision })}
      ${all.length
        ? html`<ol class="sub">${all.map((r) => html`<li class="revision" key=${r.number}>${t(r.number === 1 ? 'timeline.revision.issued' : 'timeline.revision.changed', { number: r.number, author: nameOf(r.authorOrganizationId, names), when: when(r.createdAt), terms: termsOf(r.changes, ctx).join('; ') || t('timeline.noTerm') })}${r.reason ? ` ${t('timeline.revision.reason', { reason: r.reason })}` : ''}${r.outcome ? ` (${statusOf(r.outcome)})` : ''}</li>`)}</ol>`
        : ''}
      ${all.length > 1 ? html`<${RevisionDiff} revisions=${all} ctx=${ctx} />` : ''}
      ${ctx.onTender && ['issued', 'amending'].includes(tender.status) ? html`<${TenderActions} key=${tender.id} tender=${tender} ctx=${ctx} />` : ''}
    </li>`);
  }
  if (!facts.tenders.length && ctx.onIssueTender) steps.push(html`<li key="issue"><${IssueForm} ctx=${ctx} /></li>`);
  for (const c of facts.commitments) {
    const revision = c.acceptedRevision?.number ?? c.acceptedRevision;
    const price = moneyOf(c.acceptedRevision?.terms?.commercialTerms);
    const sealed = price ? t('timeline.commitment.price', { status: statusOf(c.status), revision: revision ?? '?', price }) : t('timeline.commitment', { status: statusOf(c.status), revision: revision ?? '?' });
    // The order numbers a planner knows in front; the digest behind "verify" for whoever checks the seal.
    const refs = referencesOf(c, facts, ctx);
    steps.push(html`<li key=${`commitment-${c.id}`}>
      ${sealed}${refs ? ` · ${refs}` : ''}
      <details class="seal"><summary>${t('timeline.commitment.verify')}</summary>
        <p>${t('timeline.digest', { algorithm: c.digest?.algorithm ?? '', canonicalization: c.digest?.canonicalization ?? '' })}${' '}<code class="digest">${c.digest?.value ?? ''}</code></p>
      </details>
      ${/* Once the transport has its outcome there is nothing left to amend or cancel: the finished transport offers neither. */ ''}
      ${ctx.onCommitment && c.status === 'active' && !finished(facts) ? html`<${CommitmentActions} key=${c.id} c=${c} ctx=${ctx} />` : ''}
    </li>`);
  }
  for (const h of facts.handovers) steps.push(html`<li key=${`handover-${h.id}`}><${Handover} h=${h} ctx=${ctx} /></li>`);
  // The shipper hands over the active commitment's execution package (one per commitment version).
  const active = facts.commitments.find((c) => c.status === 'active');
  if (active && ctx.onHandover && active.issuingOrganizationId === ctx.me && !facts.handovers.some((h) => h.commitmentId === active.id)) steps.push(html`<li key=${`handover-form-${active.id}`}><${HandoverForm} key=${active.id} c=${active} ctx=${ctx} /></li>`);
  if (facts.reference) {
    const milestones = facts.updates.map((u, i) => html`<li key=${`u-${u.id ?? i}`}>${`${when(u.occurredAt)}: ${statusOf(u.milestone ?? u.kind ?? 'update')}`}</li>`);
    const outcomes = facts.outcomes.map((o, i) => html`<li key=${`o-${o.id ?? i}`} class=${o.supersededByOutcomeId ? 'superseded' : ''}>${outcomeLine(o)}</li>`);
    steps.push(html`<li key="execution">${executionStep(facts.reference, facts.updates)}${milestones.length || outcomes.length ? html`<ol class="sub">${milestones}${outcomes}</ol>` : ''}</li>`);
  }
  // The carrier without a TMS reports here (the broker decides who may: its problem is shown).
  const report = facts.reference && ctx.onReport && facts.reference.carrierOrganizationId === ctx.me && !['completed', 'cancelled'].includes(facts.reference.status);
  return html`<section class="timeline" aria-label=${t('timeline.label')}>
    <h4>${t('timeline.title')}</h4>
    ${steps.length ? html`<ol>${steps}</ol>` : html`<p class="muted">${t('timeline.none')}</p>`}
    ${report ? html`<${ReportForm} key=${facts.reference.id} facts=${facts} ctx=${ctx} />` : ''}
  </section>`;
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

/** An external reference's type in words ("trip", "order"), else as the record spells it. */
const referenceType = (type) => (has(`handover.refType.${type}`) ? t(`handover.refType.${type}`) : type);

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
function RevisionDiff({ revisions, ctx }) {
  const [before, after] = revisions.slice(-2);
  const terms = [...new Set((after.changes ?? []).map((c) => c.term))];
  const author = (r) => t('tender.diff.revision', { number: r.number, author: nameOf(r.authorOrganizationId, ctx.names) });
  return html`<table class="criteria revision-diff">
    <caption>${t('tender.diff.caption', { before: before.number, after: after.number })}</caption>
    <thead><tr><th scope="col">${t('tender.diff.term')}</th><th scope="col">${author(before)}</th><th scope="col">${author(after)}</th></tr></thead>
    <tbody>${terms.map((term) => html`<tr key=${term}><th scope="row">${statusOf(term)}</th><td>${termText(before.terms?.[term], ctx)}</td><td class="changed">${termText(after.terms?.[term], ctx)}</td></tr>`)}</tbody>
  </table>`;
}

/** The currency the tender is negotiated in: its current revision's price, else euro. */
const tenderCurrency = (tender) => [...(tender.revisions ?? [])].reverse().find((r) => r.terms?.commercialTerms)?.terms.commercialTerms.currency ?? 'EUR';

/** Accept or reject the current revision, or counter it with another price (with a reason the other side reads). */
function TenderActions({ tender, ctx }) {
  const [problem, run] = useCommand();
  const [priceInput, price] = useField();
  const [reasonInput, reason] = useField();
  const decided = (tender.decisions ?? []).some((d) => d.organizationId === ctx.me && d.revision === tender.currentRevision);
  if (decided) return html`<p class="muted">${t('tender.waiting', { revision: tender.currentRevision, partner: nameOf(tender.issuingOrganizationId === ctx.me ? tender.executingOrganizationId : tender.issuingOrganizationId, ctx.names) })}</p>`;
  const currency = tenderCurrency(tender);
  const ids = { price: `counter-price-${tender.id}`, reason: `counter-reason-${tender.id}` };
  return html`<div class="tender-actions">
    <div class="actions">
      <button type="button" class="accept" onClick=${run(() => ctx.onTender(tender, 'accept'))}>${t('tender.acceptRevision', { revision: tender.currentRevision })}</button>
      <button type="button" class="reject" onClick=${run(() => ctx.onTender(tender, 'reject'))}>${t('tender.reject')}</button>
    </div>
    <form class="action" onSubmit=${run(() => ctx.onTender(tender, 'counter', { price: { amount: Number(price), currency }, reason: reason.trim() || t('tender.counter.defaultReason') }))}>
      <label for=${ids.price}>${t('tender.counterPrice', { currency: currencyName(currency) })}</label><input id=${ids.price} type="number" min="0" step="0.01" required ...${priceInput} />
      <label for=${ids.reason}>${t('common.reason')}</label><input id=${ids.reason} placeholder=${t('common.why')} ...${reasonInput} />
      <button type="submit">${t('tender.counter')}</button>
    </form>
    ${problem}
  </div>`;
}

/** Amend the committed price (a new revision both decide on), or cancel the commitment, with a reason. */
function CommitmentActions({ c, ctx }) {
  const [problem, run] = useCommand();
  const [priceInput, price] = useField();
  const [whyInput, why] = useField();
  const [cancelInput, cancelWhy] = useField();
  const currency = c.acceptedRevision?.terms?.commercialTerms?.currency ?? 'EUR';
  const ids = { price: `amend-price-${c.id}`, why: `amend-reason-${c.id}`, cancel: `cancel-reason-${c.id}` };
  return html`<div class="commitment-actions tender-actions">
    <form class="action" onSubmit=${run(() => ctx.onCommitment(c, 'amend', { price: { amount: Number(price), currency }, reason: why.trim() || t('commitment.amend.defaultReason') }))}>
      <label for=${ids.price}>${t('commitment.amendPrice', { currency: currencyName(currency) })}</label><input id=${ids.price} type="number" min="0" step="0.01" required ...${priceInput} />
      <label for=${ids.why}>${t('common.reason')}</label><input id=${ids.why} placeholder=${t('common.why')} ...${whyInput} />
      <button type="submit">${t('commitment.amend')}</button>
    </form>
    <form class="action" onSubmit=${run(() => ctx.onCommitment(c, 'cancel', { reason: cancelWhy.trim() || t('commitment.cancel.defaultReason') }))}>
      <label for=${ids.cancel}>${t('commitment.cancelReason')}</label><input id=${ids.cancel} placeholder=${t('common.why')} ...${cancelInput} />
      <button type="submit" class="reject">${t('commitment.cancel')}</button>
    </form>
    ${problem}
  </div>`;
}

/**
 * A tender for the accepted match: its price (the truck's price the match disclosed, else empty:
 * never one's own load price unasked; followed while the planner has not typed one), open until a
 * time; the other terms come from the match.
 */
function IssueForm({ ctx }) {
  const [problem, run] = useCommand(t('tender.notIssued'));
  const [typed, setTyped] = useState(null);
  const expires = useRef(null);
  const offered = ctx.tenderPrice;
  const currency = offered?.currency ?? ctx.currency ?? 'EUR';
  const price = typed ?? (offered ? String(offered.amount) : '');
  const send = () => ctx.onIssueTender({ expiresAt: new Date(expires.current.value).toISOString(), price: { amount: Number(price), currency } });
  return html`<form class="action issue-tender" onSubmit=${run(send)}>
    <label for="tender-price">${t('tender.price', { currency: currencyName(currency) })}</label><input id="tender-price" type="number" min="0" step="0.01" required value=${price} onInput=${(e) => setTyped(e.currentTarget.value)} />
    <label for="tender-expires">${t('tender.openUntil')}</label><${DateTimeField} id="tender-expires" initial=${new Date(Date.now() + 24 * 3600_000)} field=${expires} />
    <button type="submit">${t('tender.issue')}</button>
    ${problem}
  </form>`;
}

/** A stop's role in words ("Pickup"), else as the record spells it. */
const stopRole = (role) => (has(`handover.stop.${role}`) ? t(`handover.stop.${role}`) : statusOf(role));

/** A stop of the package in one line: "Pickup at Hafen DC, Kaistraße 7, 20457 Hamburg, Germany; 27 Nov, 10:00–12:00; Gate desk +49 40 123456". */
function stopLine(s) {
  const contacts = (s.contacts ?? []).map((c) => [c.name, c.phone, c.email].filter(Boolean).join(' ')).join(', ');
  return [t('handover.stopAt', { role: stopRole(s.role), address: [s.location?.name, addressOf(s.location?.address)].filter(Boolean).join(', ') }), windowOf(s.timeWindow), s.instructions, contacts].filter(Boolean).join('; ');
}

/**
 * The package's contacts, their phone numbers and e-mail addresses tappable (tel:, mailto:): the
 * same words as before ("Contacts: dispatch Hafen DC +49 40 123456"), a planner on a phone calls
 * with one tap.
 */
function Contacts({ contacts }) {
  const [before, after = ''] = t('handover.contacts', { contacts: '\u0000' }).split('\u0000');
  return html`${before}${contacts.map((c, i) => html`${i ? ', ' : ''}${[statusOf(c.role), c.name].filter(Boolean).join(' ')}${c.phone ? html`${' '}<a href=${`tel:${c.phone.replace(/[^+0-9]/g, '')}`}>${c.phone}</a>` : ''}${c.email ? html`${' '}<a href=${`mailto:${c.email}`}>${c.email}</a>` : ''}`)}${after}`;
}

/** The handover: its state, the package as the executing organization will drive it, its acknowledgements, and the acknowledgement form for the executing organization. */
function Handover({ h, ctx }) {
  const pkg = h.package ?? {};
  const cargo = pkg.cargo ? [pkg.cargo.description, capacityOf({ weight: pkg.cargo.weight, palletSpaces: pkg.cargo.palletSpaces, loadingMetres: pkg.cargo.loadingMetres })].filter(Boolean).join(', ') : '';
  const acks = (h.acknowledgements ?? []).map((a, i) => html`<li key=${`ack-${i}`}>${[
    t('handover.ack', { outcome: statusOf(a.outcome), organization: nameOf(h.executingOrganizationId, ctx.names), when: when(a.acknowledgedAt ?? a.recordedAt) }),
    a.destinationExternalReference ? ` ${t('handover.ack.as', { type: referenceType(a.destinationExternalReference.type), value: a.destinationExternalReference.value })}` : '',
    a.reason ? `: ${a.reason}` : '',
  ].join('')}</li>`);
  const mayAcknowledge = ctx.onAcknowledge && h.executingOrganizationId === ctx.me && ['offered', 'quarantined'].includes(h.status);
  const references = h.sourceExternalReferences ?? [];
  return html`<div class="handover">
    ${t('handover.title', { from: nameOf(h.issuingOrganizationId, ctx.names), to: nameOf(h.executingOrganizationId, ctx.names), status: statusOf(h.status) })}
    <ol class="sub package">
      ${(pkg.stops ?? []).map((s, i) => html`<li key=${`stop-${i}`}>${stopLine(s)}</li>`)}
      ${cargo ? html`<li>${t('handover.cargo', { cargo })}</li>` : ''}
      ${pkg.instructions ? html`<li>${t('handover.instructions', { text: pkg.instructions })}</li>` : ''}
      ${(pkg.contacts ?? []).length ? html`<li><${Contacts} contacts=${pkg.contacts} /></li>` : ''}
      ${references.length ? html`<li>${t(h.issuingOrganizationId === ctx.me ? 'handover.yourReference' : 'handover.theirReference', { references: references.map((r) => `${referenceType(r.type)} ${r.value}`).join(', ') })}</li>` : ''}
      ${acks}
    </ol>
    ${mayAcknowledge ? html`<${AcknowledgeForm} key=${h.id} h=${h} ctx=${ctx} />` : ''}
  </div>`;
}

/** The carrier takes the package into its plan under its own reference, or refuses it with a reason. */
function AcknowledgeForm({ h, ctx }) {
  const [problem, run] = useCommand();
  const [referenceInput, reference] = useField();
  const [reasonInput, reason] = useField();
  const ids = { reference: `ack-reference-${h.id}`, reason: `ack-reason-${h.id}` };
  return html`<div class="handover-actions tender-actions">
    <form class="action" onSubmit=${run(() => ctx.onAcknowledge(h, { outcome: 'imported', destinationExternalReference: { system: 'pcx-console', type: 'trip', value: reference.trim() || `trip-${h.id.slice(0, 8)}` } }))}>
      <label for=${ids.reference}>${t('handover.tripReference')}</label><input id=${ids.reference} placeholder=${t('handover.tripPlaceholder')} ...${referenceInput} />
      <button type="submit" class="accept">${t('handover.take')}</button>
    </form>
    <form class="action" onSubmit=${run(() => ctx.onAcknowledge(h, { outcome: 'rejected', reason: reason.trim() || t('handover.refuse.defaultReason') }))}>
      <label for=${ids.reason}>${t('handover.refuseReason')}</label><input id=${ids.reason} placeholder=${t('common.why')} ...${reasonInput} />
      <button type="submit" class="reject">${t('handover.refuse')}</button>
    </form>
    ${problem}
  </div>`;
}

/**
 * The shipper's handover of an active commitment: the agreed stops at exact addresses (filled from
 * the load's restricted details where it has them), a contact, instructions and its own reference.
 */
function HandoverForm({ c, ctx }) {
  const [problem, run] = useCommand();
  const stops = c.acceptedRevision?.terms?.stops ?? [];
  // What the form starts with, once: the load's addresses, the stop's place, the planner's name, an order number.
  const [values, setValues] = useState(() => {
    const known = ctx.request?.restrictedDetails ?? {};
    const initial = { contact: ctx.userName ?? '', phone: '', email: '', instructions: '', reference: `order-${c.id.slice(0, 8)}` };
    for (const s of stops) {
      const address = (s.role === 'pickup' ? known.pickupAddress : known.deliveryAddress) ?? {};
      Object.assign(initial, {
        [`street-${s.sequence}`]: address.lines?.[0] ?? '',
        [`postal-${s.sequence}`]: address.postalCode ?? '',
        [`city-${s.sequence}`]: address.city ?? (s.area?.kind === 'unlocode' ? placeOf(s.area, ctx.places) : ''),
        [`country-${s.sequence}`]: address.countryCode ?? countryOf(s.area) ?? '',
      });
    }
    return initial;
  });
  const value = (name) => (values[name] ?? '').trim();
  const field = (name, label, attrs = {}) => {
    const id = `handover-${name}-${c.id}`;
    return html`<label for=${id}>${label}</label><input id=${id} value=${values[name] ?? ''} onInput=${(e) => setValues({ ...values, [name]: e.currentTarget.value })} ...${attrs} />`;
  };
  const send = () =>
    ctx.onHandover(c, {
      commitmentId: c.id,
      package: {
        stops: stops.map((s) => ({
          sequence: s.sequence,
          role: s.role,
          location: { address: { lines: [value(`street-${s.sequence}`)], ...(value(`postal-${s.sequence}`) ? { postalCode: value(`postal-${s.sequence}`) } : {}), city: value(`city-${s.sequence}`), countryCode: value(`country-${s.sequence}`).toUpperCase() } },
          timeWindow: s.timeWindow,
        })),
        ...(value('instructions') ? { instructions: value('instructions') } : {}),
        ...(value('contact') && (value('phone') || value('email'))
          ? { contacts: [{ role: 'dispatch', name: value('contact'), ...(value('phone') ? { phone: value('phone') } : {}), ...(value('email') ? { email: value('email') } : {}) }] }
          : {}),
      },
      sourceExternalReferences: [{ system: 'pcx-console', type: 'order', value: value('reference') }],
    });
  return html`<form class="action handover-form" onSubmit=${run(send)}>
    <h5>${t('handover.to', { partner: nameOf(c.executingOrganizationId, ctx.names) })}</h5>
    ${stops.map((s) => {
      const where = `${stopRole(s.role)} ${s.sequence}`;
      return html`<fieldset class="stop" key=${s.sequence}>
        <legend>${`${where}, ${placeOf(s.area, ctx.places)}, ${windowOf(s.timeWindow)}`}</legend>
        ${field(`street-${s.sequence}`, t('handover.street', { stop: where }), { required: true })}
        ${field(`postal-${s.sequence}`, t('handover.postalCode'))}
        ${field(`city-${s.sequence}`, t('handover.city'), { required: true })}
        ${field(`country-${s.sequence}`, t('handover.country'), { required: true, maxlength: '2', size: '3' })}
      </fieldset>`;
    })}
    ${field('contact', t('handover.contact'))}
    ${field('phone', t('handover.phone'), { type: 'tel', placeholder: '+49 40 123456' })}
    ${field('email', t('handover.email'), { type: 'email' })}
    ${field('instructions', t('handover.driverInstructions'))}
    ${field('reference', t('handover.orderReference'), { required: true })}
    <button type="submit">${t('handover.send')}</button>
    ${problem}
  </form>`;
}

const MILESTONES = ['atPickup', 'pickedUp', 'inTransit', 'delayed', 'atDelivery', 'delivered', 'failed'];
const OUTCOMES = ['completed', 'failed', 'disputed', 'cancelled'];
/** Why a head is corrected, in the specification's vocabulary (CorrectionRequest.correctionReasonCode). */
const CORRECTION_CODES = ['DATA_ENTRY_ERROR', 'LATE_INFORMATION', 'DISPUTE_RESOLVED', 'PARTIAL_EXECUTION', 'CLAIM_SETTLED', 'OTHER'];

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
function ReportForm({ facts, ctx }) {
  const id = facts.reference.id;
  const [problem, run] = useCommand(t('report.notReported'));
  const [milestone, setMilestone] = useState(MILESTONES[0]);
  const [outcome, setOutcome] = useState(OUTCOMES[0]);
  const [code, setCode] = useState(CORRECTION_CODES[0]);
  const [noteInput, note] = useField();
  const at = useRef(null);
  const start = useRef(null);
  const end = useRef(null);
  const head = facts.outcomes.find((o) => !o.supersededByOutcomeId);
  // The movement's times: from the first pickup milestone (else the match) to the delivery (else now).
  const created = facts.reference.createdAt ? new Date(facts.reference.createdAt) : undefined;
  const pickedUp = lastMilestone(facts, ['pickedUp', 'atPickup']) ?? created;
  const delivered = lastMilestone(facts, ['delivered', 'atDelivery']);
  const ids = { milestone: `report-milestone-${id}`, at: `report-at-${id}`, outcome: `report-outcome-${id}`, start: `outcome-start-${id}`, end: `outcome-end-${id}`, note: `outcome-note-${id}`, code: `outcome-code-${id}` };
  const outcomeFields = () => ({
    status: outcome,
    ...(outcome === 'completed' ? { actualTimeRange: { start: new Date(start.current.value).toISOString(), end: momentOf(end) } } : {}),
    ...(!head && note.trim() ? { operationalDeviations: [{ code: `CONSOLE_${outcome.toUpperCase()}`, description: note.trim() }] } : {}),
  });
  const sendMilestone = run(() => ctx.onReport('milestone', { milestone, occurredAt: momentOf(at) }));
  const sendOutcome = run(() =>
    head
      ? ctx.onReport('correction', { ...outcomeFields(), outcomeId: head.id, observedOutcomeVersion: head.resourceVersion, correctionReason: note.trim() || t('report.correction.defaultReason'), correctionReasonCode: code })
      : ctx.onReport('outcome', outcomeFields()),
  );
  const options = (values, word) => values.map((v) => html`<option key=${v} value=${v}>${word(v)}</option>`);
  return html`<div class="report">
    <h4>${t('report.title')}</h4>
    <form class="action" onSubmit=${sendMilestone}>
      <label for=${ids.milestone}>${t('report.milestone')}</label><select id=${ids.milestone} value=${milestone} onChange=${(e) => setMilestone(e.currentTarget.value)}>${options(MILESTONES, statusOf)}</select>
      <label for=${ids.at}>${t('report.at')}</label><${DateTimeField} id=${ids.at} field=${at} untilTouched=${true} />
      <button type="submit">${t('report.sendMilestone')}</button>
    </form>
    <form class="action outcome-form" onSubmit=${sendOutcome}>
      <h5>${t(head ? 'report.correctTitle' : 'report.outcomeTitle')}</h5>
      <label for=${ids.outcome}>${t('report.outcome')}</label><select id=${ids.outcome} value=${outcome} onChange=${(e) => setOutcome(e.currentTarget.value)}>${options(OUTCOMES, statusOf)}</select>
      <fieldset class="outcome-times" hidden=${outcome !== 'completed'}>
        <legend>${t('report.actualTimes')}</legend>
        <label for=${ids.start}>${t('report.started')}</label><${DateTimeField} id=${ids.start} initial=${pickedUp} field=${start} />
        <label for=${ids.end}>${t('report.ended')}</label><${DateTimeField} id=${ids.end} initial=${delivered} field=${end} untilTouched=${true} />
      </fieldset>
      ${head ? html`<label for=${ids.code}>${t('report.correctionCode')}</label><select id=${ids.code} value=${code} onChange=${(e) => setCode(e.currentTarget.value)}>${options(CORRECTION_CODES, (c) => t(`report.correctionCode.${c}`))}</select>` : ''}
      <label for=${ids.note}>${t(head ? 'report.correctionReason' : 'report.note')}</label><input id=${ids.note} placeholder=${t(head ? 'report.correctionReasonPlaceholder' : 'report.notePlaceholder')} ...${noteInput} />
      <button type="submit">${t(head ? 'report.sendCorrection' : 'report.sendOutcome')}</button>
    </form>
    ${problem}
  </div>`;
}
