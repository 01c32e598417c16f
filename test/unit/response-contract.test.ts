// The check test/helpers.ts runs on every reply the integration tests receive (test/contract.ts):
// it must be able to fail. Fed made-up replies; no server.
import { ContractViolation, ResponseContract, type ObservedResponse } from '../contract';

const BASE = 'https://schemas.test.example/pcx';
const contract = new ResponseContract(BASE);
const ID = '01912f6e-6a44-7c3a-9d3e-0c5b6a1e2f3a';

const offer = {
  id: ID,
  resourceVersion: 3,
  ownerOrganizationId: 'org-001',
  createdAt: '2025-01-01T10:00:00Z',
  updatedAt: '2025-01-01T11:00:00Z',
  status: 'draft',
};
const problem = { type: 'urn:exchange:protocol:error:resource-not-found', title: 'Not found', status: 404, code: 'RESOURCE_NOT_FOUND', detail: 'no such offer', correlationId: 'c-1' };
const reply = (r: Partial<ObservedResponse>): ObservedResponse => ({ method: 'GET', path: `/capacity-offers/${ID}`, status: 200, contentType: 'application/json', body: offer, json: true, ...r });
const event = (data: unknown, dataschema = `${BASE}/v0/capacity-offer`) => ({
  specversion: '1.0',
  id: '01912f6e-6a44-7c3a-9d3e-0c5b6a1e2f3b',
  source: 'http://localhost/events',
  type: 'pcx.capacity-offer.published.v1',
  subject: `capacity-offers/${ID}`,
  time: '2025-01-01T11:00:00Z',
  dataschema,
  datacontenttype: 'application/json',
  organizationid: 'org-001',
  resourceversion: 3,
  correlationid: 'c-1',
  data,
});
const feed = (...items: unknown[]) => reply({ path: '/events?limit=10', body: { items, nextCursor: 'abc' } });

function violation(r: ObservedResponse): string {
  try {
    contract.check(r);
  } catch (e) {
    expect(e).toBeInstanceOf(ContractViolation);
    return (e as Error).message;
  }
  throw new Error('expected a contract violation');
}

describe('response contract (test/contract.ts)', () => {
  it('accepts replies that keep the document', () => {
    expect(contract.violations(reply({}))).toEqual([]);
    expect(contract.violations(reply({ status: 404, contentType: 'application/problem+json', body: problem }))).toEqual([]);
    expect(contract.violations(reply({ method: 'GET', path: '/health/live', body: { status: 'live' } }))).toEqual([]);
    expect(contract.violations(feed(event(offer)))).toEqual([]);
  });

  it('finds the operation by method and path template, literal segments first', () => {
    expect(contract.operation('GET', `/capacity-offers/${ID}?x=1`)?.key).toBe('GET /capacity-offers/{id}');
    expect(contract.operation('POST', `/capacity-offers/${ID}/publish`)?.key).toBe('POST /capacity-offers/{id}/publish');
    expect(contract.operation('GET', '/capacity-offers')?.key).toBe('GET /capacity-offers');
    expect(contract.operation('DELETE', `/capacity-offers/${ID}`)).toBeUndefined();
  });

  it('fails a body with a property its schema does not allow, naming operation, status, pointer and message', () => {
    const message = violation(reply({ body: { ...offer, surprise: true } }));
    expect(message).toContain(`GET /capacity-offers/${ID} (getCapacityOffer, GET /capacity-offers/{id}) answered 200`);
    expect(message).toContain('capacity-offer');
    expect(message).toContain('/surprise: is not an allowed property');
  });

  it('fails a nested member outside its schema', () => {
    const allocation = { proposalId: ID, requestId: ID, organizationId: 'org-002', capacity: {}, state: 'committed', at: offer.createdAt, unexpected: ID };
    expect(violation(reply({ body: { ...offer, allocations: [allocation] } }))).toContain('/allocations/0/unexpected: is not an allowed property');
  });

  it('fails a status the operation does not declare, and a problem outside problem.json', () => {
    expect(violation(reply({ status: 418, contentType: 'application/problem+json', body: problem }))).toMatch(/status 418 is not declared for GET \/capacity-offers\/\{id\}/);
    expect(violation(reply({ status: 404, contentType: 'application/problem+json', body: { ...problem, code: undefined } }))).toContain('/code: is required');
    expect(violation(reply({ status: 200, contentType: 'text/plain', body: 'ok', json: false }))).toContain('content-type text/plain is not declared');
  });

  it('lets any operation refuse a request target it cannot read (400 MALFORMED_REQUEST), nothing else undeclared', () => {
    const malformed = { ...problem, status: 400, code: 'MALFORMED_REQUEST' };
    expect(contract.violations(reply({ status: 400, contentType: 'application/problem+json', body: malformed }))).toEqual([]);
    expect(violation(reply({ status: 400, contentType: 'application/problem+json', body: { ...malformed, code: 'VALIDATION_FAILED' } }))).toContain('status 400 is not declared');
  });

  it('treats default as the 500 only', () => {
    expect(contract.violations(reply({ status: 500, contentType: 'application/problem+json', body: { ...problem, status: 500, code: 'INTERNAL_ERROR' } }))).toEqual([]);
    expect(violation(reply({ status: 502, contentType: 'application/problem+json', body: problem }))).toContain('status 502 is not declared');
  });

  it('checks each event: the envelope, and data against the schema its dataschema names', () => {
    expect(violation(feed(event({ ...offer, extra: 1 })))).toMatch(/event pcx\.capacity-offer\.published\.v1 .*\n.*\/items\/0\/data\/extra: is not an allowed property/);
    const { correlationid: _, ...noCorrelation } = event(offer);
    expect(violation(feed(noCorrelation))).toContain('/items/0/correlationid: is required');
    expect(violation(feed(event(offer, 'https://elsewhere.example/v0/capacity-offer')))).toContain('is not a schema id of this broker');
    expect(violation(feed(event(offer, `${BASE}/v0/no-such-schema`)))).toContain('names no schema');
    // Two events about one subject at one version in a page: a consumer would drop the second.
    expect(violation(feed(event(offer), { ...event(offer), id: '01912f6e-6a44-7c3a-9d3e-0c5b6a1e2f3c' }))).toContain('a consumer would drop it');
    expect(contract.violations(feed(event(offer), { ...event(offer), id: '01912f6e-6a44-7c3a-9d3e-0c5b6a1e2f3c', resourceversion: 4 }))).toEqual([]);
  });

  it('follows a dataschema with a #/$defs fragment', () => {
    const ref = { system: 'tms', type: 'order', value: '42' };
    const dataschema = `${BASE}/v0/common#/$defs/ExternalReference`;
    expect(contract.violations(feed(event(ref, dataschema)))).toEqual([]);
    expect(violation(feed(event({ ...ref, more: 'x' }, dataschema)))).toContain('/items/0/data/more: is not an allowed property');
  });

  it('lets an undocumented path or method answer only with a problem', () => {
    expect(contract.violations(reply({ method: 'DELETE', status: 405, contentType: 'application/problem+json', body: { ...problem, status: 405, code: 'METHOD_NOT_ALLOWED' } }))).toEqual([]);
    expect(violation(reply({ method: 'GET', path: '/nowhere', status: 200, body: {} }))).toContain('a success for an operation the document does not declare');
  });
});
