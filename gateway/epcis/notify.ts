// A milestone to a shipper that reads EPCIS: an EPCIS 2.0 capture document (JSON-LD, GS1's
// standard context) holding one ObjectEvent, valid against GS1's JSON Schema. Pure.
import type { ServedOrganization } from '../config';
import type { Milestone, MilestoneNotice, OutboundDraft } from '../format';
import { PCX_VOCABULARY, pcxBizStep } from './events';
import { isGln, locationUri, transactionUri } from './identifiers';

export const EPCIS_CONTEXT = 'https://ref.gs1.org/standards/epcis/2.0.0/epcis-context.jsonld';

/**
 * The business step (and disposition) a milestone is told with: the CBV's where it has one, chosen
 * so that the steps of one movement never mix steps the CBV calls mutually exclusive (loading,
 * transporting, arriving, accepting: not shipping or receiving, which sum those up), and so that
 * the gateway's own table reads each back as the same milestone. The others are the exchange's
 * own steps (`https://schemas.pcx.example/v0/epcis/BizStep-<milestone>`, read back the same way).
 */
export const MILESTONE_BIZ_STEPS: Readonly<Record<Milestone, { bizStep: string; disposition?: string }>> = {
  assigned: { bizStep: pcxBizStep('assigned') },
  atPickup: { bizStep: pcxBizStep('atPickup') },
  pickedUp: { bizStep: 'loading' },
  inTransit: { bizStep: 'transporting', disposition: 'in_transit' },
  delayed: { bizStep: pcxBizStep('delayed') },
  atDelivery: { bizStep: 'arriving' },
  delivered: { bizStep: 'accepting' },
  failed: { bizStep: pcxBizStep('failed') },
  cancelled: { bizStep: pcxBizStep('cancelled') },
  disputed: { bizStep: pcxBizStep('disputed') },
};

/** The CBV business transaction type of a shipper's reference, by its EDIFACT qualifier, where one means the same document. */
const TRANSACTION_TYPES: Readonly<Record<string, string>> = {
  'RFF+BM': 'bol', // bill of lading number
  'RFF+CN': 'bol', // carrier's reference number (consignment note)
  'RFF+AAK': 'desadv', // despatch advice number
  'RFF+ON': 'po', // order number (buyer)
  'RFF+IV': 'inv', // invoice number
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The EPCIS document telling a shipper one milestone of a movement its message started. */
export function milestoneDocument(notice: MilestoneNotice, organization: ServedOrganization, now: Date): Record<string, unknown> {
  const { bizStep, disposition } = MILESTONE_BIZ_STEPS[notice.milestone];
  // A CBV business transaction URN names the party that assigned the number by its GLN: the
  // document number is the shipper's own, told so when it has a GLN; every other reference (and
  // the document number of a shipper without one) is named by the exchange's URI for it.
  const gln = organization.epcis?.glns?.find(isGln);
  const exchangeUri = (ref: { system: string; type: string; value: string }) => `${PCX_VOCABULARY}bt/${[ref.system, ref.type, ref.value].map(encodeURIComponent).join('/')}`;
  const document = notice.consignment.references.find((r) => r.type.startsWith('BGM') && r.value === notice.consignment.documentNumber) ?? { system: notice.consignment.references[0]?.system ?? 'pcx', type: 'BGM', value: notice.consignment.documentNumber };
  const bizTransactionList: Array<{ type?: string; bizTransaction: string }> = [];
  if (notice.consignment.documentNumber) bizTransactionList.push({ type: 'bol', bizTransaction: gln ? transactionUri(gln, document.value) : exchangeUri(document) });
  for (const ref of notice.consignment.references) {
    if (ref === document) continue;
    const type = TRANSACTION_TYPES[ref.type];
    const bizTransaction = exchangeUri(ref);
    if (!bizTransactionList.some((b) => b.bizTransaction === bizTransaction)) bizTransactionList.push({ ...(type ? { type } : {}), bizTransaction });
  }
  // A place the shipper knows by exactly one GLN is its readPoint; by none or several, only its UN/LOCODE is told.
  const glns = notice.unLocode ? Object.entries(organization.places ?? {}).filter(([key, code]) => code === notice.unLocode && key.startsWith('9:') && isGln(key.slice(2))) : [];
  const event: Record<string, unknown> = {
    type: 'ObjectEvent',
    eventTime: notice.occurredAt,
    eventTimeZoneOffset: '+00:00',
    eventID: UUID.test(notice.updateId) ? `urn:uuid:${notice.updateId.toLowerCase()}` : `${PCX_VOCABULARY}update/${encodeURIComponent(notice.updateId)}`,
    // The exchange knows no EPC of the goods (only a coarse goods profile): the movement is named by its business transactions.
    epcList: [],
    action: 'OBSERVE',
    bizStep,
    ...(disposition ? { disposition } : {}),
    ...(glns.length === 1 ? { readPoint: { id: locationUri(glns[0][0].slice(2)) } } : {}),
    ...(bizTransactionList.length ? { bizTransactionList } : {}),
    'pcx:milestone': notice.milestone,
    'pcx:executionReferenceId': notice.executionReferenceId,
    ...(notice.unLocode ? { 'pcx:unLocode': notice.unLocode } : {}),
    ...(notice.reason ? { 'pcx:reason': notice.reason } : {}),
  };
  return {
    '@context': [EPCIS_CONTEXT, { pcx: PCX_VOCABULARY }],
    type: 'EPCISDocument',
    schemaVersion: '2.0',
    creationDate: now.toISOString(),
    epcisBody: { eventList: [event] },
  };
}

export function milestoneNotice(notice: MilestoneNotice, organization: ServedOrganization, now: Date): OutboundDraft {
  return { kind: 'epcis', name: `${notice.updateId.replace(/[^A-Za-z0-9._-]/g, '_')}.epcis.json`, content: `${JSON.stringify(milestoneDocument(notice, organization, now), null, 2)}\n` };
}
