// The request pipeline: route → authenticate → test faults → query keys → body (size cap,
// Content-Type, strict I-JSON) → handler → one response. Every failure on the way is a HostError
// rendered by errorResponse; anything else is logged and answered internal_error.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JsonValue } from '../../common/json-value.js';
import { HostError } from '../errors.js';
import type { HostContext } from '../host-context.js';
import { ROUTE_TABLE } from '../routes/route-table.js';
import { delay, injectedError, readFaultPlan } from '../test-switches.js';
import { MAX_BLOB_BODY_BYTES, MAX_REQUEST_BODY_BYTES, readRequestBody } from './body.js';
import { expectEmptyBody, parseJsonBody } from './json-body.js';
import { parseQuery } from './query.js';
import { errorResponse, writeResponse, type HostResponse } from './response.js';
import { matchRoute } from './router.js';
import { LARGE_BODY_BYTES } from './tenant-gate.js';

/** What a request produced: an answer, or (drop-after-commit fault) an instruction to hang up. */
interface Answer {
  readonly response: HostResponse;
  readonly drop: boolean;
}

export function createRequestListener(host: HostContext, scheme: 'http' | 'https'): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const requestId = host.nextRequestId();
    answer(host, req, requestId, scheme)
      .catch((error: unknown): Answer => ({ response: errorResponse(asHostError(host, error, requestId), requestId), drop: false }))
      .then(({ response, drop }) => {
        if (drop) {
          host.log(`${req.method ?? '?'} ${req.url ?? '?'} -> dropped after commit ${requestId}`);
          req.socket.destroy();
          return;
        }
        // A body we stopped reading (too large, or never read) cannot be left on a kept-alive socket.
        if (!req.complete) res.setHeader('Connection', 'close');
        writeResponse(res, response);
        host.log(`${req.method ?? '?'} ${req.url ?? '?'} -> ${response.status} ${requestId}`);
      })
      .catch((error: unknown) => host.log(`failed to answer ${requestId}: ${describe(error)}`));
  };
}

async function answer(host: HostContext, req: IncomingMessage, requestId: string, scheme: 'http' | 'https'): Promise<Answer> {
  const target = req.url ?? '';
  const queryStart = target.indexOf('?');
  const path = queryStart < 0 ? target : target.slice(0, queryStart);
  const method = req.method ?? '';
  const match = matchRoute(method, path);
  const route = match === undefined ? undefined : ROUTE_TABLE[match.name];
  // Authenticate before admitting that a route exists; only discovery may go without a token.
  const caller = host.tokens.authenticate(req.headers.authorization, route?.authentication ?? 'required');
  if (match === undefined || route === undefined || (route.testOnly && !host.testSwitches)) {
    throw new HostError('resource_not_found', `no Host API v1 route answers ${method} ${path}`);
  }
  const fault = readFaultPlan(host, req.headers);
  if (fault.code !== undefined) throw injectedError(fault.code);
  // Mutating routes wait inside their idempotency in-flight window instead (idempotency.ts).
  if (!route.idempotent) await delay(fault.delayMs);
  const query = parseQuery(queryStart < 0 ? '' : target.slice(queryStart + 1), route.queryKeys);
  // Only a blob upload carries raw bytes; it may be as large as one manifest entry.
  const rawBody = await readRequestBody(req, route.body === 'bytes' ? MAX_BLOB_BODY_BYTES : MAX_REQUEST_BODY_BYTES);
  const large = caller !== undefined && rawBody.length > LARGE_BODY_BYTES;
  const handle = async (): Promise<HostResponse> => {
    let body: JsonValue | undefined;
    if (route.body === 'json') {
      // A large body is parsed in its own turn of the event loop, and handled in another, so
      // other requests are answered between the two instead of after both.
      if (large) await yieldToOthers();
      body = parseJsonBody(rawBody, req.headers['content-type'], host.maxJsonValues);
      if (large) await yieldToOthers();
    } else if (route.body === 'none') {
      expectEmptyBody(rawBody);
    }
    return route.handle(host, {
      requestId,
      method,
      target,
      params: match.params,
      query,
      headers: req.headers,
      caller,
      rawBody,
      body,
      localEndpoint: formatEndpoint(req.socket.localAddress, req.socket.localPort),
      scheme,
      fault,
    });
  };
  // One large-body request per tenant at a time (tenant-gate.ts says why).
  const response = large ? await host.largeBodies.run(caller.tenant, handle) : await handle();
  return { response, drop: fault.dropAfterCommit };
}

/** Lets the event loop run everything already waiting (I/O included) before continuing. */
function yieldToOthers(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function asHostError(host: HostContext, error: unknown, requestId: string): HostError {
  if (error instanceof HostError) return error;
  host.log(`internal error in ${requestId}: ${describe(error)}`);
  return new HostError('internal_error', `the Host failed while answering; its log names request ${requestId}`);
}

function formatEndpoint(address: string | undefined, port: number | undefined): string {
  const host = address === undefined ? '127.0.0.1' : address.includes(':') ? `[${address}]` : address;
  return port === undefined ? host : `${host}:${port}`;
}

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
