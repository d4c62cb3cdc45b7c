// A fault-injecting HTTP proxy for tests: sits between a client and the real reference
// Host and, for requests matching a rule, resets the connection before or after the Host
// has answered, answers by itself, delays or truncates bodies, or rewrites the Host's
// answer. It counts what reached the Host, so tests can prove nothing happened twice.
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault =
  | { readonly kind: 'reset-before' }
  | { readonly kind: 'reset-after' }
  | { readonly kind: 'respond'; readonly status: number; readonly headers?: Record<string, string>; readonly body?: string }
  | { readonly kind: 'slow-body'; readonly delayMs: number }
  | { readonly kind: 'truncate' }
  | {
      readonly kind: 'rewrite';
      readonly body?: (body: string) => string;
      readonly headers?: (h: Record<string, string | string[]>) => Record<string, string | string[]>;
    };

export interface FaultRule {
  readonly method?: string;
  /** Substring the request path (with query) must contain. */
  readonly path?: string;
  /** How many matching requests the rule applies to. Default 1. */
  times?: number;
  readonly fault: Fault;
}

export interface ForwardedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string | string[] | undefined>;
}

export class FaultProxy {
  readonly rules: FaultRule[] = [];
  /** Requests that reached the Host, in order. */
  readonly forwarded: ForwardedRequest[] = [];
  /** Every request the proxy saw. */
  readonly seen: ForwardedRequest[] = [];
  /** Consulted when no rule matches: lets a soak decide faults at random per request. */
  chooser?: (request: ForwardedRequest) => Fault | undefined;
  private server!: Server;
  url = '';

  private constructor(private upstream: URL) {}

  /** Points the proxy at another Host address (a restarted Host on a new port). */
  setUpstream(upstream: string): void {
    this.upstream = new URL(upstream);
  }

  static async start(upstream: string): Promise<FaultProxy> {
    const proxy = new FaultProxy(new URL(upstream));
    proxy.server = createServer((req, res) => void proxy.handle(req, res));
    proxy.server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    proxy.url = `http://127.0.0.1:${(proxy.server.address() as AddressInfo).port}`;
    return proxy;
  }

  add(rule: FaultRule): void {
    this.rules.push({ times: 1, ...rule });
  }

  count(method: string, pathPart: string): number {
    return this.forwarded.filter((r) => r.method === method && r.path.includes(pathPart)).length;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private take(req: IncomingMessage): Fault | undefined {
    const rule = this.rules.find((r) => (r.times ?? 0) > 0 && (!r.method || r.method === req.method) && (!r.path || (req.url ?? '').includes(r.path)));
    if (!rule) return this.chooser?.({ method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers });
    rule.times = (rule.times ?? 1) - 1;
    return rule.fault;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readAll(req);
    const record = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers };
    this.seen.push(record);
    const fault = this.take(req);
    if (fault?.kind === 'reset-before') {
      req.socket.destroy();
      return;
    }
    if (fault?.kind === 'respond') {
      res.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers });
      res.end(fault.body ?? '');
      return;
    }
    let upstream: Awaited<ReturnType<typeof forward>>;
    try {
      upstream = await forward(this.upstream, req, body);
    } catch {
      // The Host is down (stopped or restarting): the client sees the connection drop.
      req.socket.destroy();
      return;
    }
    this.forwarded.push(record);
    if (fault?.kind === 'reset-after') {
      req.socket.destroy(); // the Host has committed; the client never hears about it
      return;
    }
    let headers = { ...upstream.headers };
    let text = upstream.body.toString('utf8');
    if (fault?.kind === 'rewrite') {
      if (fault.headers) headers = fault.headers(headers);
      if (fault.body) text = fault.body(text);
    }
    delete headers['content-length'];
    delete headers['transfer-encoding'];
    delete headers['connection'];
    delete headers['keep-alive'];
    const bytes = Buffer.from(text, 'utf8');
    if (fault?.kind === 'truncate') {
      const half = bytes.subarray(0, Math.floor(bytes.length / 2));
      res.writeHead(upstream.status, { ...headers, 'content-length': String(half.length) });
      res.end(half);
      return;
    }
    res.writeHead(upstream.status, { ...headers, ...(upstream.status === 204 || req.method === 'HEAD' ? {} : { 'content-length': String(bytes.length) }) });
    if (fault?.kind === 'slow-body') {
      res.flushHeaders();
      await new Promise((r) => setTimeout(r, fault.delayMs));
      if (!res.destroyed) res.end(bytes);
      return;
    }
    res.end(bytes);
  }
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function forward(upstream: URL, req: IncomingMessage, body: Buffer): Promise<{ status: number; headers: Record<string, string | string[]>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const out = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers } }, (up) => {
      const chunks: Buffer[] = [];
      up.on('data', (c: Buffer) => chunks.push(c));
      up.on('end', () => resolve({ status: up.statusCode ?? 502, headers: up.headers as Record<string, string | string[]>, body: Buffer.concat(chunks) }));
      up.on('error', reject);
    });
    out.on('error', reject);
    out.end(body);
  });
}
