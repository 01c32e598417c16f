// HTTP API of LoadRequest (the listing API of api/listings.ts, configured for requests), and the
// mapping of the specification's two LoadRequest descriptions: bodies may use the schema form,
// responses always use the resource form (docs/decisions.md, "LoadRequest forms").
import type { FieldError } from '../domain/problems';
import { loadRequest } from '../domain/load-request';
import { listingRouter } from './listings';

/** Schema-form field -> resource-form field, for the fields that only change name. */
const RENAMED: Record<string, string> = { originArea: 'pickupArea', destinationArea: 'deliveryArea' };
/** Schema-form window pairs -> resource-form window. */
const WINDOWS: Record<string, [string, string]> = {
  pickupWindow: ['pickupWindowStart', 'pickupWindowEnd'],
  deliveryWindow: ['deliveryWindowStart', 'deliveryWindowEnd'],
};
const SCHEMA_FORM_CAPACITY = ['weightKg', 'volumeM3', 'vehicleBodyTypes'];

/**
 * Rewrites schema-form fields into the resource form. Giving one concept in both forms is an
 * error (we never guess which one the caller meant); so is half of a window pair. Works for
 * create bodies and for merge patches (where null removes the field).
 */
export function toResourceForm(body: Record<string, any>, errors: FieldError[]): Record<string, any> {
  const out: Record<string, any> = { ...body };
  const conflict = (schemaField: string, resourceField: string) =>
    errors.push({ pointer: `/${schemaField}`, message: `give ${resourceField} or ${schemaField}, not both` });

  for (const [from, to] of Object.entries(RENAMED)) {
    if (!(from in out)) continue;
    if (to in out) conflict(from, to);
    out[to] = out[from];
    delete out[from];
  }
  for (const [window, [startField, endField]] of Object.entries(WINDOWS)) {
    const hasStart = startField in out;
    const hasEnd = endField in out;
    if (!hasStart && !hasEnd) continue;
    if (window in out) conflict(hasStart ? startField : endField, window);
    if (hasStart !== hasEnd) errors.push({ pointer: `/${hasStart ? endField : startField}`, message: `is required together with ${hasStart ? startField : endField}` });
    const [start, end] = [out[startField], out[endField]];
    if (hasStart && hasEnd && (start === null) !== (end === null)) {
      errors.push({ pointer: `/${start === null ? startField : endField}`, message: `must be null exactly when ${start === null ? endField : startField} is` });
    }
    out[window] = start === null && end === null ? null : { start, end };
    delete out[startField];
    delete out[endField];
  }
  const capacity = out.requiredCapacity;
  if (isSchemaFormCapacity(capacity)) {
    const converted: Record<string, unknown> = {};
    if (capacity.weightKg !== undefined) converted.weight = { value: capacity.weightKg, unitCode: 'KGM' };
    if (capacity.volumeM3 !== undefined) converted.volume = { value: capacity.volumeM3, unitCode: 'MTQ' };
    if (capacity.loadingMetres !== undefined) converted.loadingMetres = { value: capacity.loadingMetres, unitCode: 'MTR' };
    out.requiredCapacity = converted;
    if (capacity.vehicleBodyTypes?.length) {
      if ('vehicleRequirements' in out) conflict('requiredCapacity/vehicleBodyTypes', 'vehicleRequirements');
      else out.vehicleRequirements = { bodyTypes: capacity.vehicleBodyTypes };
    }
  }
  return out;
}

/** Whether a requiredCapacity is in the schema form (numbers, or body types). */
function isSchemaFormCapacity(capacity: any): boolean {
  return Boolean(capacity) && typeof capacity === 'object' && (SCHEMA_FORM_CAPACITY.some((k) => k in capacity) || typeof capacity.loadingMetres === 'number');
}

/** Resource-form capacity member -> the schema-form number it was made of. */
const CAPACITY_NUMBERS: Record<string, string> = { weight: 'weightKg', volume: 'volumeM3', loadingMetres: 'loadingMetres' };

/**
 * The pointer into the body the client sent for a pointer into its resource form (what
 * `toResourceForm` made of it), so that a refusal names the field the client wrote:
 * `/requiredCapacity/loadingMetres/value` -> `/requiredCapacity/loadingMetres`,
 * `/pickupWindow/end` -> `/pickupWindowEnd`, `/pickupArea/code` -> `/originArea/code`.
 * Pointers into fields sent in the resource form stay as they are.
 */
