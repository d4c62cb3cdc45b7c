// One HTTP exchange with the Host over undici: bounded connections, timeouts, a response
// size cap, redirects never followed (a redirect would carry the bearer token elsewhere),
// strict I-JSON decoding, and the v1 error envelope turned into HostApiError. Retries of
// retryable envelopes live here too, but only for requests that are safe to repeat.
import type { Readable } from 'node:stream';
import type { Agent, Dispatcher } from 'undici';
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

/**
 * undici is loaded on the first request, not with the module, and only the parts the client
 * uses: the Agent (pools, clients, the HTTP/1.1 parser) and the promise form of `request`.
 * Its index also evaluates fetch, WebSocket, cookies, caches, mocks and proxies: about two
 * thirds of its start-up CPU (measured ~45 vs ~125 ms, unbundled), in every provider launch
 * that talks to the Host. Most of the 3-5 launches per command never do (schema and
 * validation launches) and load none of it.
 */
interface Undici {
  readonly Agent: typeof import('undici').Agent;
  readonly request: (dispatcher: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
}
let undici: Promise<Undici> | undefined;
// wasm-baseline.ts: llhttp (undici's parser) is kept at V8's baseline WebAssembly code.
const loadUndici = (): Promise<Undici> =>
  (undici ??= Promise.all([
    import('undici/lib/dispatcher/agent.js'),
    import('undici/lib/api/api-request.js'),
    import('./wasm-baseline.js').then((m) => m.useBaselineWasmCompiler()),
  ]).then(([agent, api]) => ({
    Agent: agent.default,
    request: (dispatcher, options) => api.default.call(dispatcher, options),
  })));

export class Transport {
  private agent: Promise<{ readonly agent: Agent; readonly request: Undici['request'] }> | undefined;
  private readonly limiter: RateLimiter | undefined;
  constructor(private readonly options: TransportOptions) {
    this.limiter = options.requestsPerSecond ? new RateLimiter(options.requestsPerSecond) : undefined;
  }

  private dispatcher(): Promise<{ readonly agent: Agent; readonly request: Undici['request'] }> {
    const options = this.options;
    this.agent ??= loadUndici().then(({ Agent, request }) => ({
      agent: new Agent({
        connections: options.connections,
        headersTimeout: options.headersTimeoutMs,
        bodyTimeout: options.bodyTimeoutMs,
        keepAliveTimeout: 10_000,
        // TLS is always verified; a custom CA adds trust, it never turns verification off.
        ...(options.ca ? { connect: { ca: options.ca } } : {}),
      }),
      request,
    }));
    return this.agent;
  }

  async close(): Promise<void> {
    if (this.agent) await (await this.agent).agent.close();
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
    if (streamed) headers['content-length'] = String(streamed.size);
    const { agent, request } = await this.dispatcher();
    let res: Dispatcher.ResponseData;
    try {
      res = await request(agent, {
        ...requestTarget(this.options.origin, req.path),
        method: req.method,
        headers,
        body: streamed ? streamed.open() : (inMemory ?? req.body ?? null),
      });
    } catch (e) {
      throw new TransportError(req.route, describeCause(e));
    }
    let raw: Buffer;
    try {
      raw = await readCapped(res.body, this.options.maxResponseBytes, req.route);
    } catch (e) {
      if (e instanceof ProtocolViolationError) throw e;
      throw new TransportError(req.route, describeCause(e));
    }
    const requestIdHeader = firstHeader(res.headers['x-request-id']);
    this.options.onExchange?.({
      route: req.route,
      method: req.method,
      path: req.path.split('?')[0]!,
      status: res.statusCode,
      ...(requestIdHeader ? { requestId: requestIdHeader } : {}),
      durationMs: Number((process.hrtime.bigint() - started) / 1_000_000n),
      attempt,
    });
    if (res.statusCode >= 300 && res.statusCode < 400) {
      throw new ProtocolViolationError(req.route, `redirect (HTTP ${res.statusCode}) refused: a Host must not redirect, and the token is never sent elsewhere`);
    }
    let body: unknown;
    if (raw.length > 0) {
      try {
        body = parseIJson(raw);
      } catch (e) {
        throw new ProtocolViolationError(req.route, `body is not I-JSON (${e instanceof IJsonError ? e.message : String(e)})`);
      }
    }
    if (res.statusCode >= 400) throw errorFromEnvelope(req.route, res.statusCode, body, res.headers);
    return { status: res.statusCode, headers: res.headers, body };
  }
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

async function readCapped(body: Dispatcher.ResponseData['body'], limit: number, route: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    const buf = chunk as Buffer;
    total += buf.length;
    if (total > limit) {
      body.destroy();
      throw new ProtocolViolationError(route, `response body exceeds ${limit} bytes`);
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

/**
 * Origin and path of a request. Our paths are already encoded segment by segment, so they are
 * sent as they are, without a URL parse per request; only a path with dot segments goes through
 * URL resolution, exactly as `new URL(path, origin)` would send it.
 */
function requestTarget(origin: URL, path: string): { origin: string; path: string } {
  if (!path.includes('/.')) return { origin: origin.origin, path };
  const url = new URL(path, origin);
  return { origin: url.origin, path: `${url.pathname}${url.search}` };
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
