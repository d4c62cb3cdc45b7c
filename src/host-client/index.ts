// Public surface of the Host API v1 client. See docs/host-client.md.
export { HostClient } from './client.js';
export { API_VERSION, type HostClientOptions } from './connection.js';
export {
  resourceRequest,
  type ApplyFence,
  type ImportFence,
  type MutationOptions,
  type MutationResult,
  type ResourcesApi,
  type ValidationResult,
} from './resources-api.js';
export type { OperationsApi } from './operations-api.js';
export { buildManifest, type ArtifactsApi, type ArtifactFile, type ArtifactKind, type ArtifactManifest, type UploadResult } from './artifacts-api.js';
export type { SupportProfile } from './support-api.js';
export type { FormsFilter } from './forms-api.js';
export type { OperationDocument } from './decode.js';
export {
  AcceptedOutcomeUnknownError,
  ConfigurationError,
  HostApiError,
  HostClientError,
  ProtocolViolationError,
  TransportError,
  ERROR_CODES,
  RETRYABLE_CODES,
  type HostErrorCode,
} from './errors.js';
export { deriveIdempotencyKey, isAttemptId, newAttemptId, type IdempotencyInput } from './idempotency.js';
export { parseOrigin, isLoopbackHost } from './origin.js';
export type * from './wire-types.js';
export { sameFormRef, formatFormRef } from './wire-types.js';
export type { ExchangeEvent, StreamedBody } from './transport.js';
