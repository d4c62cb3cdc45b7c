// Public surface of the Host API v1 client.
export { HostClient, resourceRequest, API_VERSION, type ApplyFence, type ApplyResult, type HostClientOptions } from './client.js';
export { HostApiError, ProtocolViolationError, TransportError, ConfigurationError, HostClientError, type HostErrorCode } from './errors.js';
export { deriveIdempotencyKey } from './idempotency.js';
export type * from './wire-types.js';
export { sameFormRef, formatFormRef } from './wire-types.js';
export type { ExchangeEvent } from './transport.js';
