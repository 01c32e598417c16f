// POST /match-evaluations: why an offer and a request do or do not match, criterion by criterion,
// without creating a proposal. The caller must be able to read both (as their own reads decide);
// the answer holds figures derived from the listings' coarse terms, never a protected field.
import { Hono } from 'hono';
import { operation } from './operations';
import { partnershipsInForce } from '../read-model/partner-relationship';
import { evaluateDocuments } from '../read-model/matching';
import { MATCHING_SCOPES } from '../domain/matching';
import type { AppEnv } from './context';


import { requireMatchable, visiblePair } from './match-proposals';

export const matchEvaluations = new Hono<AppEnv>();

operation(matchEvaluations, {
  method: 'POST', path: '/', access: { scope: 'matches:read' }, body: 'MatchProposalEvaluationRequest', answers: [200],
  returns: 'MatchProposalEvaluation',
  doc: {
    id: 'evaluateMatch',
    summary: 'Explain why an offer and a request do or do not match',
    description:
      'Evaluates one pair as matching would, criterion by criterion with stable reason codes and ' +
      'the figures behind them, without creating anything. The caller must be able to read both ' +
      "listings (their reads' rules; otherwise 404), so it needs scopes `matches:read`, " +
      "`capacity:read` and `loads:read`. The answer holds figures derived from the listings' coarse " +
      'terms, never a protected field. A pair that lacks a term matching reads (a draft without its ' +
      'areas, windows, vehicle or capacity) is 422 `LISTING_INCOMPLETE`, whose `missingTerms` names ' +
      'what each side lacks.',
    tag: 'MatchProposals',
    responses: { '200': 'The evaluation.', '404': true, '422': true },
  },
}, async ({ c, body }) => {
  const { offer, request } = await visiblePair(c, body.capacityOfferId, body.loadRequestId);
  requireMatchable(offer, request);
  const partners = await partnershipsInForce(c.get('services').db, offer.ownerOrganizationId, MATCHING_SCOPES);
  const relationship = partners.find((p) => p.organizationId === request.ownerOrganizationId)?.relationship;
  const evaluation = evaluateDocuments(offer, request, relationship);
  return c.json({
    capacityOfferId: offer.id,
    capacityOfferVersion: offer.resourceVersion,
    loadRequestId: request.id,
    loadRequestVersion: request.resourceVersion,
    evaluatedAt: new Date().toISOString(),
    ...evaluation,
  });
});
