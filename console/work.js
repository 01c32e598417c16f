// The planner's work queue, as pure data from the lists the console reads: what waits for this
// organization ("waiting for you") and what it waits for ("waiting for them"), across proposals,
// tenders and their counters, commitments to hand over, handovers to take, milestones and outcomes
// due; and "my transports", every commitment from its making to its outcome with its current step.
// No DOM here (console/work-view.js draws it); tested in test/unit/console-work.test.ts.

/** A tender's revision the organization has not yet decided, while the tender takes decisions. */
function tenderWaits(tender, me) {
  if (!['issued', 'amending'].includes(tender.status)) return undefined;
  const decided = (tender.decisions ?? []).some((d) => d.organizationId === me && d.revision === tender.currentRevision);
  const current = (tender.revisions ?? []).find((r) => r.number === tender.currentRevision);
  const kind = tender.status === 'amending' ? 'amendment' : tender.currentRevision > 1 ? 'counter' : 'tender';
  return { decided, kind, author: current?.authorOrganizationId };
}

/** The stop of a role in a commitment's agreed terms ({ timeWindow }), if any. */
const stopOf = (commitment, role) => (commitment?.acceptedRevision?.terms?.stops ?? []).find((s) => s.role === role);

/**
 * @param {object} facts { me, now (ms), proposals, tenders, commitments, handovers, references, outcomes (by reference id) }
 * @returns {{ forYou: object[], forThem: object[], transports: object[] }} items { key, kind, proposalId, partner, at }
 */
export function workQueue({ me, now = Date.now(), proposals = [], tenders = [], commitments = [], handovers = [], references = [] }) {
  const forYou = [];
  const forThem = [];
  const partnerOf = (a, b) => (a === me ? b : a);
  for (const p of proposals) {
    if (p.status !== 'open' || p.decisionState === 'COMMITTING') continue;
    const item = { kind: 'proposal', key: `proposal:${p.id}:${p.resourceVersion}`, proposalId: p.id, partner: partnerOf(p.offerOwnerOrganizationId, p.requestOwnerOrganizationId), until: p.validUntil };
    ((p.decisions ?? []).some((d) => d.organizationId === me) ? forThem : forYou).push(item);
  }
  for (const tender of tenders) {
    const waits = tenderWaits(tender, me);
    if (!waits) continue;
    const item = { kind: waits.kind, key: `tender:${tender.id}:${tender.currentRevision}`, proposalId: tender.originatingProposalId, tenderId: tender.id, revision: tender.currentRevision, partner: partnerOf(tender.issuingOrganizationId, tender.executingOrganizationId), until: tender.expiresAt };
    (waits.decided ? forThem : forYou).push(item);
  }
  const active = commitments.filter((c) => c.status === 'active');
  const handoversOf = (c) => handovers.filter((h) => h.commitmentId === c.id);
  for (const c of active) {
    const proposalId = c.capacity?.originatingProposalId;
    const partner = partnerOf(c.issuingOrganizationId, c.executingOrganizationId);
    const its = handoversOf(c);
    if (!its.length) {
      const item = { kind: 'handover', key: `handover-due:${c.id}`, proposalId, commitmentId: c.id, partner, at: stopOf(c, 'pickup')?.timeWindow?.start };
      (c.issuingOrganizationId === me ? forYou : forThem).push(item);
    }
    for (const h of its.filter((x) => ['offered', 'quarantined'].includes(x.status))) {
      const item = { kind: 'acknowledge', key: `acknowledge:${h.id}:${h.resourceVersion}`, proposalId, commitmentId: c.id, partner, at: stopOf(c, 'pickup')?.timeWindow?.start };
      (h.executingOrganizationId === me ? forYou : forThem).push(item);
    }
  }
  // Milestones and outcomes due: the carrier reports them; the shipper waits for them.
  for (const r of references) {
    if (['completed', 'cancelled'].includes(r.status)) continue;
    const c = active.find((x) => (r.commitmentIds ?? []).includes(x.id)) ?? active.find((x) => x.capacity?.originatingProposalId === r.acceptedProposalId);
    const last = r.currentMilestone?.milestone;
    const pickup = stopOf(c, 'pickup')?.timeWindow;
    const delivery = stopOf(c, 'delivery')?.timeWindow;
    let due;
    if (last === 'delivered' || last === 'failed') due = { kind: 'outcome', at: r.currentMilestone.occurredAt };
    else if (!['pickedUp', 'inTransit', 'delayed', 'atDelivery'].includes(last) && pickup?.start && Date.parse(pickup.start) <= now) due = { kind: 'pickup', at: pickup.start };
    else if (delivery?.end && Date.parse(delivery.end) <= now) due = { kind: 'delivery', at: delivery.end };
    if (!due) continue;
    const item = { ...due, key: `${due.kind}-due:${r.id}`, proposalId: r.acceptedProposalId, referenceId: r.id, partner: partnerOf(r.carrierOrganizationId, r.shipperOrganizationId) };
    (r.carrierOrganizationId === me ? forYou : forThem).push(item);
  }
  return { forYou, forThem, transports: transportsOf({ me, commitments, handovers, references }) };
}

