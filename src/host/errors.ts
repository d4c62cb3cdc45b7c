// The closed v1 error taxonomy (wire reference §20) and the one place that renders it. Route
// code throws HostError; nothing else writes an error body, so a code can never travel with a
// status or a `retryable` flag the client would find protocol-invalid.
import type { JsonObject } from '../common/json-value.js';

export const HOST_ERROR_CODES = [
  'invalid_argument',
  'artifact_invalid',
  'unauthenticated',
  'permission_denied',
  'policy_denied',
  'form_unknown',
  'resource_not_found',
  'operation_not_found',
  'artifact_missing',
  'form_not_installed',
  'resource_busy',
  'import_conflict',
  'operation_cancelled',
  'dependency_in_use',
  'migration_required',
  'uid_mismatch',
  'revision_conflict',
  'generation_conflict',
  'unsupported_capability',
  'rate_limited',
  'internal_error',
  'backend_unavailable',
  'form_unavailable',
  'deadline_exceeded',
] as const;

export type HostErrorCode = (typeof HOST_ERROR_CODES)[number];

interface HostErrorCodeSpec {
  /** The one HTTP status this code travels with (operations-v1.json `httpStatusByCode`). */
  readonly httpStatus: number;
  /** Whether `retryable: true` is legal for this code; every other code must say false. */
  readonly mayRetry: boolean;
}

export const HOST_ERROR_TABLE: Readonly<Record<HostErrorCode, HostErrorCodeSpec>> = {
  invalid_argument: { httpStatus: 400, mayRetry: false },
  artifact_invalid: { httpStatus: 400, mayRetry: false },
  unauthenticated: { httpStatus: 401, mayRetry: false },
  permission_denied: { httpStatus: 403, mayRetry: false },
  policy_denied: { httpStatus: 403, mayRetry: false },
  form_unknown: { httpStatus: 404, mayRetry: false },
  resource_not_found: { httpStatus: 404, mayRetry: false },
  operation_not_found: { httpStatus: 404, mayRetry: false },
  artifact_missing: { httpStatus: 404, mayRetry: false },
  form_not_installed: { httpStatus: 409, mayRetry: false },
  resource_busy: { httpStatus: 409, mayRetry: true },
  import_conflict: { httpStatus: 409, mayRetry: false },
  operation_cancelled: { httpStatus: 409, mayRetry: false },
  dependency_in_use: { httpStatus: 409, mayRetry: false },
  migration_required: { httpStatus: 409, mayRetry: false },
  uid_mismatch: { httpStatus: 409, mayRetry: false },
  revision_conflict: { httpStatus: 412, mayRetry: false },
  generation_conflict: { httpStatus: 412, mayRetry: false },
  unsupported_capability: { httpStatus: 422, mayRetry: false },
  rate_limited: { httpStatus: 429, mayRetry: true },
  internal_error: { httpStatus: 500, mayRetry: false },
  backend_unavailable: { httpStatus: 503, mayRetry: true },
  form_unavailable: { httpStatus: 503, mayRetry: false },
  deadline_exceeded: { httpStatus: 504, mayRetry: true },
};

/** Free-form `details`; by convention a string `pointer` names the request member at fault. */
export type HostErrorDetails = JsonObject;

export interface HostErrorOptions {
  hostCode?: string;
  details?: HostErrorDetails;
  /** Ignored (forced false) for codes that may never be retried. */
  retryable?: boolean;
}

export class HostError extends Error {
  override readonly name = 'HostError';
  readonly code: HostErrorCode;
  readonly httpStatus: number;
  readonly retryable: boolean;
  readonly hostCode: string | undefined;
  readonly details: HostErrorDetails | undefined;

  constructor(code: HostErrorCode, message: string, options: HostErrorOptions = {}) {
    super(message);
    const spec = HOST_ERROR_TABLE[code];
    this.code = code;
    this.httpStatus = spec.httpStatus;
    this.retryable = spec.mayRetry && options.retryable === true;
    this.hostCode = options.hostCode;
    this.details = options.details;
  }
}

/** The most common refusal: `invalid_argument`, naming the member at fault when there is one. */
export function invalidArgument(message: string, pointer?: string, extra: JsonObject = {}): HostError {
  const details: HostErrorDetails = pointer === undefined ? { ...extra } : { pointer, ...extra };
  return new HostError('invalid_argument', message, Object.keys(details).length > 0 ? { details } : {});
}

/** `{"error": {...}}` with only the members the closed envelope allows, never null. */
export function errorEnvelope(error: HostError, requestId: string): JsonObject {
  const body: JsonObject = {
    code: error.code,
    message: error.message.length > 0 ? error.message : error.code,
    requestId,
    retryable: error.retryable,
  };
  if (error.hostCode !== undefined && error.hostCode.length > 0) body.hostCode = error.hostCode;
  if (error.details !== undefined) body.details = error.details;
  return { error: body };
}
