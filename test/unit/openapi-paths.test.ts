// The paths generated from operation declarations (api/openapi-paths.ts): what a declaration's
// behaviour implies in the document, and how a doc's own answers add to it, describe or replace.
import { operationObject, pathsOf } from '../../api/openapi-paths';
import type { Declared } from '../../api/operations';

const doc = { id: 'doThing', summary: 'Do a thing', tag: 'Things' };
const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

const command: Declared = {
  method: 'POST',
  path: '/:id/publish',
  scopes: ['capacity:publish'],
  body: 'CommonCommand',
  answers: [200],
  versioned: true,
  idempotent: true,
  returns: 'CapacityOffer',
  doc,
};

describe('operationObject', () => {
  it('derives a lifecycle command: If-Match, Idempotency-Key, the shared body, its problems', () => {
    const op = operationObject(command);
    expect(op.security).toEqual([{ oauth2: ['capacity:publish'] }]);
    expect(op.parameters).toEqual([ref('parameters', 'IfMatchHeader'), ref('parameters', 'IdempotencyKeyHeader'), ref('parameters', 'CorrelationIdHeader')]);
    expect(op.requestBody).toEqual(ref('requestBodies', 'Command'));
    expect(Object.keys(op.responses)).toEqual(['200', '400', '401', '403', '404', '409', '413', '415', '422', '428', '429', '503', 'default']);
    expect(op.responses['200'].headers).toEqual({ ETag: ref('headers', 'ETag'), 'Idempotent-Replayed': ref('headers', 'Idempotent-Replayed'), 'X-Correlation-Id': ref('headers', 'X-Correlation-Id') });
    expect(op.responses['200'].content).toEqual({ 'application/json': { schema: { $ref: './capacity-offer.json' } } });
    expect(op.responses['428']).toEqual(ref('responses', 'PreconditionRequired'));
  });

  it('derives a read: no body, no If-Match, no 400 without a query, 404 for a path with an id', () => {
    const op = operationObject({ method: 'GET', path: '/:id', scopes: ['capacity:read'], answers: [200], returns: 'CapacityOffer', doc });
    expect(op.parameters).toEqual([ref('parameters', 'CorrelationIdHeader')]);
    expect(op.requestBody).toBeUndefined();
    expect(Object.keys(op.responses)).toEqual(['200', '401', '403', '404', '429', 'default']);
    expect(op.responses['200'].headers.ETag).toEqual(ref('headers', 'ETag'));
  });

  it('a list with query parameters can answer 400; a page carries no ETag', () => {
    const op = operationObject({ method: 'GET', path: '/', scopes: ['capacity:read'], answers: [200], returns: 'CapacityOfferPage', doc: { ...doc, parameters: ['CursorQuery'] } });
    expect(op.parameters[0]).toEqual(ref('parameters', 'CursorQuery'));
    expect(op.responses['400']).toEqual(ref('responses', 'BadRequest'));
    expect(op.responses['200'].headers.ETag).toBeUndefined();
  });

  it('a create answers 201 with Location and ETag; a PATCH body is a merge patch', () => {
    const create = operationObject({ method: 'POST', path: '/', scopes: ['capacity:publish'], body: 'CapacityOfferCreateRequest', answers: [201], idempotent: true, returns: 'CapacityOffer', doc });
    expect(Object.keys(create.responses['201'].headers)).toEqual(['Location', 'ETag', 'Idempotent-Replayed', 'X-Correlation-Id']);
    expect(create.responses['428']).toBeUndefined();
    const patch = operationObject({ ...command, method: 'PATCH', path: '/:id', body: 'CapacityOfferUpdateRequest' });
    expect(Object.keys(patch.requestBody.content)).toEqual(['application/merge-patch+json', 'application/json']);
  });

  it('alternative scopes are one requirement each; a public route has none', () => {
    expect(operationObject({ method: 'GET', path: '/', scopes: [], anyScope: ['outcomes:review', 'outcomes:write'], answers: [200], doc }).security).toEqual([
      { oauth2: ['outcomes:review'] },
      { oauth2: ['outcomes:write'] },
    ]);
    const open = operationObject({ method: 'GET', path: '/health/live', public: true, scopes: [], answers: [200], doc });
    expect(open.security).toEqual([]);
    expect(Object.keys(open.responses)).toEqual(['200', '400', 'default']);
    expect(open.responses['400']).toEqual(ref('responses', 'MalformedRequest'));
  });

  it("a doc's answers describe, add, leave out or replace, and keep success first and default last", () => {
    const op = operationObject({
      ...command,
      doc: { ...doc, responses: { '200': 'Published.', '403': 'Not yours.', '404': false, '405': { description: 'odd' }, '401': true, '422': { $ref: '#/components/responses/Odd' } } },
    });
    expect(op.responses['200'].description).toBe('Published.');
    expect(op.responses['403']).toEqual({ ...ref('responses', 'Forbidden'), description: 'Not yours.' });
    expect(op.responses['404']).toBeUndefined();
    // An answer of its own gets X-Correlation-Id, as every answer; a reference is taken as it is.
    expect(op.responses['405']).toEqual({ description: 'odd', headers: { 'X-Correlation-Id': ref('headers', 'X-Correlation-Id') } });
    expect(op.responses['422']).toEqual(ref('responses', 'Odd'));
    expect(op.responses['401']).toEqual(ref('responses', 'Unauthorized'));
    const statuses = Object.keys(op.responses);
    expect(statuses[0]).toBe('200');
    expect(statuses[statuses.length - 1]).toBe('default');
  });

  it('a command says what it answers; one whose body needs a reason says what a 400 means', () => {
    expect(operationObject(command).responses['200'].description).toBe('The resource after the command, with its new ETag.');
    const reasoned = operationObject({ ...command, body: 'CommonReasonedCommand' });
    expect(reasoned.requestBody).toEqual(ref('requestBodies', 'ReasonedCommand'));
    expect(reasoned.responses['400'].description).toMatch(/reason missing or blank/);
    expect(operationObject(command).responses['400'].description).toBeUndefined();
  });

  it('a create-or-return names the resource in both answers; an idempotent write carries its ETag', () => {
    const op = operationObject({ method: 'POST', path: '/', scopes: ['handovers:write'], body: 'ExecutionHandoverCreateRequest', answers: [201, 200], idempotent: true, returns: 'ExecutionHandover', doc });
    expect(Object.keys(op.responses['200'].headers)).toEqual(['Location', 'ETag', 'Idempotent-Replayed', 'X-Correlation-Id']);
    const accepted = operationObject({ method: 'POST', path: '/:id/recover', scopes: ['connectors:manage'], answers: [202], idempotent: true, returns: 'WebhookSubscriptionRecovery', doc });
    expect(accepted.responses['202'].headers.ETag).toBeUndefined();
  });

  it('a public operation must name its tag; others default to their collection', () => {
    const { tag: _tag, ...untagged } = doc;
    expect(() => operationObject({ method: 'GET', path: '/health/live', public: true, scopes: [], answers: [200], doc: untagged as typeof doc })).toThrow(/names its tag/);
  });

  it('a doc may say that no body is documented, or give its own', () => {
    expect(operationObject({ ...command, doc: { ...doc, requestBody: false } }).requestBody).toBeUndefined();
    expect(operationObject({ ...command, doc: { ...doc, requestBody: { required: false } } }).requestBody).toEqual({ required: false });
  });
});