export function sentPointer(pointer: string, body: Record<string, any>): string {
  const under = (prefix: string) => pointer === prefix || pointer.startsWith(`${prefix}/`);
  for (const [from, to] of Object.entries(RENAMED)) {
    if (from in body && !(to in body) && under(`/${to}`)) return `/${from}${pointer.slice(to.length + 1)}`;
  }
  for (const [window, [startField, endField]] of Object.entries(WINDOWS)) {
    if (window in body || !(startField in body || endField in body) || !under(`/${window}`)) continue;
    if (under(`/${window}/end`)) return `/${endField}${pointer.slice(window.length + 5)}`;
    if (under(`/${window}/start`)) return `/${startField}${pointer.slice(window.length + 7)}`;
    return `/${startField in body ? startField : endField}`;
  }
  const capacity = body.requiredCapacity;
  if (isSchemaFormCapacity(capacity)) {
    const m = /^\/requiredCapacity\/([^/]+)(\/.*)?$/.exec(pointer);
    if (m && CAPACITY_NUMBERS[m[1]]) return `/requiredCapacity/${CAPACITY_NUMBERS[m[1]]}`;
    if (capacity.vehicleBodyTypes?.length && !('vehicleRequirements' in body) && under('/vehicleRequirements')) {
      return under('/vehicleRequirements/bodyTypes') ? `/requiredCapacity/vehicleBodyTypes${pointer.slice('/vehicleRequirements/bodyTypes'.length)}` : '/requiredCapacity/vehicleBodyTypes';
    }
  }
  return pointer;
}

