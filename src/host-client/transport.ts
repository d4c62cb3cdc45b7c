// One HTTP exchange with the Host over Node's own HTTP/1.1 client: bounded connections,
// timeouts, a response size cap, redirects never followed (a redirect would carry the bearer
// token elsewhere), strict I-JSON decoding, and the v1 error envelope turned into HostApiError.
// Retries of retryable envelopes live here too, but only for requests that are safe to repeat.
//
// Why node:http and not undici (docs/design.md, "Process model"): a provider process lives for
// one command walk and sends one to a few hundred requests, so what counts is the cost of a
// cold process. Node's client is compiled into the executable and parses with the native
// llhttp; undici is JavaScript to load and compile in every launch that talks to a Host, and
// parses with llhttp compiled to WebAssembly, which V8 compiles again at run time. Measured in
// the provider (N = 100, alternated launches): 20–45 ms less CPU per launch that talks to the Host.
import * as plainHttp from 'node:http';
import type { Agent, ClientRequest, IncomingMessage, IncomingHttpHeaders, RequestOptions } from 'node:http';
import * as https from 'node:https';
import type { Readable } from 'node:stream';
import { IJsonError, parseIJson } from '../common/ijson.js';
import { ERROR_CODES, HostApiError, isHostErrorCode, ProtocolViolationError, RETRYABLE_CODES, TransportError } from './errors.js';
import { Reader } from './decode.js';

export interface TransportOptions {
  readonly origin: URL;
  readonly token: string;
  readonly userAgent: string;
  readonly connections: number;
  readonly headersTimeoutMs: number;
  readonly bodyTimeoutMs: number;
  readonly maxResponseBytes: number;
  readonly maxAttempts: number;
  /** Client-side rate limit (requests per second); undefined = none. */
  readonly requestsPerSecond?: number;
  /** Extra trusted CA certificates (PEM) for https Hosts. */
  readonly ca?: string;
  /** Observes each exchange (for logs); never receives the token. */
  readonly onExchange?: (event: ExchangeEvent) => void;
}

export interface ExchangeEvent {
  readonly route: string;
  readonly method: string;
  readonly path: string;
  readonly status?: number;
  readonly requestId?: string;
  readonly durationMs: number;
  readonly attempt: number;
}

export interface HttpRequest {
  readonly route: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'HEAD';
  /** Absolute path (already percent-encoded per segment) plus query. */
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /**
   * Raw bytes (artifact blobs), sent as application/octet-stream: in memory, or a stream opened
   * afresh for every attempt (a file of any size leaves memory bounded; a retry re-reads it).
   */
  readonly rawBody?: Uint8Array | StreamedBody;
  /** True for reads and for requests that carry an Idempotency-Key. */
  readonly safeToRetry: boolean;
}

/** A body read from its source once per attempt, with its exact length (sent as Content-Length). */
export interface StreamedBody {
  readonly size: number;
  open(): Readable;
}

export interface HttpResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Parsed JSON body, or undefined for an empty body. */
  readonly body: unknown;
}

/** Node's connection pool for the Host's origin, and the request function that uses it. */
interface Pool {
  readonly agent: Agent;
  readonly request: (options: RequestOptions) => ClientRequest;
}

export class Transport {
  private pool: Pool | undefined;
  private readonly limiter: RateLimiter | undefined;
  constructor(private readonly options: TransportOptions) {
    this.limiter = options.requestsPerSecond ? new RateLimiter(options.requestsPerSecond) : undefined;
  }

  /** The connection pool, made at the first request. */
  private connections(): Pool {
    if (this.pool) return this.pool;
    const options = this.options;
    const http = options.origin.protocol === 'https:' ? https : plainHttp;
    this.pool = {
      agent: new http.Agent({
        keepAlive: true,
        maxSockets: options.connections,
        maxFreeSockets: options.connections,
        // An idle pooled connection is closed after 10 s (sooner if the Host's Keep-Alive
        // header says so). Requests in flight have their own timers (exchange()).
        timeout: 10_000,
        scheduling: 'lifo',
        // TLS is always verified; a custom CA adds trust, it never turns verification off.
        ...(options.ca ? { ca: options.ca } : {}),
      }),
      request: http.request,
    };
    return this.pool;
  }

  async close(): Promise<void> {
    this.pool?.agent.destroy();
  }