/**
 * Every transport the organization takes part in, newest first, with its step: "handover" (to be
 * handed over), "handedOver" (waiting for the carrier to take it), "planned" (taken into the
 * carrier's plan), a milestone, "completed", "cancelled".
 */
export function transportsOf({ me, commitments = [], handovers = [], references = [] }) {
  // One line per tender: its newest commitment version (an amendment supersedes the older).
  const byTender = new Map();
  for (const c of commitments) {
    const seen = byTender.get(c.tenderId);
    if (!seen || (c.commitmentVersion ?? 0) > (seen.commitmentVersion ?? 0)) byTender.set(c.tenderId, c);
  }
  return [...byTender.values()]
    .map((c) => {
      const proposalId = c.capacity?.originatingProposalId;
      const r = references.find((x) => (x.commitmentIds ?? []).includes(c.id) || (proposalId && x.acceptedProposalId === proposalId));
      const h = handovers.filter((x) => x.commitmentId === c.id).at(-1);
      let step;
      if (c.status === 'cancelled' || r?.status === 'cancelled') step = { step: 'cancelled' };
      else if (r?.status === 'completed') step = { step: 'completed', at: r.completedAt ?? r.updatedAt };
      else if (r?.currentMilestone) step = { step: 'milestone', milestone: r.currentMilestone.milestone, at: r.currentMilestone.occurredAt };
      else if (h && ['imported', 'linked'].includes(h.status)) step = { step: 'planned' };
      else if (h && h.status === 'rejected') step = { step: 'handoverRefused' };
      else if (h) step = { step: 'handedOver' };
      else step = { step: 'handover' };
      const price = c.acceptedRevision?.terms?.commercialTerms;
      const pickup = stopOf(c, 'pickup');
      const delivery = stopOf(c, 'delivery');
      return { tenderId: c.tenderId, commitmentId: c.id, proposalId, partner: c.issuingOrganizationId === me ? c.executingOrganizationId : c.issuingOrganizationId, role: c.issuingOrganizationId === me ? 'shipper' : 'carrier', price, pickup, delivery, createdAt: c.createdAt, ...step };
    })
    .sort((a, b) => String(b.createdAt ?? '').localeCompare(String(a.createdAt ?? '')));
}

/** The steps of a transport in the order they come (sorting by "where it stands"). */
const STEP_ORDER = ['handover', 'handedOver', 'handoverRefused', 'planned', 'milestone', 'completed', 'cancelled'];

/** What each column of "my transports" sorts by; `nameOf` gives a partner's name. */
const SORT_VALUES = {
  partner: (tr, nameOf) => nameOf(tr.partner),
  role: (tr) => tr.role,
  pickup: (tr) => tr.pickup?.timeWindow?.start ?? '',
  delivery: (tr) => tr.delivery?.timeWindow?.start ?? '',
  price: (tr) => tr.price?.amount ?? -1,
  step: (tr) => STEP_ORDER.indexOf(tr.step),
};
export const TRANSPORT_COLUMNS = Object.keys(SORT_VALUES);

/**
 * The transports in the order the planner chose ({ key, direction } of a column), else as
 * transportsOf gives them (newest first); ties keep that order.
 */
export function sortTransports(transports, sort, nameOf = (id) => id) {
  if (!sort) return transports;
  const value = SORT_VALUES[sort.key];
  const sign = sort.direction === 'ascending' ? 1 : -1;
  return [...transports].sort((a, b) => {
    const x = value(a, nameOf);
    const y = value(b, nameOf);
    return sign * (typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y)));
  });
}
