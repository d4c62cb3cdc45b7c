// What a route answers, and the one function that puts it on the socket. Bodies are serialized
// here once; idempotency records keep these exact bytes so a replay is byte-for-byte.
import type { ServerResponse } from 'node:http';
import { errorEnvelope, type HostError } from '../errors.js';
import type { JsonValue } from '../../common/json-value.js';

export interface HostResponse {
  readonly status: number;
  /** The strong ETag `"<revision>"` on direct resource answers. */
  readonly etag?: string;
  /** Retry-After (delta-seconds) on 202 answers and pending Operation polls. */
  readonly retryAfter?: string;
  /** Serialized JSON; empty for 204. */
  readonly body: Uint8Array;
}

const EMPTY = new Uint8Array(0);

export function jsonResponse(status: number, value: JsonValue, etag?: string): HostResponse {
  const body = Buffer.from(JSON.stringify(value), 'utf8');
  return etag === undefined ? { status, body } : { status, etag, body };
}

export function noContentResponse(): HostResponse {
  return { status: 204, body: EMPTY };
}

export function errorResponse(error: HostError, requestId: string): HostResponse {
  return jsonResponse(error.httpStatus, errorEnvelope(error, requestId));
}

/** The strong entity tag of a revision (wire reference §8.3). */
export function etagOfRevision(revision: string): string {
  return `"${revision}"`;
}

export function writeResponse(res: ServerResponse, response: HostResponse): void {
  res.statusCode = response.status;
  if (response.etag !== undefined) res.setHeader('ETag', response.etag);
  if (response.retryAfter !== undefined) res.setHeader('Retry-After', response.retryAfter);
  if (response.body.length > 0) {
    // Every body the Host writes is JSON; a 204 carries neither body nor Content-Type.
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('Content-Length', response.body.length);
  }
  res.end(response.body.length > 0 ? response.body : undefined);
}