  async send(req: HttpRequest): Promise<HttpResponse> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.sendOnce(req, attempt);
      } catch (e) {
        // Only a stable retryable envelope, or no answer at all, and only for requests that
        // are reads or carry an Idempotency-Key: repeating those cannot act twice.
        const retryable = (e instanceof HostApiError && e.retryable) || e instanceof TransportError;
        if (!retryable || !req.safeToRetry || attempt >= this.options.maxAttempts) throw e;
        await sleep(e instanceof HostApiError && e.retryAfterMs !== undefined ? e.retryAfterMs : backoffMs(attempt));
      }
    }
  }

  private async sendOnce(req: HttpRequest, attempt: number): Promise<HttpResponse> {
    await this.limiter?.take();
    const started = process.hrtime.bigint(); // not `performance`: its first use loads perf_hooks
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.options.userAgent,
      authorization: `Bearer ${this.options.token}`,
      ...req.headers,
    };
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    if (req.rawBody !== undefined) headers['content-type'] = 'application/octet-stream';
    const inMemory = req.rawBody instanceof Uint8Array ? req.rawBody : undefined;
    const streamed = req.rawBody !== undefined && !(req.rawBody instanceof Uint8Array) ? req.rawBody : undefined;
    const body = inMemory ?? (req.body === undefined ? undefined : Buffer.from(req.body, 'utf8'));
    if (streamed) headers['content-length'] = String(streamed.size);
    else if (body !== undefined) headers['content-length'] = String(body.length);
    let res: Exchanged;
    try {
      res = await exchange(this.connections(), this.options, req, headers, streamed ? streamed.open() : body);
    } catch (e) {
      if (e instanceof ProtocolViolationError) throw e;
      throw new TransportError(req.route, describeCause(e));
    }
    const requestIdHeader = firstHeader(res.headers['x-request-id']);
    this.options.onExchange?.({
      route: req.route,
      method: req.method,
      path: req.path.split('?')[0]!,
      status: res.status,
      ...(requestIdHeader ? { requestId: requestIdHeader } : {}),
      durationMs: Number((process.hrtime.bigint() - started) / 1_000_000n),
      attempt,
    });
    if (res.status >= 300 && res.status < 400) {
      throw new ProtocolViolationError(req.route, `redirect (HTTP ${res.status}) refused: a Host must not redirect, and the token is never sent elsewhere`);
    }
    let parsed: unknown;
    if (res.body.length > 0) {
      try {
        parsed = parseIJson(res.body);
      } catch (e) {
        throw new ProtocolViolationError(req.route, `body is not I-JSON (${e instanceof IJsonError ? e.message : String(e)})`);
      }
    }
    if (res.status >= 400) throw errorFromEnvelope(req.route, res.status, parsed, res.headers);
    return { status: res.status, headers: res.headers, body: parsed };
  }
}

interface Exchanged {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** A timeout or a cap hit while the exchange runs (described in the TransportError). */
class ExchangeAbort extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/**
 * Sends one request and reads the whole answer, within the timeouts: the response headers must
 * arrive within `headersTimeoutMs` of the request, and the body may pause at most
 * `bodyTimeoutMs` between two chunks. A body over `maxResponseBytes` is cut off.
 */
function exchange(
  pool: Pool,
  options: TransportOptions,
  req: HttpRequest,
  headers: Record<string, string>,
  body: Buffer | Uint8Array | Readable | undefined,
): Promise<Exchanged> {
  const origin = options.origin;
  const target = requestTarget(origin, req.path);
  return new Promise<Exchanged>((resolve, reject) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = (ms: number, message: string, code: string) => {
      clearTimeout(timer);
      timer = setTimeout(() => fail(new ExchangeAbort(message, code)), ms);
    };
    let request: ClientRequest;
    let response: IncomingMessage | undefined;
    const fail = (e: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(e);
      // The connection is not reused after a failure: destroying drops it from the pool.
      response?.destroy();
      request?.destroy();
      if (body !== undefined && !(body instanceof Uint8Array)) body.destroy(); // a file being sent
    };
    try {
      request = pool.request({
        protocol: origin.protocol,
        // URL keeps an IPv6 literal in brackets; the socket needs the bare address.
        hostname: origin.hostname.startsWith('[') ? origin.hostname.slice(1, -1) : origin.hostname,
        port: origin.port || undefined,
        path: target,
        method: req.method,
        headers,
        agent: pool.agent,
      });
    } catch (e) {
      reject(e); // an invalid path or header value: nothing was sent
      return;
    }
    arm(options.headersTimeoutMs, `no response headers within ${options.headersTimeoutMs} ms`, 'HEADERS_TIMEOUT');
    request.on('error', fail);
    request.on('response', (res) => {
      response = res;
      arm(options.bodyTimeoutMs, `the response body paused for more than ${options.bodyTimeoutMs} ms`, 'BODY_TIMEOUT');
      const chunks: Buffer[] = [];
      let total = 0;
      res.on('data', (chunk: Buffer) => {
        total += chunk.length;
        if (total > options.maxResponseBytes) {
          fail(new ProtocolViolationError(req.route, `response body exceeds ${options.maxResponseBytes} bytes`));
          return;
        }
        chunks.push(chunk);
        timer?.refresh(); // the body timer starts again at each chunk
      });
      res.on('error', fail);
      res.on('close', () => {
        if (!res.complete) fail(new ExchangeAbort('the connection closed before the response body ended', 'ECONNRESET'));
      });
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) });
      });
    });
    if (body === undefined || body instanceof Uint8Array) request.end(body);
    else {
      body.on('error', fail);
      body.pipe(request);
    }
  });
}

