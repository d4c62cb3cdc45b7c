// What the dispatcher hands a route handler: the request already routed, authenticated, size-
// checked and (for JSON routes) parsed as strict I-JSON.
import type { IncomingHttpHeaders } from 'node:http';
import type { Caller } from '../auth.js';
import { HostError } from '../errors.js';
import type { JsonValue } from '../../common/json-value.js';
import type { FaultPlan } from '../test-switches.js';
import type { QueryParameters } from './query.js';
import type { PathParameter, PathParameters } from './router.js';

export interface RouteRequest {
  readonly requestId: string;
  readonly method: string;
  /** The request-target exactly as received (path and query); part of the idempotency fingerprint. */
  readonly target: string;
  readonly params: PathParameters;
  readonly query: QueryParameters;
  readonly headers: IncomingHttpHeaders;
  /** Undefined only on discovery without a token. */
  readonly caller: Caller | undefined;
  readonly rawBody: Uint8Array;
  /** The parsed body on routes that take one. */
  readonly body: JsonValue | undefined;
  /** host:port of the socket the request arrived on, for when no Host header names the origin. */
  readonly localEndpoint: string;
  /** "https" when the Host serves TLS. */
  readonly scheme: 'http' | 'https';
  /** Test faults selected for this request (always NO_FAULT without --enable-test-switches). */
  readonly fault: FaultPlan;
}

export function requireCaller(request: RouteRequest): Caller {
  if (request.caller === undefined) throw new HostError('unauthenticated', 'this route needs a bearer token');
  return request.caller;
}

export function pathParameter(request: RouteRequest, name: PathParameter): string {
  const value = request.params[name];
  // The router guarantees every parameter its route captures; reaching this is a Host bug.
  if (value === undefined) throw new Error(`route has no path parameter "${name}"`);
  return value;
}
