// What the selected proposal's view reads and what its buttons send, apart from its drawing
// (views.js): the reads of the match's whole path (the partner's disclosed details, tenders with
// their revisions, commitments, handovers, the execution and its outcomes) and the commands the
// planner's role allows, each with the label a kept click is shown by (session.js) and its notice.
// A command the role does not allow is absent, and the view draws no button for it.
import { laneOf, moneyOf, nameOf, statusOf, t } from './format.js';

/** The path of a match from its tender to its outcome, as the views draw it. */
export async function readPath(api, p) {
  const tenders = await api.all(`/transport-tenders?proposal=${p.id}`);
  const revisions = {};
  for (const tender of tenders) revisions[tender.id] = (await api.get(`/transport-tenders/${tender.id}/revisions`)).items ?? [];
  const commitments = (await Promise.all(tenders.map((tender) => api.all(`/transport-commitments?tender=${tender.id}`)))).flat();
  const handovers = (await Promise.all(commitments.map((c) => api.all(`/execution-handovers?commitment=${c.id}`)))).flat();
  const [reference] = await api.all(`/execution-references?proposal=${p.id}`);
  const updates = reference ? ((await api.get(`/execution-references/${reference.id}/updates`)).items ?? []) : [];
  const outcomes = reference ? ((await api.get(`/execution-outcomes?executionReferenceId=${reference.id}`)).items ?? []).reverse() : [];
  return { tenders, revisions, commitments, handovers, reference, updates, outcomes };
}

/** What the partner disclosed once the match was made: the restricted details of its side of the pair. */
export async function readDisclosed(api, p, me) {
  const theirs = p.offerOwnerOrganizationId === me ? `/load-requests/${p.loadRequestId}` : `/capacity-offers/${p.capacityOfferId}`;
  return (await api.get(theirs)).restrictedDetails ?? null;
}

/**
 * The decision on a proposal. When the partner's decision moved the version a moment before (two
 * planners clicking at once), it is sent again on the current version while the proposal is still
 * open, undecided by us, and about the truck and load versions the planner read
 * (docs/decisions.md, "Two planners accepting at once"); anything else is the refusal it is.
 */
export async function decideOnProposal(api, p, decision, { me, request, places }) {
  const label = t(decision === 'accept' ? 'action.acceptProposal' : 'action.rejectProposal', { lane: request ? laneOf(request, places) : p.id.slice(-8) });
  try {
    await api.post(`/match-proposals/${p.id}/decisions`, { decision }, p.resourceVersion, label);
  } catch (err) {
    if (err?.code !== 'STALE_RESOURCE_VERSION') throw err;
    const current = await api.get(`/match-proposals/${p.id}`);
    const same = current.status === 'open' && current.capacityOfferVersion === p.capacityOfferVersion && current.loadRequestVersion === p.loadRequestVersion;
    if (!same || (current.decisions ?? []).some((d) => d.organizationId === me)) throw err;
    await api.post(`/match-proposals/${p.id}/decisions`, { decision }, current.resourceVersion, label);
  }
}

/**
 * The author's accept of the revision it just proposed (a counter or an amendment): the protocol
 * asks every organization of the policy to accept the current revision, its author included
 * (docs/decisions.md, "One click to propose and agree"); the console sends it with the proposal so
 * the planner does not click twice. Sent only while the revision is still the author's current one.
 */
async function acceptOwnRevision(api, tenderId, label, me) {
  if (!tenderId) return;
  const tender = await api.get(`/transport-tenders/${tenderId}`);
  const current = (tender.revisions ?? []).find((r) => r.number === tender.currentRevision);
  if (tender.status !== 'issued' && tender.status !== 'amending') return;
  if (current?.authorOrganizationId !== me || (tender.decisions ?? []).some((d) => d.organizationId === me && d.revision === tender.currentRevision)) return;
  await api.post(`/transport-tenders/${tenderId}/decisions`, { decision: 'accept', revision: tender.currentRevision }, tender.resourceVersion, label);
}

/**
 * The commands of a match's path the planner's scopes allow, as the timeline's handlers: each sends,
 * says what it did (`notice`) and has the proposal read and drawn again (`reread`). `facts` is the
 * path as read (readPath); `names` the partners' names.
 */