describe('pathsOf', () => {
  it('puts {id} on the path, and each method of one path under it', () => {
    const paths = pathsOf([
      { ...command, method: 'GET', path: '/:id', body: undefined, versioned: false, idempotent: false, documentPath: '/capacity-offers/{id}' },
      { ...command, method: 'PATCH', path: '/:id', body: 'CapacityOfferUpdateRequest', documentPath: '/capacity-offers/{id}' },
      { ...command, method: 'GET', path: '/', body: undefined, versioned: false, idempotent: false, returns: 'CapacityOfferPage', documentPath: '/capacity-offers' },
    ]);
    expect(Object.keys(paths)).toEqual(['/capacity-offers/{id}', '/capacity-offers']);
    expect(paths['/capacity-offers/{id}'].parameters).toEqual([ref('parameters', 'IdPath')]);
    expect(Object.keys(paths['/capacity-offers/{id}'])).toEqual(['parameters', 'get', 'patch']);
    expect(paths['/capacity-offers'].parameters).toBeUndefined();
  });
});

describe('sourceDocument', () => {
  it('lists a tag the frame does not describe, saying which paths it covers', () => {
    const { sourceDocument } = require('../../api/documents') as typeof import('../../api/documents');
    const source = sourceDocument([{ ...command, method: 'GET', path: '/:id', body: undefined, versioned: false, idempotent: false, doc: { ...doc, tag: 'SiteNotes' }, documentPath: '/site-notes/{id}' }]);
    expect(source.tags).toContainEqual({ name: 'SiteNotes', description: 'The operations on /site-notes.' });
    expect(source.tags.filter((t: { name: string }) => t.name === 'CapacityOffers')).toHaveLength(1); // the frame's own, once
  });
});
