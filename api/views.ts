// Gate 9, field disclosure: what each audience sees of a resource, in reads, lists and events
// alike. Events carry the same projection as the reads because both call viewOf.
import { partnerView, phaseFor } from '../core/disclosure';

export interface Viewer {
  organizationId: string;
  /** A protocol operator with the admin scope sees every field. */
  operator?: boolean;
}

export function viewOf(kind: string, doc: any, viewer: Viewer): unknown {
  // Both parties see the whole relationship: it holds nothing one may not know of the other.
  if (kind === 'partner-relationship') return doc;
  if (viewer.operator || doc.ownerOrganizationId === viewer.organizationId) return doc;
  return partnerView(kind, doc, phaseFor(kind, doc, viewer.organizationId));
}

/** A stored CloudEvent as one organization may read it: the data is that organization's view. */
export function eventView(kind: string, cloudevent: any, viewer: Viewer): unknown {
  return cloudevent.data === undefined ? cloudevent : { ...cloudevent, data: viewOf(kind, cloudevent.data, viewer) };
}
