// What the document says of a listing's operations (capacity offers and load requests share their
// router, api/listings.ts, and so their words): one text per operation with the listing's own
// nouns, scopes, statuses and fields put in. api/openapi-paths.ts derives the rest.
import type { Resource } from '../domain/resource';
import type { OperationDoc } from './operations';

/** What differs between the listings' texts. */
export interface ListingWords {
  /** 'capacity offer' */
  noun: string;
  /** The SDK's and `pcx`'s name for the collection, and the columns of `pcx`'s table. */
  client: { name: string; columns: readonly string[] };
  /** The prefix of its own query parameters in the frame (`OfferStatusQuery`). */
  queryPrefix: 'Offer' | 'Request';
  /** What publishing needs: the fields and the window rule. */
  publishNeeds: string;
  /** The windows a match must still be able to meet, in words ("availability window"). */
  lapseWindows: string;
  /** What `restrictedDetails` holds, as partners learn it. */
  restricted: string;
  /** The fields of its own that partners never see. */
  partnerHidden: string;
  /** Added to the create's description after "every field is optional until publish." */
  createNote?: string;
  /** Added to the create's 400 before "a bad Idempotency-Key". */
  createErrors?: string;
  /** Added to the PATCH's description after "nested objects are not merged." */
  updateNote?: string;
}

const code = (text: string) => `\`${text}\``;
const either = (words: readonly string[]) => `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;

type Name = 'create' | 'list' | 'get' | 'update' | 'publish' | 'withdraw' | 'cancel';

/** The words every text of one listing uses. */
function termsOf(resource: Resource<any, any>, cancelScopes: readonly string[], words: ListingWords) {
  const { noun } = words;
  const Kind = noun.replace(/(^| )([a-z])/g, (_m, _s, letter: string) => letter.toUpperCase());
  const read = code(resource.scopes.read);
  const write = code(resource.scopes.write);
  const shared = either((resource.partnerStatuses ?? []).map(code));
  const open = either(['draft', ...(resource.partnerStatuses ?? [])].map(code));
  const result = { $ref: `#/components/responses/${Kind}CommandResult` };
  const admin = cancelScopes.length ? ` and ${cancelScopes.map(code).join(' and ')}` : ' (no further scope)';
  const event = (name: string) => code(`pcx.${resource.kind}.${name}.v1`);
  return { noun, Kind, read, write, shared, open, result, admin, event, words };
}
type Terms = ReturnType<typeof termsOf>;

/** The docs of a listing's seven operations. */
export function listingDocs(resource: Resource<any, any>, cancelScopes: readonly string[], words: ListingWords): Record<Name, OperationDoc> {
  const terms = termsOf(resource, cancelScopes, words);
  return { ...readDocs(terms, resource.kind), ...commandDocs(terms) };
}

