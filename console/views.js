// What the console shows, as DOM built from data (textContent only: nothing the broker returns is
// ever parsed as HTML).
const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') node.className = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) node.setAttribute(k, v === true ? '' : v);
  }
  for (const child of children.flat()) if (child !== undefined && child !== null) node.append(child instanceof Node ? child : String(child));
  return node;
};
export { el };

const when = (iso) => (iso ? new Date(iso).toLocaleString('en-GB', { timeZone: 'UTC', dateStyle: 'medium', timeStyle: 'short' }) + ' UTC' : '');
const short = (id) => (id ? id.slice(-8) : '');
const figures = (f) => (f ? Object.entries(f).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : typeof v === 'object' ? JSON.stringify(v) : v}`).join('; ') : '');

/** One line of the inbox. */
export function proposalItem(p, me, selected, onSelect) {
  const counterpart = p.offerOwnerOrganizationId === me ? p.requestOwnerOrganizationId : p.offerOwnerOrganizationId;
  return el(
    'li',
    {},
    el(
      'button',
      { type: 'button', class: `proposal-item status-${p.status}`, 'aria-pressed': selected ? 'true' : 'false', 'data-proposal': p.id, onclick: () => onSelect(p.id) },
      el('span', { class: 'status' }, p.status),
      ` with ${counterpart}, score ${p.score ?? 'n/a'} `,
      el('span', { class: 'muted' }, `(${short(p.id)}, ${p.decisionState})`),
    ),
  );
}

/** The proposal with its explanation, criterion by criterion, and the decisions the user may take. */
export function proposalDetail(p, ctx) {
  const { me, canDecide, onDecide, disclosed, timeline } = ctx;
  const mine = p.offerOwnerOrganizationId === me ? 'offer' : 'request';
  const counterpart = mine === 'offer' ? p.requestOwnerOrganizationId : p.offerOwnerOrganizationId;
  const decidedByUs = (p.decisions ?? []).some((d) => d.organizationId === me);
  const open = p.status === 'open' && p.decisionState !== 'COMMITTING';
  const route = p.routeCompatibility ?? {};
  const parts = [
    el('h3', {}, `Proposal ${short(p.id)}: your ${mine} with ${counterpart}`),
    el('p', {}, el('strong', {}, `${p.status}`), ` (${p.decisionState}), score ${p.score ?? 'n/a'}, valid until ${when(p.validUntil)}`),
    el('p', { class: 'summary' }, p.rationale?.summary ?? ''),
    el('h4', {}, 'Why it was proposed'),
    el(
      'table',
      { class: 'criteria' },
      el('caption', {}, 'Compatibility, criterion by criterion'),
      el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, 'Criterion'), el('th', { scope: 'col' }, 'Result'), el('th', { scope: 'col' }, 'Reason code'), el('th', { scope: 'col' }, 'Figures'))),
      el('tbody', {}, (p.compatibility ?? []).map((c) => el('tr', { class: `result-${c.result}` }, el('th', { scope: 'row' }, c.criterion), el('td', {}, c.result), el('td', {}, c.reasonCode ?? ''), el('td', {}, figures(c.figures))))),
    ),
    el('p', {}, `Route: the offer runs ${route.offerDistanceKm ?? '?'} km, the load ${route.loadDistanceKm ?? '?'} km; pickup ${route.pickupOffsetKm ?? '?'} km and delivery ${route.deliveryOffsetKm ?? '?'} km off the offer's areas; detour ${route.detourKm ?? '?'} of ${route.allowanceKm ?? '?'} km allowed (${route.distanceModel ?? ''}).`),
    el(
      'ul',
      { class: 'capacity', 'aria-label': 'Capacity compared' },
      (p.capacityCompatibility?.compared ?? []).map((c) => el('li', {}, `${c.dimension}: ${c.required} required of ${c.remaining} ${c.unit} remaining (${c.fits ? 'fits' : 'does not fit'})`)),
    ),
    el('p', {}, `Decision policy: ${p.requiredDecisionPolicy?.mode ?? ''}.`),
    el('h4', {}, 'Decisions'),
    el('ul', { class: 'decisions' }, (p.decisions ?? []).length ? p.decisions.map((d) => el('li', {}, `${d.organizationId} ${d.decision}ed at ${when(d.decidedAt)} by ${d.decidedBy?.userId ? `user ${d.decidedBy.userId}` : `connector ${d.decidedBy?.clientId ?? ''}`}${d.comment ? `: ${d.comment}` : ''}`)) : el('li', {}, 'none yet')),
  ];
  if (open && !decidedByUs) {
    if (canDecide) {
      parts.push(
        el('p', { class: 'disclosure' }, `Accepting discloses your ${mine === 'offer' ? "offer's restricted details (its price)" : "request's restricted details (its delivery address)"} to ${counterpart} once every required organization has accepted; until then neither side sees the other's.`),
        el('div', { class: 'actions' }, el('button', { type: 'button', class: 'accept', onclick: () => onDecide(p, 'accept') }, 'Accept'), el('button', { type: 'button', class: 'reject', onclick: () => onDecide(p, 'reject') }, 'Reject')),
      );
    } else {
      parts.push(el('p', { class: 'muted' }, 'Your role does not let you decide on proposals (viewer).'));
    }
  }
  if (disclosed) parts.push(el('h4', {}, `Disclosed by ${counterpart}`), el('pre', { class: 'disclosed' }, JSON.stringify(disclosed, null, 2)));
  if (timeline) parts.push(timeline);
  return el('div', {}, parts);
}

