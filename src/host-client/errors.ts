// What can go wrong talking to a Host, as distinct classes callers can branch on:
//  - HostApiError: the Host answered with a well-formed v1 error envelope (a decision).
//  - ProtocolViolationError: the answer is outside the v1 contract; never interpreted.
//  - TransportError: no answer at all (connection, timeout); the request may or may not
//    have reached the Host.
// None of them ever carries the bearer token: messages are built from route names, codes
// and Host-supplied text only.

export const ERROR_CODES = {
  invalid_argument: 400,
  artifact_invalid: 400,
  unauthenticated: 401,
  permission_denied: 403,
  policy_denied: 403,
  form_unknown: 404,
  resource_not_found: 404,
  operation_not_found: 404,
  artifact_missing: 404,
  form_not_installed: 409,
  resource_busy: 409,
  import_conflict: 409,
  operation_cancelled: 409,
  dependency_in_use: 409,
  migration_required: 409,
  uid_mismatch: 409,
  revision_conflict: 412,
  generation_conflict: 412,
  unsupported_capability: 422,
  rate_limited: 429,
  internal_error: 500,
  backend_unavailable: 503,
  form_unavailable: 503,
  deadline_exceeded: 504,
} as const;

export type HostErrorCode = keyof typeof ERROR_CODES;

export const RETRYABLE_CODES: ReadonlySet<HostErrorCode> = new Set(['resource_busy', 'backend_unavailable', 'rate_limited', 'deadline_exceeded']);

export function isHostErrorCode(code: unknown): code is HostErrorCode {
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CODES, code);
}

export class HostClientError extends Error {}

export class HostApiError extends HostClientError {
  override readonly name = 'HostApiError';
  constructor(
    readonly route: string,
    readonly code: HostErrorCode,
    readonly status: number,
    readonly retryable: boolean,
    readonly requestId: string,
    readonly hostMessage: string,
    readonly hostCode?: string,
    /** JSON Pointer of the offending field when the Host names one in `details`. */
    readonly pointer?: string,
    readonly retryAfterMs?: number,
  ) {
    super(`${route}: ${code} (HTTP ${status}): ${hostMessage} [request ${requestId}]`);
  }
}

export class ProtocolViolationError extends HostClientError {
  override readonly name = 'ProtocolViolationError';
  constructor(
    readonly route: string,
    readonly detail: string,
  ) {
    super(`${route}: the Host's response violates Host API v1: ${detail}`);
  }
}

export class TransportError extends HostClientError {
  override readonly name = 'TransportError';
  constructor(
    readonly route: string,
    readonly causeMessage: string,
  ) {
    super(`${route}: could not complete the request: ${causeMessage}`);
  }
}

export class ConfigurationError extends HostClientError {
  override readonly name = 'ConfigurationError';
}

/**
 * The Host accepted a mutation (202 + Operation) but the client could not learn how it
 * ended (polling failed or the deadline passed). The caller must persist `operationId`
 * (and `uid` when known) and resume later; repeating the request blindly could act twice.
 */
export class AcceptedOutcomeUnknownError extends HostClientError {
  override readonly name = 'AcceptedOutcomeUnknownError';
  constructor(
    readonly route: string,
    readonly operationId: string,
    readonly uid: string | undefined,
    readonly causeMessage: string,
    /** The wait was ended by the caller's stop signal, not by a deadline or a failure. */
    readonly stopped = false,
  ) {
    super(`${route}: the Host accepted the request as operation ${operationId}${uid ? ` (uid ${uid})` : ''}, but its outcome is unknown: ${causeMessage}`);
  }
}
