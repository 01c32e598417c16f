// HTTP API of CapacityOffer (the listing API of api/listings.ts, configured for offers).
import { capacityOffer } from '../domain/capacity-offer';
import { listingRouter } from './listings';

export const capacityOffers = listingRouter({
  resource: capacityOffer,
  bodies: { create: 'CapacityOfferCreateRequest', update: 'CapacityOfferUpdateRequest' },
  // "protocol operator with admin scope plus scope capacity:publish"
  cancelScopes: ['capacity:publish'],
  areaFields: ['originArea', 'destinationArea'],
  windowFields: ['availabilityWindow'],
  handlingFields: ['constraints'],
  docs: {
    create: {
      id: 'createCapacityOffer',
      summary: 'Create a capacity offer (draft)',
      description:
        "Creates a capacity offer in status `draft`, resourceVersion 1, owned by the caller's " +
        'organization (the owner is never taken from the body). A draft is visible only to its owner ' +
        'and to protocol operators; every field is optional until publish. Areas must name known ' +
        'UN/LOCODEs, countries and subdivisions; partners named in `visibility` must be known ' +
        'organizations. Needs scope `capacity:publish`. No version check; emits no event.',
      tag: 'CapacityOffers',
      requestBody: {
        required: false,
        content: { 'application/json': { schema: { $ref: './capacity-offer.json#/$defs/CreateRequest' } } },
      },
      responses: {
        '201': "Created, in status draft; the owner's view.",
        '400':
          '`VALIDATION_FAILED` (the body does not match the schema, an unknown area code, an open ring ' +
          'or too many positions, a window whose start is not before its end, an unknown IANA time ' +
          'zone, minCelsius above maxCelsius, an unknown organization in visibility.organizationIds, a ' +
          'bad Idempotency-Key) or `MALFORMED_REQUEST` (not JSON).',
        '403': '`INSUFFICIENT_SCOPE` or `ORGANIZATION_INACTIVE`.',
        '409': '`IDEMPOTENCY_CONFLICT` or `IDEMPOTENCY_IN_PROGRESS` (with Retry-After).',
      },
    },
    list: {
      id: 'listCapacityOffers',
      summary: 'List capacity offers',
      description:
        "The capacity offers the caller may see: its own organization's in every status (drafts " +
        "included), and partners' capacity offers in status `published` or `partiallyMatched` that " +
        'are shared with the caller (an active relationship in force with the owner that grants ' +
        "`capacity:read`, and the capacity offer's visibility includes the caller); partners' " +
        'capacity offers come as the partner projection (see "Partner visibility and disclosure ' +
        'phases" above). A protocol operator sees every capacity offer in the operator\'s view. ' +
        'Filters combine with AND; repeat them with `cursor`. Ordered by id (creation order). Needs ' +
        'scope `capacity:read`.',
      tag: 'CapacityOffers',
      client: {
        name: 'offers',
        columns: [
          'id',
          'status',
          'ownerOrganizationId',
          'originArea.code',
          'destinationArea.code',
          'resourceVersion',
        ],
      },
      parameters: [
        'OfferStatusQuery',
        'OwnerQuery',
        'AreaQuery',
        'OfferFromQuery',
        'OfferToQuery',
        'CursorQuery',
        'LimitQuery',
      ],
      responses: {
        '200':
          'One page of capacity offers, each as the caller may see it; nextCursor is null on the last ' +
          'page.',
        '400':
          '`VALIDATION_FAILED`: an unknown status, an owner that is not an organization id, an area ' +
          'that is not understood or names an unknown code, a from or to that is not an RFC 3339 UTC ' +
          'timestamp, a limit outside 1..200 or a cursor this broker did not issue.',
        '403': '`INSUFFICIENT_SCOPE` or `ORGANIZATION_INACTIVE`.',
      },
    },
    get: {
      id: 'getCapacityOffer',
      summary: 'Read a capacity offer',
      description:
        'Needs scope `capacity:read`. The owner sees its capacity offer in every status and in full; ' +
        "a protocol operator sees it in every status in the operator's view. A partner sees it only " +
        'in status `published` or `partiallyMatched`, through an active relationship in force with ' +
        "the owner that grants `capacity:read`, and only when the capacity offer's visibility " +
        'includes the partner; a partner receives the projection of its disclosure phase, with fewer ' +
        'fields: before a match is accepted never `restrictedDetails` (price, vehicle registration, ' +
        'notes), before a commitment never `externalReferences`, and never `extensions`, ' +
        '`visibility`, `allocations`, `withdrawal`, `cancellation` or `cancelledBy`. Anyone else, and ' +
        'a partner failing any of these conditions, gets 404.',
      tag: 'CapacityOffers',
      responses: {
        '200':
          "The capacity offer as the caller may see it (in full for the owner, the operator's view for " +
          'operators, the partner projection for partners); ETag carries its resourceVersion.',
        '403': '`INSUFFICIENT_SCOPE` or `ORGANIZATION_INACTIVE`.',
        '404':
          "`RESOURCE_NOT_FOUND`: no such capacity offer, or it is not shared with the caller's " +
          'organization (a capacity offer of another organization that is not `published` or ' +
          '`partiallyMatched`, no active relationship granting `capacity:read`, or a visibility that ' +
          'excludes the caller).',
      },
    },
    update: {
      id: 'updateCapacityOffer',
      summary: 'Change draft data of a capacity offer',
      description:
        'JSON merge patch of draft data (`application/merge-patch+json` or `application/json`): each ' +
        'top-level member given replaces that field as a whole, `null` removes it; nested objects are ' +
        'not merged. Owner only and in status `draft` only (otherwise 422 ' +
        '`INVALID_STATE_TRANSITION`); any other organization gets 404. Needs scope ' +
        '`capacity:publish`. Emits no event.',
      tag: 'CapacityOffers',
      responses: {
        '200': { $ref: '#/components/responses/CapacityOfferCommandResult' },
        '400':
          '`VALIDATION_FAILED` (the patch does not match the schema or fails the checks of create, ' +
          'If-Match and observedResourceVersion disagree) or `MALFORMED_REQUEST`.',
        '403': '`INSUFFICIENT_SCOPE` or `ORGANIZATION_INACTIVE` (only the owner may patch; others get 404).',
        '422': '`INVALID_STATE_TRANSITION` (not a draft; with currentState).',
      },
    },
    publish: {
      id: 'publishCapacityOffer',
      summary: 'Publish a draft capacity offer to partners',
      description:
        'draft → published. Owner only; any other organization gets 404. Needs scope ' +
        '`capacity:publish`. Publishing needs `availabilityWindow`, `originArea`, `destinationArea`, ' +
        '`vehicleProfile`, `availableCapacity` (with at least one dimension), `expiresAt` (in the ' +
        'future) and `visibility`, with the availability window starting before it ends; otherwise ' +
        '422 `RESOURCE_NOT_PUBLISHABLE`, whose `errors` name each missing or invalid field. Unless ' +
        "`visibility.mode` is `open`, the owner's organization must have at least one active partner " +
        'relationship in force (otherwise 403 `RELATIONSHIP_INACTIVE`). Records publishedAt; from now ' +
        'on the partners its visibility names see it, until it is withdrawn, expires at expiresAt ' +
        '(status `expired`, `pcx.capacity-offer.expired.v1`) or is cancelled. Emits ' +
        '`pcx.capacity-offer.published.v1` to the owner and those partners.',
      tag: 'CapacityOffers',
      responses: {
        '200': { $ref: '#/components/responses/CapacityOfferCommandResult' },
        '403':
          '`INSUFFICIENT_SCOPE`, `ORGANIZATION_INACTIVE`, or `RELATIONSHIP_INACTIVE` (visibility is not ' +
          'open and the owner has no active partner relationship in force).',
        '422':
          '`INVALID_STATE_TRANSITION` (not a draft) or `RESOURCE_NOT_PUBLISHABLE` (a required field is ' +
          'missing or invalid; `errors` names each).',
      },
    },
    withdraw: {
      id: 'withdrawCapacityOffer',
      summary: 'Withdraw a draft or published capacity offer',
      description:
        '`draft`, `published` or `partiallyMatched` → withdrawn. Owner only; any other organization ' +
        'gets 404. Needs scope `capacity:publish`; a reason is required (reasonCode optional). ' +
        'Records withdrawnAt and the withdrawal; partners no longer see it. A withdrawn draft was ' +
        'never shared. Emits `pcx.capacity-offer.withdrawn.v1` to the owner and the partners it was ' +
        'shared with.',
      tag: 'CapacityOffers',
      responses: {
        '200': { $ref: '#/components/responses/CapacityOfferCommandResult' },
        '400':
          '`VALIDATION_FAILED` (reason missing or blank, body does not match the schema, If-Match and ' +
          'observedResourceVersion disagree) or `MALFORMED_REQUEST`.',
        '403':
          '`INSUFFICIENT_SCOPE` or `ORGANIZATION_INACTIVE` (only the owner may withdraw; others get ' +
          '404).',
        '422':
          '`INVALID_STATE_TRANSITION` (not `published` or `partiallyMatched`: a draft, or already ' +
          'ended; with currentState).',
      },
    },
    cancel: {
      id: 'cancelCapacityOffer',
      summary: 'Cancel a capacity offer (protocol operator)',
      description:
        '`draft`, `published` or `partiallyMatched` → cancelled. Administrative cancel by a protocol ' +
        'operator: a token with `exchange:admin` and `capacity:publish`, of a connector whose ' +
        'organization has role `operator`. A token lacking one of these scopes gets 403 ' +
        '`INSUFFICIENT_SCOPE`; a caller whose organization is not an operator gets 404, as for a ' +
        'missing capacity offer. A reason is required (reasonCode optional). Records cancelledAt, the ' +
        "cancellation and cancelledBy (the operator's organization and connector). Emits " +
        '`pcx.capacity-offer.cancelled.v1` to the owner and the partners it was shared with. The ' +
        "response is the operator's view (every field).",
      tag: 'CapacityOffers',
      responses: {
        '200': { $ref: '#/components/responses/CapacityOfferCommandResult' },
        '400':
          '`VALIDATION_FAILED` (reason missing or blank, body does not match the schema, If-Match and ' +
          'observedResourceVersion disagree) or `MALFORMED_REQUEST`.',
        '403':
          '`INSUFFICIENT_SCOPE` (the token lacks `exchange:admin` and `capacity:publish`; ' +
          '`requiredScope` names a missing one) or `ORGANIZATION_INACTIVE`.',
        '404':
          "`RESOURCE_NOT_FOUND`: no such capacity offer, or the caller's organization is not a protocol " +
          'operator.',
        '422':
          '`INVALID_STATE_TRANSITION` (not `draft`, `published` or `partiallyMatched`; with ' +
          'currentState).',
      },
    },
  },
});