/** Create, list and read. */
function readDocs({ noun, Kind, read, write, shared, words }: Terms, kind: string): Record<'create' | 'list' | 'get', OperationDoc> {
  const notShared =
    `\`RESOURCE_NOT_FOUND\`: no such ${noun}, or it is not shared with the caller's organization (a ${noun} of another organization ` +
    `that is not ${shared}, no active relationship granting ${read}, or a visibility that excludes the caller).`;
  return {
    create: {
      id: `create${Kind}`,
      summary: `Create a ${noun} (draft)`,
      description:
        `Creates a ${noun} in status \`draft\`, resourceVersion 1, owned by the caller's organization (the owner is never taken ` +
        'from the body). A draft is visible only to its owner and to protocol operators; every field is optional until publish. ' +
        `${words.createNote ? `${words.createNote} ` : ''}Areas must name known UN/LOCODEs, countries and subdivisions; partners ` +
        `named in \`visibility\` must be known organizations. Needs scope ${write}. No version check; emits no event.`,
      requestBody: { required: false, content: { 'application/json': { schema: { $ref: `./${kind}.json#/$defs/CreateRequest` } } } },
      responses: {
        '201': "Created, in status draft; the owner's view.",
        '400':
          '`VALIDATION_FAILED` (the body does not match the schema, an unknown area code, an open ring or too many positions, a ' +
          'window whose start is not before its end, an unknown IANA time zone, minCelsius above maxCelsius, an unknown ' +
          `organization in visibility.organizationIds, ${words.createErrors ? `${words.createErrors}, ` : ''}a bad ` +
          'Idempotency-Key) or `MALFORMED_REQUEST` (not JSON).',
        '403': '`INSUFFICIENT_SCOPE` or `ORGANIZATION_INACTIVE`.',
        '409': '`IDEMPOTENCY_CONFLICT` or `IDEMPOTENCY_IN_PROGRESS` (with Retry-After).',
      },
    },
    list: {
      id: `list${Kind}s`,
      summary: `List ${noun}s`,
      description:
        `The ${noun}s the caller may see: its own organization's in every status (drafts included), and partners' ${noun}s in ` +
        `status ${shared} that are shared with the caller (an active relationship in force with the owner that grants ${read}, ` +
        `and the ${noun}'s visibility includes the caller); partners' ${noun}s come as the partner projection (see "Partner ` +
        `visibility and disclosure phases" above). A protocol operator sees every ${noun} in the operator's view. Filters ` +
        `combine with AND; repeat them with \`cursor\`. Ordered by id (creation order). Needs scope ${read}.`,
      client: words.client,
      parameters: [`${words.queryPrefix}StatusQuery`, 'OwnerQuery', 'SeriesQuery', 'AreaQuery', `${words.queryPrefix}FromQuery`, `${words.queryPrefix}ToQuery`, 'CursorQuery', 'LimitQuery'],
      responses: {
        '200': `One page of ${noun}s, each as the caller may see it; nextCursor is null on the last page.`,
        '400':
          '`VALIDATION_FAILED`: an unknown status, an owner that is not an organization id, a series that is not a UUID, an area that is not understood or ' +
          'names an unknown code, a from or to that is not an RFC 3339 UTC timestamp, a limit outside 1..200 or a cursor this ' +
          'broker did not issue.',
        '403': '`INSUFFICIENT_SCOPE` or `ORGANIZATION_INACTIVE`.',
      },
    },
    get: {
      id: `get${Kind}`,
      summary: `Read a ${noun}`,
      description:
        `Needs scope ${read}. The owner sees its ${noun} in every status and in full; a protocol operator sees it in every ` +
        `status in the operator's view. A partner sees it only in status ${shared}, through an active relationship in force ` +
        `with the owner that grants ${read}, and only when the ${noun}'s visibility includes the partner; a partner receives ` +
        'the projection of its disclosure phase, with fewer fields: before a match is accepted never `restrictedDetails` ' +
        `(${words.restricted}), before a commitment never \`externalReferences\`, and never \`extensions\`, \`visibility\`, ` +
        `${words.partnerHidden}, \`withdrawal\`, \`cancellation\` or \`cancelledBy\`. Anyone else, and a partner failing any ` +
        'of these conditions, gets 404.',
      responses: {
        '200':
          `The ${noun} as the caller may see it (in full for the owner, the operator's view for operators, the partner ` +
          'projection for partners); ETag carries its resourceVersion.',
        '403': '`INSUFFICIENT_SCOPE` or `ORGANIZATION_INACTIVE`.',
        '404': notShared,
      },
    },
  };
}

