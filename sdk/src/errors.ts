// Errors of the SDK. A broker refusal is an RFC 9457 problem: PcxProblemError carries its body,
// status, stable `code` and correlation id, with a class per category a caller reacts to
// differently (retry after re-reading, fix the request, give up), and the code itself as a typed
// union, so `err.code === 'CAPACITY_EXCEEDED'` is checked by the compiler. Failures without an
// answer are PcxConnectionError and PcxTimeoutError.

/** Every problem code the broker answers with (its catalogue, domain/problems.ts; a test keeps them equal). */
export const PROBLEM_CODES = [
  'VALIDATION_FAILED',
  'MALFORMED_REQUEST',
  'UNAUTHENTICATED',
  'TOKEN_AUDIENCE_MISMATCH',
  'INVALID_TOKEN',
  'DPOP_PROOF_INVALID',
  'DPOP_PROOF_REFUSED',
  'CONNECTOR_INACTIVE',
  'CREDENTIAL_INVALID',
  'USER_INACTIVE',
  'ORGANIZATION_INACTIVE',
  'ORGANIZATION_UNVERIFIED',
  'ORGANIZATION_SUSPENDED',
  'INSUFFICIENT_SCOPE',
  'ORGANIZATION_BINDING_VIOLATION',
  'RELATIONSHIP_INACTIVE',
  'ACTOR_NOT_PERMITTED',
  'RESOURCE_NOT_FOUND',
  'ROUTE_NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'STALE_RESOURCE_VERSION',
  'IDEMPOTENCY_CONFLICT',
  'IDEMPOTENCY_IN_PROGRESS',
  'DUPLICATE_RELATIONSHIP',
  'RESOURCE_EXISTS',
  'CREDENTIAL_EXISTS',
  'CREDENTIAL_LIMIT',
  'DUPLICATE_MATCH',
  'CAPACITY_EXCEEDED',
  'PROPOSAL_LIMIT_REACHED',
  'DECISION_TERMINAL',
  'DECISION_IN_PROGRESS',
  'HANDOVER_CONFLICT',
  'ACKNOWLEDGEMENT_CONFLICT',
  'PENDING_RELATIONSHIP_LIMIT',
  'FEED_HISTORY_CHANGED',
  'RECORD_PURGED',
  'REQUEST_TIMEOUT',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'INVALID_STATE_TRANSITION',
  'RESOURCE_NOT_PUBLISHABLE',
  'RESOURCE_EXPIRED',
  'WINDOW_PASSED',
  'INCOMPATIBLE_MATCH',
  'LISTING_INCOMPLETE',
  'CANCELLATION_NOT_ALLOWED',
  'AMENDMENT_NOT_ALLOWED',
  'INCOMPATIBLE_DECISION_POLICY',
  'CREDENTIAL_KIND_NOT_ALLOWED',
  'SCOPE_ABOVE_CEILING',
  'SCOPES_NOT_GRANTED',
  'WEBHOOK_TARGET_REFUSED',
  'UNKNOWN_ORGANIZATION',
  'PRECONDITION_REQUIRED',
  'RATE_LIMITED',
  'REQUEST_HEADER_FIELDS_TOO_LARGE',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
] as const;

export type ProblemCode = (typeof PROBLEM_CODES)[number];

/** An RFC 9457 problem body as the broker sends it. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  code: ProblemCode;
  correlationId?: string;
  errors?: { pointer: string; message: string }[];
  [extension: string]: unknown;
}

/** The field errors of a problem as the end of a message: ` (/pointer: message; ...)`, or nothing. */
function fieldErrors(problem: Problem): string {
  const errors = Array.isArray(problem.errors) ? problem.errors : [];
  return errors.length ? ` (${errors.map((e) => `${e.pointer || '/'}: ${e.message}`).join('; ')})` : '';
}

/** Any failure of a call made through the SDK. */
export class PcxError extends Error {
  override name = 'PcxError';
}