export const loadRequests = listingRouter({
  resource: loadRequest,
  bodies: { create: 'LoadRequestCreateRequest', update: 'LoadRequestUpdateRequest' },
  // "protocol operator with admin scope" (no further scope named for requests)
  cancelScopes: [],
  areaFields: ['pickupArea', 'deliveryArea'],
  windowFields: ['pickupWindow', 'deliveryWindow'],
  handlingFields: ['handlingRequirements'],
  normalize: toResourceForm,
  sentPointer,
  docs: {
    create: {
      id: 'createLoadRequest',
      summary: 'Create a load request (draft)',
      description:
        "Creates a load request in status `draft`, resourceVersion 1, owned by the caller's " +
        'organization (the owner is never taken from the body). A draft is visible only to its owner ' +
        'and to protocol operators; every field is optional until publish. The body may use the ' +
        'resource form or the schema form (see "LoadRequest input forms" above); the response is ' +
        'always in the resource form. Areas must name known UN/LOCODEs, countries and subdivisions; ' +
        'partners named in `visibility` must be known organizations. Needs scope `loads:publish`. No ' +
        'version check; emits no event.',
      tag: 'LoadRequests',
      requestBody: {
        required: false,
        content: { 'application/json': { schema: { $ref: './load-request.json#/$defs/CreateRequest' } } },
      },
      responses: {
        '201': "Created, in status draft; the owner's view.",
        '400':
          '`VALIDATION_FAILED` (the body does not match the schema, an unknown area code, an open ring ' +
          'or too many positions, a window whose start is not before its end, an unknown IANA time ' +
          'zone, minCelsius above maxCelsius, an unknown organization in visibility.organizationIds, ' +
          'one concept given in both the resource and the schema form, half of a schema-form window ' +
          'pair, a bad Idempotency-Key) or `MALFORMED_REQUEST` (not JSON).',
        '403': '`INSUFFICIENT_SCOPE` or `ORGANIZATION_INACTIVE`.',
        '409': '`IDEMPOTENCY_CONFLICT` or `IDEMPOTENCY_IN_PROGRESS` (with Retry-After).',
      },
    },
    list: {
      id: 'listLoadRequests',
      summary: 'List load requests',
      description:
        "The load requests the caller may see: its own organization's in every status (drafts " +
        "included), and partners' load requests in status `published` or `proposed` that are shared " +
        'with the caller (an active relationship in force with the owner that grants `loads:read`, ' +
        "and the load request's visibility includes the caller); partners' load requests come as the " +
        'partner projection (see "Partner visibility and disclosure phases" above). A protocol ' +
        "operator sees every load request in the operator's view. Filters combine with AND; repeat " +
        'them with `cursor`. Ordered by id (creation order). Needs scope `loads:read`.',
      tag: 'LoadRequests',
      client: {
        name: 'requests',
        columns: [
          'id',
          'status',
          'ownerOrganizationId',
          'pickupArea.code',
          'deliveryArea.code',
          'resourceVersion',
        ],
      },
      parameters: [
        'RequestStatusQuery',
        'OwnerQuery',
        'AreaQuery',
        'RequestFromQuery',
        'RequestToQuery',
        'CursorQuery',
        'LimitQuery',
      ],
      responses: {
        '200':
          'One page of load requests, each as the caller may see it; nextCursor is null on the last ' +
          'page.',
        '400':
          '`VALIDATION_FAILED`: an unknown status, an owner that is not an organization id, an area ' +
          'that is not understood or names an unknown code, a from or to that is not an RFC 3339 UTC ' +
          'timestamp, a limit outside 1..200 or a cursor this broker did not issue.',
        '403': '`INSUFFICIENT_SCOPE` or `ORGANIZATION_INACTIVE`.',
      },
    },
    get: {
      id: 'getLoadRequest',
      summary: 'Read a load request',
      description:
        'Needs scope `loads:read`. The owner sees its load request in every status and in full; a ' +
        "protocol operator sees it in every status in the operator's view. A partner sees it only in " +
        'status `published` or `proposed`, through an active relationship in force with the owner ' +
        "that grants `loads:read`, and only when the load request's visibility includes the partner; " +
        'a partner receives the projection of its disclosure phase, with fewer fields: before a match ' +
        'is accepted never `restrictedDetails` (exact addresses, customer identity, price, complete ' +
        'goods details), before a commitment never `externalReferences`, and never `extensions`, ' +
        '`visibility`, `proposalIds`, `openProposalIds`, `acceptedProposalId`, `withdrawal`, ' +
        '`cancellation` or `cancelledBy`. Anyone else, and a partner failing any of these conditions, ' +
        'gets 404.',
      tag: 'LoadRequests',
      responses: {
        '200':
          "The load request as the caller may see it (in full for the owner, the operator's view for " +
          'operators, the partner projection for partners); ETag carries its resourceVersion.',
        '403': '`INSUFFICIENT_SCOPE` or `ORGANIZATION_INACTIVE`.',
        '404':
          "`RESOURCE_NOT_FOUND`: no such load request, or it is not shared with the caller's " +
          'organization (a load request of another organization that is not `published` or `proposed`, ' +
          'no active relationship granting `loads:read`, or a visibility that excludes the caller).',
      },
    },
    update: {
      id: 'updateLoadRequest',
      summary: 'Change draft data of a load request',
      description:
        'JSON merge patch of draft data (`application/merge-patch+json` or `application/json`): each ' +
        'top-level member given replaces that field as a whole, `null` removes it; nested objects are ' +
        'not merged. Schema-form fields are accepted as on create and rewritten to the resource form ' +
        '(`null` for a schema-form field removes its resource-form field; both halves of a window ' +
        'pair must be given together). Owner only and in status `draft` only (otherwise 422 ' +
        '`INVALID_STATE_TRANSITION`); any other organization gets 404. Needs scope `loads:publish`. ' +
        'Emits no event.',
      tag: 'LoadRequests',
      responses: {
        '200': { $ref: '#/components/responses/LoadRequestCommandResult' },
        '400':
          '`VALIDATION_FAILED` (the patch does not match the schema or fails the checks of create, ' +
          'If-Match and observedResourceVersion disagree) or `MALFORMED_REQUEST`.',
        '403': '`INSUFFICIENT_SCOPE` or `ORGANIZATION_INACTIVE` (only the owner may patch; others get 404).',
        '422': '`INVALID_STATE_TRANSITION` (not a draft; with currentState).',
      },
    },
    publish: {
      id: 'publishLoadRequest',
      summary: 'Publish a draft load request to partners',
      description:
        'draft → published. Owner only; any other organization gets 404. Needs scope `loads:publish`. ' +
        'Publishing needs `pickupArea`, `pickupWindow`, `deliveryArea`, `deliveryWindow`, ' +
        '`requiredCapacity` (with at least one dimension), `vehicleRequirements`, `goodsProfile`, ' +
        '`expiresAt` (in the future) and `visibility`, with each window starting before it ends and ' +
        'the delivery window ending after the pickup window starts; otherwise 422 ' +
        '`RESOURCE_NOT_PUBLISHABLE`, whose `errors` name each missing or invalid field. Unless ' +
        "`visibility.mode` is `open`, the owner's organization must have at least one active partner " +
        'relationship in force (otherwise 403 `RELATIONSHIP_INACTIVE`). Records publishedAt; from now ' +
        'on the partners its visibility names see it, until it is withdrawn, expires at expiresAt ' +
        '(status `expired`, `pcx.load-request.expired.v1`) or is cancelled. Emits ' +
        '`pcx.load-request.published.v1` to the owner and those partners.',
      tag: 'LoadRequests',
      responses: {
        '200': { $ref: '#/components/responses/LoadRequestCommandResult' },
        '403':
          '`INSUFFICIENT_SCOPE`, `ORGANIZATION_INACTIVE`, or `RELATIONSHIP_INACTIVE` (visibility is not ' +
          'open and the owner has no active partner relationship in force).',
        '422':
          '`INVALID_STATE_TRANSITION` (not a draft) or `RESOURCE_NOT_PUBLISHABLE` (a required field is ' +
          'missing or invalid; `errors` names each).',
      },
    },
    withdraw: {
      id: 'withdrawLoadRequest',
      summary: 'Withdraw a draft or published load request',
      description:
        '`draft`, `published` or `proposed` → withdrawn. Owner only; any other organization gets 404. ' +
        'Needs scope `loads:publish`; a reason is required (reasonCode optional). Records withdrawnAt ' +
        'and the withdrawal; partners no longer see it. A withdrawn draft was never shared. Emits ' +
        '`pcx.load-request.withdrawn.v1` to the owner and the partners it was shared with.',
      tag: 'LoadRequests',
      responses: {
        '200': { $ref: '#/components/responses/LoadRequestCommandResult' },
        '400':
          '`VALIDATION_FAILED` (reason missing or blank, body does not match the schema, If-Match and ' +
          'observedResourceVersion disagree) or `MALFORMED_REQUEST`.',
        '403':
          '`INSUFFICIENT_SCOPE` or `ORGANIZATION_INACTIVE` (only the owner may withdraw; others get ' +
          '404).',
        '422':
          '`INVALID_STATE_TRANSITION` (not `published` or `proposed`: a draft, or already ended; with ' +
          'currentState).',
      },
    },
    cancel: {
      id: 'cancelLoadRequest',
      summary: 'Cancel a load request (protocol operator)',
      description:
        '`draft`, `published` or `proposed` → cancelled. Administrative cancel by a protocol ' +
        'operator: a token with `exchange:admin` (no further scope), of a connector whose ' +
        'organization has role `operator`. A token lacking one of these scopes gets 403 ' +
        '`INSUFFICIENT_SCOPE`; a caller whose organization is not an operator gets 404, as for a ' +
        'missing load request. A reason is required (reasonCode optional). Records cancelledAt, the ' +
        "cancellation and cancelledBy (the operator's organization and connector). Emits " +
        '`pcx.load-request.cancelled.v1` to the owner and the partners it was shared with. The ' +
        "response is the operator's view (every field).",
      tag: 'LoadRequests',
      responses: {
        '200': { $ref: '#/components/responses/LoadRequestCommandResult' },
        '400':
          '`VALIDATION_FAILED` (reason missing or blank, body does not match the schema, If-Match and ' +
          'observedResourceVersion disagree) or `MALFORMED_REQUEST`.',
        '403':
          '`INSUFFICIENT_SCOPE` (the token lacks `exchange:admin` (no further scope); `requiredScope` ' +
          'names a missing one) or `ORGANIZATION_INACTIVE`.',
        '404':
          "`RESOURCE_NOT_FOUND`: no such load request, or the caller's organization is not a protocol " +
          'operator.',
        '422': '`INVALID_STATE_TRANSITION` (not `draft`, `published` or `proposed`; with currentState).',
      },
    },
  },
});
