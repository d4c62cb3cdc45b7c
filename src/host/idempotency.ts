// Idempotent execution of mutating routes (wire reference §10.2). The record is keyed by tenant,
// principal, space and Idempotency-Key; its fingerprint covers method, request-target, the three
// precondition headers and the exact body bytes. A same-key same-fingerprint request replays the
// recorded status, ETag and body byte for byte (refusals included); a same-key request with a
// different fingerprint is invalid_argument; a duplicate arriving while the first is still
// executing is resource_busy (retryable). The mutation and its record commit in one transaction.
// A record that reports a live incarnation is bound to its uid and retired by the store when that
// incarnation is deleted, so a destroy-then-recreate never replays the old create.
//
// The in-flight set lives in memory, not in the database: a crash must not leave a key busy
// forever, and a crash mid-request leaves no record at all (the transaction never committed).
import { createHash } from 'node:crypto';
import { HostError, invalidArgument } from './errors.js';
import type { HostContext } from './host-context.js';
import { GENERATION_FENCE_HEADER, IDEMPOTENCY_KEY_HEADER, headerValue, readIdempotencyKey } from './http/preconditions.js';
import { errorResponse, type HostResponse } from './http/response.js';
import { requireCaller, type RouteRequest } from './http/route-request.js';
import type { IdempotencyRecord, StoreTransaction } from './store/store.js';
import { delay } from './test-switches.js';

export interface IdempotentOutcome {
  readonly response: HostResponse;
  /** The live incarnation the response reports, if any; its deletion retires the record. */
  readonly boundUid?: string;
  /** The Operation a 202 answer started (its commit binds the record to the result's uid). */
  readonly operationId?: string;
}

/**
 * Runs `execute` at most once per idempotency key. `space` is the space the request addresses,
 * or "" when the request names no valid one (such requests are refused deterministically).
 */
export async function executeIdempotently(
  host: HostContext,
  request: RouteRequest,
  space: string,
  execute: (tx: StoreTransaction) => Promise<IdempotentOutcome>,
): Promise<HostResponse> {
  const caller = requireCaller(request);
  const scope = { tenant: caller.tenant, principal: caller.principal, space, key: readIdempotencyKey(request.headers) };
  const fingerprint = requestFingerprint(request);
  const inFlightKey = JSON.stringify([scope.tenant, scope.principal, scope.space, scope.key]);
  const recorded = await host.store.transaction((tx) => tx.findIdempotencyRecord(scope));
  if (recorded !== undefined) return replay(recorded, fingerprint);
  // No await between this check and the add: two duplicates cannot both pass.
  if (host.inFlight.has(inFlightKey)) {
    throw new HostError('resource_busy', `a request with this ${IDEMPOTENCY_KEY_HEADER} is still executing; retry shortly`, {
      retryable: true,
    });
  }
  host.inFlight.add(inFlightKey);
  try {
    await delay(request.fault.delayMs);
    return await host.store.transaction(
      async (tx) => {
        const record = await tx.findIdempotencyRecord(scope);
        if (record !== undefined) return replay(record, fingerprint);
        let outcome: IdempotentOutcome;
        try {
          // A refusal undoes whatever the attempt wrote, but is itself recorded and replayed.
          outcome = await tx.savepoint(() => execute(tx));
        } catch (error) {
          if (!(error instanceof HostError)) throw error;
          outcome = { response: errorResponse(error, request.requestId) };
        }
        const { response, boundUid, operationId } = outcome;
        await tx.saveIdempotencyRecord({ scope, fingerprint, status: response.status, etag: response.etag, body: response.body, boundUid, operationId });
        return response;
      },
      { queue: scope.tenant },
    );
  } finally {
    host.inFlight.delete(inFlightKey);
  }
}

function replay(record: IdempotencyRecord, fingerprint: string): HostResponse {
  if (record.fingerprint !== fingerprint) {
    throw invalidArgument(`${IDEMPOTENCY_KEY_HEADER} was already used for a different request; send a new key for a new request`, undefined, {
      header: IDEMPOTENCY_KEY_HEADER,
    });
  }
  return record.etag === undefined ? { status: record.status, body: record.body } : { status: record.status, etag: record.etag, body: record.body };
}

/** sha256(method \0 request-target \0 If-Match \0 If-None-Match \0 Takoform-Expected-Generation \0 body). */
export function requestFingerprint(request: RouteRequest): string {
  const hash = createHash('sha256');
  for (const part of [
    request.method,
    request.target,
    headerValue(request.headers, 'If-Match') ?? '',
    headerValue(request.headers, 'If-None-Match') ?? '',
    headerValue(request.headers, GENERATION_FENCE_HEADER) ?? '',
  ]) {
    hash.update(part, 'utf8').update('\0');
  }
  return hash.update(request.rawBody).digest('hex');
}