/** The broker answered with a problem. */
export class PcxProblemError extends PcxError {
  override name = 'PcxProblemError';
  readonly status: number;
  readonly code: ProblemCode;
  readonly problem: Problem;
  readonly correlationId: string | undefined;
  /** Method and path of the call, for messages and logs. */
  readonly request: { method: string; path: string };
  constructor(problem: Problem, request: { method: string; path: string }) {
    super(`${request.method} ${request.path}: ${problem.status} ${problem.code}: ${problem.detail ?? problem.title}${fieldErrors(problem)}`);
    this.problem = problem;
    this.status = problem.status;
    this.code = problem.code;
    this.correlationId = problem.correlationId;
    this.request = request;
  }
}

/** 400: the request does not fit the contract (`problem.errors` points at each field). */
export class ValidationError extends PcxProblemError {
  override name = 'ValidationError';
}
/** 401: no valid token, or the connector is not active. */
export class AuthenticationError extends PcxProblemError {
  override name = 'AuthenticationError';
}
/** 403: the token lacks a scope, or no relationship or role allows the command. */
export class PermissionError extends PcxProblemError {
  override name = 'PermissionError';
}
/** 404: the resource does not exist or is not visible to this organization (the two are one answer). */
export class NotFoundError extends PcxProblemError {
  override name = 'NotFoundError';
}
/** 409 STALE_RESOURCE_VERSION: re-read the resource and decide again (PcxClient.retryOnStale). */
export class StaleResourceVersionError extends PcxProblemError {
  override name = 'StaleResourceVersionError';
}
/** 409, other codes: the command conflicts with what exists (a duplicate, capacity, an idempotency key reused). */
export class ConflictError extends PcxProblemError {
  override name = 'ConflictError';
}
/** 422: the command is not allowed in the resource's state, or by its policies. */
export class StateError extends PcxProblemError {
  override name = 'StateError';
}
/** 428: a command without If-Match (the SDK sends it when given the resource or its version). */
export class PreconditionRequiredError extends PcxProblemError {
  override name = 'PreconditionRequiredError';
}
/** 429 after the SDK's retries. */
export class RateLimitError extends PcxProblemError {
  override name = 'RateLimitError';
}
/** 5xx after the SDK's retries. */
export class ServerError extends PcxProblemError {
  override name = 'ServerError';
}

/** No answer: the connection failed on every attempt. */
export class PcxConnectionError extends PcxError {
  override name = 'PcxConnectionError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
/** No answer within the call's timeout, on every attempt. */
export class PcxTimeoutError extends PcxError {
  override name = 'PcxTimeoutError';
}

/** The error class of each status a problem may have (5xx: ServerError; any other: PcxProblemError). */
const CLASS_OF_STATUS: Readonly<Record<number, typeof PcxProblemError>> = {
  400: ValidationError,
  401: AuthenticationError,
  403: PermissionError,
  404: NotFoundError,
  409: ConflictError,
  422: StateError,
  428: PreconditionRequiredError,
  429: RateLimitError,
};

/** The error class of a problem: its code decides first (a stale version is a conflict of its own), then its status. */
export function problemError(problem: Problem, request: { method: string; path: string }): PcxProblemError {
  const Class = problem.code === 'STALE_RESOURCE_VERSION' ? StaleResourceVersionError : (CLASS_OF_STATUS[problem.status] ?? (problem.status >= 500 ? ServerError : PcxProblemError));
  return new Class(problem, request);
}

/** Whether `err` is the broker's problem with this code (a type guard for its body). */
export function isProblem(err: unknown, code?: ProblemCode): err is PcxProblemError {
  return err instanceof PcxProblemError && (code === undefined || err.code === code);
}

/**
 * The problem of an answer that is not a problem document (a proxy's HTML 502, say): a stand-in
 * with the status and a generic code, so callers always get a PcxProblemError for a non-2xx.
 */
export function problemOfStatus(status: number, detail: string): Problem {
  const code: ProblemCode =
    status === 401 ? 'UNAUTHENTICATED' : status === 403 ? 'INSUFFICIENT_SCOPE' : status === 404 ? 'ROUTE_NOT_FOUND' : status === 429 ? 'RATE_LIMITED' : status === 503 || status === 502 || status === 504 ? 'SERVICE_UNAVAILABLE' : status >= 500 ? 'INTERNAL_ERROR' : 'MALFORMED_REQUEST';
  return { type: 'about:blank', title: `HTTP ${status}`, status, code, detail };
}
