// Execution handovers end to end, on both engines: after a transport commitment its issuer hands
// over the bounded execution package; one handover per commitment whatever the delivery (rule 14);
// the executing organization acknowledges it (imported, linked, rejected, quarantined), a fact
// separate from the commercial acceptance (rule 13); amendments, cancellation and races.
import { createHash } from 'node:crypto';
import { handoverIdOf } from '../domain/execution-handover';
import { canonicalBytes } from '../core/digest';
import { Connector, expectProblem, listAll } from './helpers';
import { expectValid, get } from './matching-fixtures';
import { iso } from './listing-fixtures';
import { HOUR, tenderCommand } from './tenders.fixtures';
import { commitment, handoverBody } from './execution-handovers.fixtures';

const handOver = (c: Connector, body: unknown, headers?: Record<string, string>) => c.post('/execution-handovers', body, headers);
const acknowledge = (c: Connector, id: string, body: unknown, headers?: Record<string, string>) => c.post(`/execution-handovers/${id}/acknowledgements`, body, headers);
const DESTINATION = { system: 'executor-tms', type: 'trip', value: 'T-0815' };

/** The same object with its keys in reverse order, all the way down. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reversed(v)]));
  return value;
}

describe('handing over', () => {
  test('by the issuer of an active commitment: one handover per commitment, read by both organizations only', async () => {
    const { issuer, executor, outsider, commitment: c } = await commitment();
    const body = handoverBody(c);

    // Only the issuer hands over; a commitment the caller takes no part in does not exist for it.
    expectProblem(await handOver(executor, body), 403, 'ACTOR_NOT_PERMITTED');
    expectProblem(await handOver(outsider, body), 404, 'RESOURCE_NOT_FOUND');
    // The package must fit the commitment: a pickup slot outside the agreed window is refused.
    const early = handoverBody(c);
    early.package.stops[0].timeWindow = { start: iso(HOUR), end: iso(2 * HOUR) };
    const misfit = await handOver(issuer, early);
    expectProblem(misfit, 400, 'VALIDATION_FAILED');
    expect(misfit.body.errors).toEqual([expect.objectContaining({ pointer: '/package/stops/0/timeWindow' })]);
    // The schema bounds the package: an address without street and city, an unknown member.
    expectProblem(await handOver(issuer, { ...body, package: { ...body.package, stops: [{ ...body.package.stops[0], location: { address: { countryCode: 'DE' } } }] } }), 400, 'VALIDATION_FAILED');
    expectProblem(await handOver(issuer, { ...body, extensions: { 'com.acme.x': 1 } }), 400, 'VALIDATION_FAILED');

    const created = await handOver(issuer, body);
    expect(created.status).toBe(201);
    const h = created.body;
    expectValid('execution-handover', h);
    expect(h.id).toBe(handoverIdOf(c.id));
    expect(created.headers.get('location')).toBe(`/execution-handovers/${h.id}`);
    expect(created.headers.get('etag')).toBe('"1"');
    expect(h).toMatchObject({
      status: 'offered',
      resourceVersion: 1,
      ownerOrganizationId: issuer.id,
      commitmentId: c.id,
      commitmentVersion: 1,
      tenderId: c.tenderId,
      issuingOrganizationId: issuer.id,
      executingOrganizationId: executor.id,
      movementScope: 'fullTransport',
      package: body.package,
      sourceExternalReferences: body.sourceExternalReferences,
      acknowledgements: [],
    });
    // Anyone who reads it recomputes the package digest (RFC 8785, SHA-256).
    const input = { commitmentId: h.commitmentId, package: h.package, sourceExternalReferences: h.sourceExternalReferences };
    expect(h.packageDigest).toEqual({ algorithm: 'SHA-256', canonicalization: 'RFC 8785', fields: ['commitmentId', 'package', 'sourceExternalReferences'], value: createHash('sha256').update(canonicalBytes(input)).digest('hex') });

    // Both organizations read all of it; nobody else learns that it exists.
    expect((await executor.get(`/execution-handovers/${h.id}`)).body).toEqual(h);
    expect((await issuer.get(`/execution-handovers/${h.id}`)).headers.get('etag')).toBe('"1"');
    for (const c2 of [issuer, executor]) expect((await listAll(c2, '/execution-handovers', `commitment=${c.id}`)).map((x) => x.id)).toEqual([h.id]);
    expectValid('execution-handover#/$defs/Page', (await executor.get(`/execution-handovers?commitment=${c.id}&status=offered`)).body);
    expect(await listAll(executor, '/execution-handovers', 'status=imported')).toEqual([]);
    expectProblem(await outsider.get(`/execution-handovers/${h.id}`), 404, 'RESOURCE_NOT_FOUND');
    expect(await listAll(outsider, '/execution-handovers', `commitment=${c.id}`)).toEqual([]);
    expectProblem(await executor.get('/execution-handovers?commitment=nope'), 400, 'VALIDATION_FAILED');
    expectProblem(await executor.get('/execution-handovers?status=done'), 400, 'VALIDATION_FAILED');

    // A repeated delivery (keys in any order) is the same handover; another package is a conflict.
    const again = await handOver(issuer, reversed(body));
    expect(again.status).toBe(200);
    expect(again.body).toEqual(h);
    const changed = handoverBody(c, 'Kaistraße 9');
    const conflict = await handOver(issuer, changed);
    expectProblem(conflict, 409, 'HANDOVER_CONFLICT');
    expect(conflict.body).toMatchObject({ handoverId: h.id, currentState: 'offered' });
    expectProblem(await handOver(issuer, { ...body, sourceExternalReferences: [{ system: 'issuer-tms', type: 'shipment', value: 'S-other' }] }), 409, 'HANDOVER_CONFLICT');
    expectProblem(await handOver(executor, body), 403, 'ACTOR_NOT_PERMITTED');
    expect((await issuer.get(`/execution-handovers/${h.id}`)).body).toEqual(h);

    // The offered event reaches both organizations, and only them.
    for (const c2 of [issuer, executor]) {
      const events = (await c2.get('/events?limit=200')).body.items.filter((e: any) => e.subject === `execution-handovers/${h.id}`);
      expect(events.map((e: any) => e.type)).toEqual(['pcx.execution-handover.offered.v1']);
      expect(events[0].data.package.stops[0].location.address.lines).toEqual(['Kaistraße 7, Tor 3']);
    }
    expect(JSON.stringify((await outsider.get('/events?limit=200')).body)).not.toContain(h.id);
  });

  test('concurrent deliveries for one commitment make one handover; an Idempotency-Key replays its answer', async () => {
    const { issuer, commitment: c } = await commitment();
    const body = handoverBody(c);
    const replies = await Promise.all([handOver(issuer, body), handOver(issuer, body), handOver(issuer, reversed(body))]);
    expect(replies.map((r) => r.status).sort()).toEqual([200, 200, 201]);
    expect(new Set(replies.map((r) => r.body.id))).toEqual(new Set([handoverIdOf(c.id)]));
    expect(new Set(replies.map((r) => r.body.resourceVersion))).toEqual(new Set([1]));
    // Two different packages racing: one is the handover, the other a conflict.
    const other = await commitment();
    const [a, b] = await Promise.all([handOver(other.issuer, handoverBody(other.commitment, 'Weg 1')), handOver(other.issuer, handoverBody(other.commitment, 'Weg 2'))]);
    expect([a.status, b.status].sort()).toEqual([201, 409]);
    expect([a, b].find((r) => r.status === 409)!.body.code).toBe('HANDOVER_CONFLICT');

    const key = { 'idempotency-key': `handover-${c.id}` };
    const first = await handOver(issuer, body, key);
    expect(first.status).toBe(200);
    const replay = await handOver(issuer, body, key);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expectProblem(await handOver(issuer, handoverBody(c, 'Weg 3'), key), 409, 'IDEMPOTENCY_CONFLICT');
    expect(await listAll(issuer, '/execution-handovers', `commitment=${c.id}`)).toHaveLength(1);
  });

  test('only for an active commitment; an amendment\u2019s new commitment version gets a handover of its own', async () => {
    const { issuer, executor, tender, commitment: first } = await commitment();
    const h1 = (await handOver(issuer, handoverBody(first))).body;
    // The executing organization amends the price; the issuer's accept completes it (INITIATOR_ONLY: the recipient's accept).
    const amending = await executor.command(`/transport-commitments/${first.id}/amendments`, first.resourceVersion, { terms: { commercialTerms: { amount: 800, currency: 'EUR' } }, reason: 'toll' });
    expect(amending.status).toBe(200);
    const amended = (await tenderCommand(issuer, amending.body, 'decisions', { decision: 'accept', revision: 2 })).body;
    expect(amended.status).toBe('accepted');
    const second = await get(issuer, `/transport-commitments/${amended.commitmentId}`);
    expect(second).toMatchObject({ commitmentVersion: 2, previousCommitmentId: first.id, status: 'active' });
    expect(await get(issuer, `/transport-commitments/${first.id}`)).toMatchObject({ status: 'superseded' });

    // The superseded version keeps its handover: a repeated delivery still answers it.
    const repeat = await handOver(issuer, handoverBody(first));
    expect(repeat.status).toBe(200);
    expect(repeat.body).toEqual(h1);
    // The new version gets a new one.
    const h2 = await handOver(issuer, handoverBody(second));
    expect(h2.status).toBe(201);
    expect(h2.body).toMatchObject({ id: handoverIdOf(second.id), commitmentId: second.id, commitmentVersion: 2, tenderId: tender.id });
    expect(h2.body.id).not.toBe(h1.id);
    for (const [cm, h] of [[first, h1], [second, h2.body]]) {
      expect((await listAll(executor, '/execution-handovers', `commitment=${cm.id}`)).map((x) => x.id)).toEqual([h.id]);
    }

    // A cancelled commitment, and a superseded one without a handover, get none.
    const cancelled = await commitment();
    expect((await cancelled.issuer.command(`/transport-commitments/${cancelled.commitment.id}/cancel`, cancelled.commitment.resourceVersion, { reason: 'plans changed' })).status).toBe(200);
    const refused = await handOver(cancelled.issuer, handoverBody(cancelled.commitment));
    expectProblem(refused, 422, 'INVALID_STATE_TRANSITION');
    expect(refused.body.currentState).toBe('cancelled');
    expect(await listAll(cancelled.issuer, '/execution-handovers', `commitment=${cancelled.commitment.id}`)).toEqual([]);
  });
});

describe('acknowledging', () => {
  test('quarantined, then imported: final; duplicates answer the original, a different one conflicts; separate from the commitment', async () => {
    const { issuer, executor, outsider, commitment: c } = await commitment();
    const h = (await handOver(issuer, handoverBody(c))).body;

    // The executing organization acknowledges; the issuer cannot, an outsider learns nothing.
    expectProblem(await acknowledge(issuer, h.id, { outcome: 'imported', destinationExternalReference: DESTINATION }), 403, 'ACTOR_NOT_PERMITTED');
    expectProblem(await acknowledge(outsider, h.id, { outcome: 'imported', destinationExternalReference: DESTINATION }), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await acknowledge(executor, h.id, { outcome: 'imported' }), 400, 'VALIDATION_FAILED');
    expectProblem(await acknowledge(executor, h.id, { outcome: 'quarantined' }), 400, 'VALIDATION_FAILED');
    expectProblem(await acknowledge(executor, h.id, { outcome: 'received', reason: 'x' }), 400, 'VALIDATION_FAILED');

    const quarantine = { outcome: 'quarantined', reason: 'the UN number needs review', reasonCode: 'DG_REVIEW' };
    const q = await acknowledge(executor, h.id, quarantine);
    expect(q.status).toBe(200);
    expectValid('execution-handover', q.body);
    expect(q.body).toMatchObject({ status: 'quarantined', resourceVersion: 2, acknowledgements: [{ outcome: 'quarantined', reason: quarantine.reason, acknowledgedBy: { organizationId: executor.id }, observedHandoverVersion: 1 }] });
    expect(q.body.destinationExternalReference).toBeUndefined();
    expect(q.headers.get('etag')).toBe('"2"');
    // A repeated identical acknowledgement (no If-Match needed) returns the original.
    const q2 = await acknowledge(executor, h.id, reversed(quarantine));
    expect(q2.status).toBe(200);
    expect(q2.body).toEqual(q.body);

    const imported = await acknowledge(executor, h.id, { outcome: 'imported', destinationExternalReference: DESTINATION });
    expect(imported.status).toBe(200);
    expect(imported.body).toMatchObject({ status: 'imported', resourceVersion: 3, destinationExternalReference: DESTINATION, sourceExternalReferences: h.sourceExternalReferences });
    expect(imported.body.acknowledgedAt).toEqual(expect.any(String));
    expect(imported.body.acknowledgements.map((a: any) => a.outcome)).toEqual(['quarantined', 'imported']);
    // Final: the same acknowledgement again is the original answer, an earlier one too; a different one conflicts.
    const repeat = await acknowledge(executor, h.id, { outcome: 'imported', destinationExternalReference: DESTINATION });
    expect(repeat.status).toBe(200);
    expect(repeat.body).toEqual(imported.body);
    expect((await acknowledge(executor, h.id, quarantine)).body).toEqual(imported.body);
    const conflict = await acknowledge(executor, h.id, { outcome: 'rejected', reason: 'changed our mind' });
    expectProblem(conflict, 409, 'ACKNOWLEDGEMENT_CONFLICT');
    expect(conflict.body).toMatchObject({ currentState: 'imported', acknowledgement: { outcome: 'imported', destinationExternalReference: DESTINATION } });
    expectProblem(await acknowledge(executor, h.id, { outcome: 'imported', destinationExternalReference: { ...DESTINATION, value: 'T-other' } }), 409, 'ACKNOWLEDGEMENT_CONFLICT');
    // The handover's workflow has ended; repeated deliveries of the handover itself still answer it.
    expect((await handOver(issuer, handoverBody(c))).body).toEqual(imported.body);
    expect(await get(issuer, `/execution-handovers/${h.id}`)).toEqual(imported.body);

    // Commercial acceptance and technical acknowledgement are separate records and events (rule 13).
    const after = await get(issuer, `/transport-commitments/${c.id}`);
    expect(after).toEqual(c);
    for (const party of [issuer, executor]) {
      const types = (await party.get('/events?limit=200')).body.items.filter((e: any) => e.subject === `execution-handovers/${h.id}`).map((e: any) => e.type);
      expect(types).toEqual(['pcx.execution-handover.offered.v1', 'pcx.execution-handover.acknowledged.v1', 'pcx.execution-handover.acknowledged.v1']);
    }
    expect(JSON.stringify((await outsider.get('/events?limit=200')).body)).not.toContain(h.id);
  });

  test('linked and rejected are final too; concurrent different acknowledgements: one wins, the other conflicts', async () => {
    const linkedCase = await commitment();
    const l = (await handOver(linkedCase.issuer, handoverBody(linkedCase.commitment))).body;
    const linked = await acknowledge(linkedCase.executor, l.id, { outcome: 'linked', destinationExternalReference: DESTINATION });
    expect(linked.body).toMatchObject({ status: 'linked', destinationExternalReference: DESTINATION, resourceVersion: 2 });
    expectProblem(await acknowledge(linkedCase.executor, l.id, { outcome: 'quarantined', reason: 'late doubts' }), 409, 'ACKNOWLEDGEMENT_CONFLICT');

    const rejectedCase = await commitment();
    const r = (await handOver(rejectedCase.issuer, handoverBody(rejectedCase.commitment))).body;
    const rejected = await acknowledge(rejectedCase.executor, r.id, { outcome: 'rejected', reason: 'the consignee site is not served', reasonCode: 'NOT_SERVED' });
    expect(rejected.body).toMatchObject({ status: 'rejected', resourceVersion: 2, acknowledgements: [{ outcome: 'rejected', reasonCode: 'NOT_SERVED' }] });
    expect(rejected.body.destinationExternalReference).toBeUndefined();
    expectProblem(await acknowledge(rejectedCase.executor, r.id, { outcome: 'imported', destinationExternalReference: DESTINATION }), 409, 'ACKNOWLEDGEMENT_CONFLICT');

    // Two connectors of the executing system answer at once with different final outcomes.
    const race = await commitment();
    const x = (await handOver(race.issuer, handoverBody(race.commitment))).body;
    const replies = await Promise.all([
      acknowledge(race.executor, x.id, { outcome: 'imported', destinationExternalReference: DESTINATION }),
      acknowledge(race.executor, x.id, { outcome: 'rejected', reason: 'duplicate order' }),
      acknowledge(race.executor, x.id, { outcome: 'quarantined', reason: 'checking' }),
    ]);
    const final = await get(race.issuer, `/execution-handovers/${x.id}`);
    expect(['imported', 'rejected']).toContain(final.status);
    const finals = replies.slice(0, 2);
    expect(finals.map((reply) => reply.status).sort()).toEqual([200, 409]);
    expect(finals.find((reply) => reply.status === 200)!.body.status).toBe(final.status);
    // The quarantine either came first (recorded, then the final one) or after the final one (conflict).
    const quarantined = final.acknowledgements.some((a: any) => a.outcome === 'quarantined');
    expect(replies[2].status).toBe(quarantined ? 200 : 409);
    expect(final.acknowledgements.filter((a: any) => a.outcome !== 'quarantined')).toHaveLength(1);
    expect(final.resourceVersion).toBe(1 + final.acknowledgements.length);
  });
});