/** Tenders with their revisions, the commitment, the handover, milestones and outcomes, in order. */
export function timelineView(t) {
  const items = [];
  for (const tender of t.tenders) {
    items.push(el('li', {}, `Tender ${short(tender.id)} by ${tender.issuingOrganizationId}: ${tender.status}, revision ${tender.currentRevision}`));
    // Side by side: what each revision changed against the one before (the first: every term set).
    for (const r of t.revisions[tender.id] ?? []) {
      const changed = (r.changes ?? []).map((c) => `${c.term}: ${figures({ after: c.after }).replace(/^after: /, '')}`);
      items.push(el('li', { class: 'sub revision' }, `revision ${r.number}${r.proposedBy ? ` by ${r.proposedBy.organizationId ?? r.proposedBy}` : ''}: ${r.number === 1 ? 'issued with ' : 'changed '}${changed.join('; ') || 'no term'}`));
    }
  }
  for (const c of t.commitments) items.push(el('li', {}, `Commitment ${short(c.id)}: ${c.status}, revision ${c.acceptedRevision}, digest `, el('code', { class: 'digest', title: `${c.digest?.algorithm ?? ''} over ${c.digest?.canonicalization ?? ''}` }, c.digest?.value ?? '')));
  for (const h of t.handovers) items.push(el('li', {}, `Handover ${short(h.id)}: ${h.status}`));
  if (t.reference) items.push(el('li', {}, `Execution reference ${short(t.reference.id)}: ${t.reference.status}`));
  for (const u of t.updates) items.push(el('li', { class: 'sub' }, `${when(u.occurredAt)}: ${u.milestone ?? u.kind ?? 'update'}`));
  for (const o of t.outcomes) items.push(el('li', { class: 'sub' }, `outcome ${o.status}${o.supersedes ? ` (corrects ${short(o.supersedes)}: ${o.correctionReason ?? ''})` : ''}`));
  return el('section', { class: 'timeline', 'aria-label': 'Execution timeline' }, el('h4', {}, 'From tender to outcome'), items.length ? el('ol', {}, items) : el('p', { class: 'muted' }, 'No tender yet.'));
}

/** The listings under the map, as text (what the map shows, for a screen reader too). */
export function listingItem(l) {
  const from = l.kind === 'offer' ? l.originArea : l.pickupArea;
  const to = l.kind === 'offer' ? l.destinationArea : l.deliveryArea;
  const name = (a) => (a?.code ?? (a?.kind === 'circle' ? `${a.radiusKm} km around ${a.center.join(', ')}` : a?.kind ?? '?'));
  return el('li', { class: `listing ${l.kind}` }, `${l.kind === 'offer' ? 'Offer' : 'Request'} of ${l.ownerOrganizationId}: ${name(from)} to ${name(to)}, ${l.status}`);
}
