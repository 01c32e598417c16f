// POST /match-evaluations: why an offer and a request do or do not match, criterion by criterion,
// without creating a proposal. The caller must be able to read both (as their own reads decide);
// the answer holds figures derived from the listings' coarse terms, never a protected field.
import { Hono } from 'hono';
import { partnershipsInForce } from '../activities/partner-relationship';
import { evaluateDocuments } from '../activities/matching';
import { MATCHING_SCOPES } from '../core/matching/compatibility';
import type { AppEnv } from './context';
import { authorize } from './gates';
import { readJson } from './http';
import { requireMatchable, visiblePair } from './match-proposals';

export const matchEvaluations = new Hono<AppEnv>();

matchEvaluations.post('/', async (c) => {
  await authorize(c, { scope: 'matches:read' });
  const body = c.get('services').schemas.assert<{ capacityOfferId: string; loadRequestId: string }>('match-proposal#/$defs/EvaluationRequest', await readJson(c));
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
