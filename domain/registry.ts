// The registry of resource kinds: one line per kind. Everything that needs the list of kinds
// (projections, sharing, disclosure, the event feed, the worker, the OpenAPI parity test) reads
// it from here; see docs/architecture.md, "Adding a resource".
import { partnerRelationship } from './partner-relationship';
import { capacityOffer } from './capacity-offer';
import { loadRequest } from './load-request';
import { matchProposal } from './match-proposal';
import { transportTender } from './transport-tender';
import { transportCommitment } from './transport-commitment';
import { executionHandover } from './execution-handover';
import { executionReference } from './execution-reference';
import { connector } from './connector';
import { organization } from './organization';
import { user } from './user';
import { listingSeries } from './listing-series';
import type { Resource } from './resource';

export const RESOURCES: readonly Resource<any, any>[] = [
  partnerRelationship,
  capacityOffer,
  loadRequest,
  matchProposal,
  transportTender,
  transportCommitment,
  executionHandover,
  executionReference,
  organization,
  connector,
  user,
  listingSeries,
];

const byKind = new Map(RESOURCES.map((r) => [r.kind, r]));

/** The resource definition of a kind; throws for an unknown kind (a programming error). */
export function resourceOf(kind: string): Resource<any, any> {
  const resource = byKind.get(kind);
  if (!resource) throw new Error(`unknown resource kind ${kind}`);
  return resource;
}