function errorFromEnvelope(route: string, status: number, body: unknown, headers: Record<string, string | string[] | undefined>): HostApiError {
  const r = new Reader(route);
  const outer = r.object(body, `error response (HTTP ${status})`, ['error']);
  const e = r.object(outer.error, 'error', ['code', 'message', 'requestId', 'retryable'], ['hostCode', 'details']);
  const code = isHostErrorCode(e.code) ? e.code : r.fail(`error.code ${JSON.stringify(e.code)} is not in the v1 taxonomy`);
  if (ERROR_CODES[code] !== status) r.fail(`error.code ${code} must travel with HTTP ${ERROR_CODES[code]}, not ${status}`);
  const retryable = r.boolean(e.retryable, 'error.retryable');
  if (retryable && !RETRYABLE_CODES.has(code)) r.fail(`error.code ${code} cannot be retryable`);
  const details = e.details;
  const pointer =
    typeof details === 'object' && details !== null && !Array.isArray(details) && typeof (details as Record<string, unknown>).pointer === 'string'
      ? ((details as Record<string, unknown>).pointer as string)
      : undefined;
  return new HostApiError(
    route,
    code,
    status,
    retryable,
    r.string(e.requestId, 'error.requestId'),
    r.string(e.message, 'error.message'),
    e.hostCode === undefined ? undefined : r.string(e.hostCode, 'error.hostCode'),
    pointer,
    parseRetryAfter(firstHeader(headers['retry-after'])),
  );
}

/**
 * The request target. Our paths are already encoded segment by segment, so they are sent as
 * they are, without a URL parse per request; only a path with dot segments goes through URL
 * resolution, exactly as `new URL(path, origin)` would send it.
 */
function requestTarget(origin: URL, path: string): string {
  if (!path.includes('/.')) return path;
  const url = new URL(path, origin);
  return `${url.pathname}${url.search}`;
}

export function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export function parseRetryAfter(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value.trim())) return Math.min(parseInt(value.trim(), 10) * 1000, 60_000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.min(date - Date.now(), 60_000));
}

function backoffMs(attempt: number): number {
  // Full-jitter exponential backoff: 25 ms × 2^attempt ceiling.
  return Math.random() * 25 * 2 ** attempt;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function describeCause(e: unknown): string {
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code;
    return typeof code === 'string' ? `${code}: ${e.message}` : e.message;
  }
  return String(e);
}

/** A token bucket: at most `perSecond` requests per second, bursts of the same size. */
export class RateLimiter {
  private tokens: number;
  private last = performance.now();
  private queue: Promise<void> = Promise.resolve();
  constructor(private readonly perSecond: number) {
    this.tokens = perSecond;
  }

  take(): Promise<void> {
    // Chain the waits so concurrent callers are served in order.
    this.queue = this.queue.then(async () => {
      const now = performance.now();
      this.tokens = Math.min(this.perSecond, this.tokens + ((now - this.last) / 1000) * this.perSecond);
      this.last = now;
      if (this.tokens < 1) {
        await sleep(((1 - this.tokens) / this.perSecond) * 1000);
        this.tokens = 1;
        this.last = performance.now();
      }
      this.tokens -= 1;
    });
    return this.queue;
  }
}