/** The draft's PATCH and the lifecycle commands. */
function commandDocs({ noun, Kind, write, shared, open, result, admin, event, words }: Terms): Record<'update' | 'publish' | 'withdraw' | 'cancel', OperationDoc> {
  return {
    update: {
      id: `update${Kind}`,
      summary: `Change draft data of a ${noun}`,
      description:
        'JSON merge patch of draft data (`application/merge-patch+json` or `application/json`): each top-level member given ' +
        `replaces that field as a whole, \`null\` removes it; nested objects are not merged. ${words.updateNote ? `${words.updateNote} ` : ''}` +
        'Owner only and in status `draft` only (otherwise 422 `INVALID_STATE_TRANSITION`); any other organization gets 404. ' +
        `Needs scope ${write}. Emits no event.`,
      responses: {
        '200': result,
        '400':
          '`VALIDATION_FAILED` (the patch does not match the schema or fails the checks of create, If-Match and ' +
          'observedResourceVersion disagree) or `MALFORMED_REQUEST`.',
        '403': '`INSUFFICIENT_SCOPE` or `ORGANIZATION_INACTIVE` (only the owner may patch; others get 404).',
        '422': '`INVALID_STATE_TRANSITION` (not a draft; with currentState).',
      },
    },
    publish: {
      id: `publish${Kind}`,
      summary: `Publish a draft ${noun} to partners`,
      description:
        `draft → published. Owner only; any other organization gets 404. Needs scope ${write}. Publishing needs ` +
        `${words.publishNeeds}; otherwise 422 \`RESOURCE_NOT_PUBLISHABLE\`, whose \`errors\` name each missing or invalid field. ` +
        "Unless `visibility.mode` is `open`, the owner's organization must have at least one active partner relationship in " +
        'force (otherwise 403 `RELATIONSHIP_INACTIVE`). Records publishedAt; from now on the partners its visibility names see ' +
        `it, until it is withdrawn, expires at expiresAt (status \`expired\`, ${event('expired')}), lapses when its ` +
        `${words.lapseWindows} can no longer be met (less than 60 minutes left: status \`expired\` with \`expiry.reasonCode\` ` +
        `\`WINDOW_PASSED\`, ${event('lapsed')}; its open proposals end with it) or is cancelled. A ${noun} whose ` +
        `${words.lapseWindows} ends less than 60 minutes from now is not published: 422 \`WINDOW_PASSED\`, its \`errors\` ` +
        'pointing at the window\'s end. Emits ' +
        `${event('published')} to the owner and those partners.`,
      responses: {
        '200': result,
        '403':
          '`INSUFFICIENT_SCOPE`, `ORGANIZATION_INACTIVE`, or `RELATIONSHIP_INACTIVE` (visibility is not open and the owner has ' +
          'no active partner relationship in force).',
        '422':
          '`INVALID_STATE_TRANSITION` (not a draft), `RESOURCE_NOT_PUBLISHABLE` (a required field is missing or invalid; ' +
          '`errors` names each) or `WINDOW_PASSED` (a window ends less than 60 minutes from now; `errors` names it).',
      },
    },
    withdraw: {
      id: `withdraw${Kind}`,
      summary: `Withdraw a draft or published ${noun}`,
      description:
        `${open} → withdrawn. Owner only; any other organization gets 404. Needs scope ${write}; a reason is required ` +
        '(reasonCode optional). Records withdrawnAt and the withdrawal; partners no longer see it. A withdrawn draft was never ' +
        `shared. Emits ${event('withdrawn')} to the owner and the partners it was shared with.`,
      responses: {
        '200': result,
        '403': '`INSUFFICIENT_SCOPE` or `ORGANIZATION_INACTIVE` (only the owner may withdraw; others get 404).',
        '422': `\`INVALID_STATE_TRANSITION\` (not ${shared}: a draft, or already ended; with currentState).`,
      },
    },
    cancel: {
      id: `cancel${Kind}`,
      summary: `Cancel a ${noun} (protocol operator)`,
      description:
        `${open} → cancelled. Administrative cancel by a protocol operator: a token with \`exchange:admin\`${admin}, of a ` +
        'connector whose organization has role `operator`. A token lacking one of these scopes gets 403 `INSUFFICIENT_SCOPE`; ' +
        `a caller whose organization is not an operator gets 404, as for a missing ${noun}. A reason is required (reasonCode ` +
        "optional). Records cancelledAt, the cancellation and cancelledBy (the operator's organization and connector). Emits " +
        `${event('cancelled')} to the owner and the partners it was shared with. The response is the operator's view (every ` +
        'field).',
      responses: {
        '200': result,
        '403': `\`INSUFFICIENT_SCOPE\` (the token lacks \`exchange:admin\`${admin}; \`requiredScope\` names a missing one) or \`ORGANIZATION_INACTIVE\`.`,
        '404': `\`RESOURCE_NOT_FOUND\`: no such ${noun}, or the caller's organization is not a protocol operator.`,
        '422': `\`INVALID_STATE_TRANSITION\` (not ${open}; with currentState).`,
      },
    },
  };
}
