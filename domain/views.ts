// What a caller sees of a resource (gate 9), in reads, lists, command answers and events alike:
// its audience (owner, participant, partner or operator) decides the disclosed fields
// (domain/disclosure.ts). Events carry the same projection as the reads because both call viewOf.
import { disclose, phaseFor, type Audience } from './disclosure';
import type { Resource } from './resource';
import { resourceOf } from './registry';
import { WEBHOOK_KIND } from './webhooks';
import { PURGED_RECORD_KIND } from './retention';

export interface Viewer {
  organizationId: string;
  /** A protocol operator with the admin scope: the operator's view (domain/disclosure.ts). */
  operator?: boolean;
}

/** The audience of a viewer for one document. Callers have passed gates 4 to 8 already. */
export function audienceOf(resource: Resource<any, any>, doc: any, viewer: Viewer): Audience {
  if (doc.ownerOrganizationId === viewer.organizationId) return { role: 'owner' };
  if (resource.participants?.(doc).includes(viewer.organizationId)) return { role: 'participant' };
  if (viewer.operator) return { role: 'operator' };
  return { role: 'partner', phase: phaseFor(resource, doc, viewer.organizationId) };
}

/**
 * `doc` is a read-model document, event data or a command's snapshot: the resource's `document`
 * projection applies first, so a snapshot never shows what only the workflow keeps (an execution
 * reference's milestones and outcomes), not even to its owner.
 */
export function viewOf(resource: Resource<any, any>, doc: any, viewer: Viewer): Record<string, unknown> {
  const document = resource.document?.(doc) ?? doc;
  return disclose(resource, document, audienceOf(resource, document, viewer));
}

/** A stored CloudEvent as one organization may read it: the data is that organization's view. */
export function eventView(kind: string, cloudevent: any, viewer: Viewer): unknown {
  // A webhook subscription's events go to its organization alone, already in its view.
  // A tombstone holds nothing of the record but what each of its readers knew (domain/retention.ts).
  if (cloudevent.data === undefined || isRecordEvent(cloudevent) || kind === WEBHOOK_KIND || kind === PURGED_RECORD_KIND) return cloudevent;
  return { ...cloudevent, data: viewOf(resourceOf(kind), cloudevent.data, viewer) };
}

/**
 * An event about an append-only record (a match decision, an execution outcome; its dataschema
 * names the record's definition): only the resource's participants are its audience, and they see
 * such records whole, so its data is served as stored.
 */
function isRecordEvent(cloudevent: { dataschema?: unknown }): boolean {
  return typeof cloudevent.dataschema === 'string' && cloudevent.dataschema.includes('#/$defs/');
}