export function pathCommands({ api, p, facts, me, scopes, names, notice, reread }) {
  const may = (scope) => scopes.has(scope);
  return {
    // A milestone or the outcome, with a deduplication key per click (the Idempotency-Key's twin).
    onReport: may('execution:update')
      ? async (kind, fields) => {
          const key = crypto.randomUUID();
          const label = { milestone: () => t('action.reportMilestone', { milestone: statusOf(fields.milestone) }), outcome: () => t('action.reportOutcome', { outcome: statusOf(fields.status) }), correction: () => t('action.correctOutcome', { outcome: statusOf(fields.status) }) }[kind]();
          if (kind === 'milestone') await api.post('/execution-updates', { executionReferenceId: facts.reference.id, deduplicationKey: key, ...fields }, undefined, label);
          else if (kind === 'outcome') await api.post('/execution-outcomes', { executionReferenceId: facts.reference.id, deduplicationKey: key, schemaVersion: 'v0', ...fields }, undefined, label);
          else {
            const { outcomeId, ...correction } = fields;
            await api.post(`/execution-outcomes/${outcomeId}/corrections`, { deduplicationKey: key, schemaVersion: 'v0', ...correction }, undefined, label);
          }
          notice(t(kind === 'correction' ? 'notice.corrected' : 'notice.reported'), `${statusOf(kind === 'milestone' ? fields.milestone : fields.status)}.`);
          await reread();
        }
      : undefined,
    // The handover: the shipper sends the execution package of the active commitment (its own
    // load's addresses filled in), the carrier takes it into its plan or refuses it.
    onHandover: may('handovers:write')
      ? async (commitment, body) => {
          const partner = nameOf(commitment.executingOrganizationId, names);
          const label = t('action.handOver', { partner });
          await api.post('/execution-handovers', body, undefined, label);
          notice(t('notice.handedOver'), t('notice.handedOver.text', { partner }));
          await reread();
        }
      : undefined,
    onAcknowledge: may('handovers:acknowledge')
      ? async (handover, body) => {
          const label = body.outcome === 'rejected' ? t('action.refuseHandover') : t('action.takeHandover', { reference: body.destinationExternalReference.value });
          await api.post(`/execution-handovers/${handover.id}/acknowledgements`, body, undefined, label);
          notice(t('notice.done'), `${label}.`);
          await reread();
        }
      : undefined,
    // The negotiation: the load's owner tenders the match to the truck's owner (the carrier does not tender to itself).
    onIssueTender: may('tenders:publish') && p.requestOwnerOrganizationId === me
      ? async ({ expiresAt, price }) => {
          const carrier = p.offerOwnerOrganizationId;
          const label = t('action.issueTender', { partner: nameOf(carrier, names) });
          // The price the planner set; the other terms are prefilled from the match by the broker.
          const created = await api.post('/transport-tenders', { executingOrganizationId: carrier, originatingProposalId: p.id, movementScope: 'fullTransport', expiresAt, terms: { commercialTerms: price } }, undefined, label);
          await api.post(`/transport-tenders/${created.id}/issue`, {}, created.resourceVersion, label);
          notice(t('notice.issued'), t('notice.issued.text', { partner: nameOf(carrier, names) }));
          await reread();
        }
      : undefined,
    onCommitment: may('tenders:decide')
      ? async (commitment, what, fields) => {
          const label = what === 'amend' ? t('action.amendPrice', { price: moneyOf(fields.price) }) : t('action.cancelCommitment');
          if (what === 'amend') {
            await api.post(`/transport-commitments/${commitment.id}/amendments`, { terms: { commercialTerms: fields.price }, reason: fields.reason }, commitment.resourceVersion, label);
            // Proposing is agreeing: the author's accept of its own revision goes with it.
            await acceptOwnRevision(api, commitment.tenderId, label, me);
          } else {
            await api.post(`/transport-commitments/${commitment.id}/cancel`, { reason: fields.reason }, commitment.resourceVersion, label);
          }
          notice(t('notice.done'), `${label}.`);
          await reread();
        }
      : undefined,
    onTender: may('tenders:decide')
      ? async (tender, what, fields = {}) => {
          const label = what === 'counter' ? t('action.counter', { price: moneyOf(fields.price) }) : t(what === 'accept' ? 'action.acceptRevision' : 'action.rejectRevision', { revision: tender.currentRevision });
          if (what === 'counter') {
            await api.post(`/transport-tenders/${tender.id}/counterproposals`, { revision: tender.currentRevision, terms: { commercialTerms: fields.price }, reason: fields.reason }, tender.resourceVersion, label);
            // Proposing is agreeing: the author's accept of its own revision goes with it.
            await acceptOwnRevision(api, tender.id, label, me);
          } else {
            const decideOn = (version) => api.post(`/transport-tenders/${tender.id}/decisions`, { decision: what, revision: tender.currentRevision }, version, label);
            try {
              await decideOn(tender.resourceVersion);
            } catch (err) {
              // The other side decided a moment ago (the version moved, the revision did not): the
              // decision names its revision, so it is sent again on the current version.
              if (err?.code !== 'STALE_RESOURCE_VERSION') throw err;
              const current = await api.get(`/transport-tenders/${tender.id}`);
              if (current.currentRevision !== tender.currentRevision) throw err;
              await decideOn(current.resourceVersion);
            }
          }
          notice(t('notice.done'), `${label}.`);
          await reread();
        }
      : undefined,
  };
}
