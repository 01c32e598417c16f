// What a caller sees of a resource (gate 9), in reads, lists, command answers and events alike:
// its audience (owner, participant, partner or operator) decides the disclosed fields
// (core/disclosure.ts). Events carry the same projection as the reads because both call viewOf.
import { disclose, phaseFor, type Audience } from '../core/disclosure';
import type { Resource } from '../workflows/resource';
import { resourceOf } from '../workflows/registry';

export interface Viewer {
  organizationId: string;
  /** A protocol operator with the admin scope: the operator's view (core/disclosure.ts). */
  operator?: boolean;
}

/** The audience of a viewer for one document. Callers have passed gates 4 to 8 already. */
export function audienceOf(resource: Resource<any, any>, doc: any, viewer: Viewer): Audience {
  if (doc.ownerOrganizationId === viewer.organizationId) return { role: 'owner' };
  if (resource.participants?.(doc).includes(viewer.organizationId)) return { role: 'participant' };
  if (viewer.operator) return { role: 'operator' };
  return { role: 'partner', phase: phaseFor(resource, doc, viewer.organizationId) };
}

export function viewOf(resource: Resource<any, any>, doc: any, viewer: Viewer): Record<string, unknown> {
  return disclose(resource, doc, audienceOf(resource, doc, viewer));
}

/** A stored CloudEvent as one organization may read it: the data is that organization's view. */
export function eventView(kind: string, cloudevent: any, viewer: Viewer): unknown {
  return cloudevent.data === undefined ? cloudevent : { ...cloudevent, data: viewOf(resourceOf(kind), cloudevent.data, viewer) };
}
