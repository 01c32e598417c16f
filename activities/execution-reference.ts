// The execution-reference activity of the handover flow: what the broker's create of the
// reference of an accepted proposal needs, read from the read model.
import type { Queryable } from '../core/db';
import type { CreatePayload, ReferenceContext } from '../domain/execution-reference';
import { referenceFacts } from '../read-model/execution-reference';

export function createReferenceActivities(db: Queryable) {
  return {
    /** The broker's create of the reference of an accepted proposal: payload and facts. */
    async prepareReference(proposalId: string): Promise<{ payload: CreatePayload; context: ReferenceContext } | undefined> {
      const { proposalDoc, ...context } = await referenceFacts(db, proposalId);
      if (!proposalDoc || !context.proposal) return undefined;
      return {
        payload: {
          acceptedProposalId: proposalDoc.id,
          acceptedProposalVersion: proposalDoc.resourceVersion,
          participatingOrganizationIds: [proposalDoc.offerOwnerOrganizationId, proposalDoc.requestOwnerOrganizationId],
        },
        context,
      };
    },
  };
}
