// Gate 9, field disclosure: what each audience sees of a resource, in reads, lists, command
// answers and events alike. Every field of a resource has a disclosure class in its definition
// (domain/resource.ts, `fields`); this module says which classes each audience sees. Allow-
// lists, not deny-lists: a field without a class is shown to its owner only.
//
// Audiences:
//   owner        everything
//   participant  a party to the resource besides its owner (the accepting organization of a
//                relationship): envelope, lifecycle, shared and terms
//   partner      an organization the owner shares the resource with, by disclosure phase:
//     discovery  the resource is published and shared with the partner: envelope, lifecycle, terms
//     proposed   a match proposal between the partner and the owner is open: as discovery
//     accepted   the proposal was accepted by the parties its decision policy requires: + restricted
//     committed  a transport commitment exists: + references
//   operator     the protocol operator (least privilege; docs/decisions.md, "The operator's view"):
//                of a resource never published, envelope, lifecycle and audit (that it exists,
//                who owns it, how it ended); once published, also terms. Never restricted.
// Before acceptance a partner never sees restricted details (exact addresses, customer identity,
// price, complete goods details: protocol rule 11, LoadRequest rule 8), nor the owner's private
// bookkeeping.
import type { FieldClass, Resource } from './resource';

export type Phase = 'discovery' | 'proposed' | 'accepted' | 'committed';

export type Audience =
  | { role: 'owner' }
  | { role: 'participant' }
  | { role: 'partner'; phase: Phase }
  | { role: 'operator' };

const PARTNER_CLASSES: Record<Phase, readonly FieldClass[]> = {
  discovery: ['envelope', 'lifecycle', 'terms'],
  proposed: ['envelope', 'lifecycle', 'terms'],
  accepted: ['envelope', 'lifecycle', 'terms', 'restricted'],
  committed: ['envelope', 'lifecycle', 'terms', 'restricted', 'references'],
};
const PARTICIPANT_CLASSES: readonly FieldClass[] = ['envelope', 'lifecycle', 'shared', 'terms'];
const OPERATOR_UNPUBLISHED: readonly FieldClass[] = ['envelope', 'lifecycle', 'audit'];
const OPERATOR_PUBLISHED: readonly FieldClass[] = ['envelope', 'lifecycle', 'audit', 'terms'];

/** The classes an audience sees of one document. */
export function classesFor(audience: Audience, doc: Record<string, unknown>, resource?: Resource<any, any>): readonly FieldClass[] | 'all' {
  if (audience.role === 'operator' && resource?.operatorSees) return resource.operatorSees;
  switch (audience.role) {
    case 'owner':
      return 'all';
    case 'participant':
      return PARTICIPANT_CLASSES;
    case 'partner':
      return PARTNER_CLASSES[audience.phase];
    case 'operator':
      return doc.publishedAt === undefined ? OPERATOR_UNPUBLISHED : OPERATOR_PUBLISHED;
  }
}

/** The fields of `doc` the audience may see. */
export function disclose(resource: Resource<any, any>, doc: Record<string, unknown>, audience: Audience): Record<string, unknown> {
  const classes = classesFor(audience, doc, resource);
  if (classes === 'all') return doc;
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(doc)) {
    const cls = resource.fields[field];
    if (cls !== undefined && value !== undefined && classes.includes(cls)) out[field] = value;
  }
  return out;
}

/**
 * The phase a partner is in for a listing: `accepted` for an organization that accepted a match
 * with it (its counterparts), else `discovery`. `proposed` shows what discovery shows, so an open
 * proposal needs no lookup; `committed` once a transport commitment records the match.
 */
export function phaseFor(resource: Resource<any, any>, doc: Record<string, unknown>, viewer: string): Phase {
  if (resource.committedCounterparts?.(doc).includes(viewer)) return 'committed';
  return resource.counterparts?.(doc).includes(viewer) ? 'accepted' : 'discovery';
}
