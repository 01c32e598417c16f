// RFC 9457 problem details: the one catalogue of error codes. Every refusal anywhere (API,
// gates, workflow validators) names one of these codes; the HTTP layer turns it into
// application/problem+json. Problem types are URNs `urn:exchange:protocol:error:<kebab-name>`
// (docs/decisions.md, "Problem type form").

export const PROBLEM_BASE = 'urn:exchange:protocol:error';

export const PROBLEMS = {
  VALIDATION_FAILED: { status: 400, name: 'validation-failed', title: 'The request is not valid' },
  MALFORMED_REQUEST: { status: 400, name: 'malformed-request', title: 'The request could not be read' },
  DPOP_PROOF_INVALID: { status: 400, name: 'dpop-proof-invalid', title: 'The DPoP proof of the token request was not accepted' },
  UNAUTHENTICATED: { status: 401, name: 'unauthenticated', title: 'Authentication is required' },
  TOKEN_AUDIENCE_MISMATCH: { status: 401, name: 'token-audience-mismatch', title: 'The token is not for this broker' },
  INVALID_TOKEN: { status: 401, name: 'invalid-token', title: 'The token is not valid' },
  CONNECTOR_INACTIVE: { status: 401, name: 'connector-inactive', title: 'The connector is not registered or not active' },
  CREDENTIAL_INVALID: { status: 401, name: 'credential-invalid', title: 'The credential the token was issued to was revoked or has expired' },
  DPOP_PROOF_REFUSED: { status: 401, name: 'dpop-proof-refused', title: 'The DPoP proof sent with the token was not accepted' },
  USER_INACTIVE: { status: 401, name: 'user-inactive', title: 'The user is not registered or not active' },
  ORGANIZATION_INACTIVE: { status: 403, name: 'organization-inactive', title: 'The organization is not active' },
  ORGANIZATION_UNVERIFIED: { status: 403, name: 'organization-unverified', title: 'The organization is not verified yet: it may only manage itself' },
  ORGANIZATION_SUSPENDED: { status: 403, name: 'organization-suspended', title: 'The organization is suspended: it may read and manage itself, nothing else' },
  INSUFFICIENT_SCOPE: { status: 403, name: 'insufficient-scope', title: 'The token lacks a required scope' },
  ORGANIZATION_BINDING_VIOLATION: { status: 403, name: 'organization-binding-violation', title: 'The payload names another organization than the caller' },
  RELATIONSHIP_INACTIVE: { status: 403, name: 'relationship-inactive', title: 'No active partner relationship allows this' },
  ACTOR_NOT_PERMITTED: { status: 403, name: 'actor-not-permitted', title: 'This organization may not perform this command' },
  RESOURCE_NOT_FOUND: { status: 404, name: 'resource-not-found', title: 'The resource does not exist or is not visible' },
  ROUTE_NOT_FOUND: { status: 404, name: 'route-not-found', title: 'No such endpoint' },
  METHOD_NOT_ALLOWED: { status: 405, name: 'method-not-allowed', title: 'Method not allowed on this endpoint' },
  STALE_RESOURCE_VERSION: { status: 409, name: 'stale-resource-version', title: 'The resource has changed' },
  IDEMPOTENCY_CONFLICT: { status: 409, name: 'idempotency-conflict', title: 'The Idempotency-Key was used for another request' },
  IDEMPOTENCY_IN_PROGRESS: { status: 409, name: 'idempotency-in-progress', title: 'A request with this Idempotency-Key is still running' },
  DUPLICATE_RELATIONSHIP: { status: 409, name: 'duplicate-relationship', title: 'A non-terminated relationship already exists for this pair' },
  RESOURCE_EXISTS: { status: 409, name: 'resource-exists', title: 'The resource exists already' },
  CREDENTIAL_EXISTS: { status: 409, name: 'credential-exists', title: 'The connector has a credential with this key id already' },
  CREDENTIAL_LIMIT: { status: 409, name: 'credential-limit', title: 'The connector has as many active credentials as it may' },
  DUPLICATE_MATCH: { status: 409, name: 'duplicate-match', title: 'This offer and this load request already have a proposal' },
  CAPACITY_EXCEEDED: { status: 409, name: 'capacity-exceeded', title: 'The offer has not enough remaining capacity' },
  PROPOSAL_LIMIT_REACHED: { status: 409, name: 'proposal-limit-reached', title: 'The load request has as many open proposals as allowed' },
  DECISION_TERMINAL: { status: 409, name: 'decision-terminal', title: 'The match decision has already ended' },
  DECISION_IN_PROGRESS: { status: 409, name: 'decision-in-progress', title: 'The acceptance of this proposal is being committed' },
  HANDOVER_CONFLICT: { status: 409, name: 'handover-conflict', title: 'The commitment already has a different handover' },
  ACKNOWLEDGEMENT_CONFLICT: { status: 409, name: 'acknowledgement-conflict', title: 'The handover already has a different final acknowledgement' },
  PENDING_RELATIONSHIP_LIMIT: { status: 409, name: 'pending-relationship-limit', title: 'Too many pending outbound relationships' },
  RECORD_PURGED: { status: 410, name: 'record-purged', title: 'The record was purged at the end of its retention period' },
  FEED_HISTORY_CHANGED: { status: 410, name: 'feed-history-changed', title: 'The broker was restored to an earlier point: the cursor names events that are gone' },
  REQUEST_TIMEOUT: { status: 408, name: 'request-timeout', title: 'The request was not received in time' },
  PAYLOAD_TOO_LARGE: { status: 413, name: 'payload-too-large', title: 'The request body is too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, name: 'unsupported-media-type', title: 'The request body must be application/json' },
  INVALID_STATE_TRANSITION: { status: 422, name: 'invalid-state-transition', title: 'The command is not allowed in the current state' },
  RESOURCE_NOT_PUBLISHABLE: { status: 422, name: 'resource-not-publishable', title: 'The resource lacks fields or values required to publish' },
  RESOURCE_EXPIRED: { status: 422, name: 'resource-expired', title: 'The resource or its validity has expired' },
  WINDOW_PASSED: { status: 422, name: 'window-passed', title: 'A time window has ended, or ends too soon for a match to be executed' },
  INCOMPATIBLE_MATCH: { status: 422, name: 'incompatible-match', title: 'The offer and the load request are not compatible' },
  LISTING_INCOMPLETE: { status: 422, name: 'listing-incomplete', title: 'The offer or the load request lacks terms matching needs' },
  CANCELLATION_NOT_ALLOWED: { status: 422, name: 'cancellation-not-allowed', title: 'The cancellation policy does not allow this cancel' },
  AMENDMENT_NOT_ALLOWED: { status: 422, name: 'amendment-not-allowed', title: 'The amendment policy does not allow amendments' },
  INCOMPATIBLE_DECISION_POLICY: { status: 422, name: 'incompatible-decision-policy', title: 'The decision policy cannot be changed now' },
  CREDENTIAL_KIND_NOT_ALLOWED: { status: 422, name: 'credential-kind-not-allowed', title: 'This broker does not issue this kind of credential' },
  SCOPE_ABOVE_CEILING: { status: 422, name: 'scope-above-ceiling', title: 'A scope exceeds what the organization may give its connectors' },
  SCOPES_NOT_GRANTED: { status: 422, name: 'scopes-not-granted', title: 'A partnering policy does not grant the requested scopes' },
  WEBHOOK_TARGET_REFUSED: { status: 422, name: 'webhook-target-refused', title: 'The webhook target is not an allowed https URL' },
  UNKNOWN_ORGANIZATION: { status: 422, name: 'unknown-organization', title: 'The organization is not known to the broker' },
  PRECONDITION_REQUIRED: { status: 428, name: 'precondition-required', title: 'If-Match or an observed resourceVersion is required' },
  RATE_LIMITED: { status: 429, name: 'rate-limited', title: 'Too many requests' },
  REQUEST_HEADER_FIELDS_TOO_LARGE: { status: 431, name: 'request-header-fields-too-large', title: 'The request header fields are too large' },
  INTERNAL_ERROR: { status: 500, name: 'internal-error', title: 'The broker could not complete the request' },
  SERVICE_UNAVAILABLE: { status: 503, name: 'service-unavailable', title: 'A dependency of the broker is unavailable' },
} as const;

export type ProblemCode = keyof typeof PROBLEMS;

export interface FieldError {
  pointer: string;
  message: string;
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  code: ProblemCode;
  detail: string;
  correlationId?: string;
  errors?: FieldError[];
  [extension: string]: unknown;
}

export function problemType(code: ProblemCode): string {
  return `${PROBLEM_BASE}:${PROBLEMS[code].name}`;
}

/** A refusal the caller can act on. Thrown anywhere in the API; rendered by the error handler. */
export class Problem extends Error {
  constructor(
    public readonly code: ProblemCode,
    detail?: string,
    public readonly extensions: Record<string, unknown> = {},
    public readonly headers: Record<string, string> = {},
  ) {
    super(detail ?? PROBLEMS[code].title);
  }

  /**
   * A machine's refusal (domain/machine.ts) as the problem the caller gets: its code, detail and
   * extensions. A code outside the catalogue is the broker's fault: 500 without internals.
   */
  static fromRefusal(refusal: { code: string; detail: string; extensions?: Record<string, unknown> }): Problem {
    if (!isProblemCode(refusal.code)) return new Problem('INTERNAL_ERROR', 'the broker refused the command with an unknown code; quote the correlation id when reporting it');
    return new Problem(refusal.code, refusal.detail, refusal.extensions ?? {});
  }

  /** A command whose outcome is unknown (Temporal unreachable, too slow): the caller retries with its Idempotency-Key. */
  static unavailable(): Problem {
    return new Problem('SERVICE_UNAVAILABLE', 'the workflow service did not complete the command; retry with the same Idempotency-Key', {}, { 'retry-after': '1' });
  }

  get status(): number {
    return PROBLEMS[this.code].status;
  }

  body(correlationId?: string): ProblemBody {
    return {
      type: problemType(this.code),
      title: PROBLEMS[this.code].title,
      status: this.status,
      code: this.code,
      detail: this.message,
      ...(correlationId ? { correlationId } : {}),
      ...this.extensions,
    };
  }
}

export function isProblemCode(value: unknown): value is ProblemCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(PROBLEMS, value);
}
