// The transport on Node's HTTP client (src/host-client/transport.ts), against small real
// servers that misbehave in the ways a Host or a network can: the timers, the size cap, a body
// cut short, the bounded and reused connection pool, IPv6 loopback and streamed bodies.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { ProtocolViolationError, TransportError } from '../../src/host-client/errors.js';
import { Transport, type TransportOptions } from '../../src/host-client/transport.js';

const servers: Server[] = [];
const transports: Transport[] = [];
afterEach(async () => {
  for (const t of transports.splice(0)) await t.close();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void, host = '127.0.0.1'): Promise<{ origin: URL; sockets: Set<Socket> }> {
  const server = createServer(handler);
  const sockets = new Set<Socket>();
  server.on('connection', (s) => sockets.add(s));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, host, r));
  const { port } = server.address() as AddressInfo;
  return { origin: new URL(host.includes(':') ? `http://[${host}]:${port}` : `http://${host}:${port}`), sockets };
}

function transport(origin: URL, extra: Partial<TransportOptions> = {}): Transport {
  const t = new Transport({
    origin,
    token: 'transport-test-token',
    userAgent: 'transport-test',
    connections: 4,
    headersTimeoutMs: 2_000,
    bodyTimeoutMs: 2_000,
    maxResponseBytes: 1 << 20,
    maxAttempts: 1,
    ...extra,
  });
  transports.push(t);
  return t;
}

const get = (path = '/x') => ({ route: 'test', method: 'GET' as const, path, safeToRetry: true });
const json = (res: ServerResponse, body: unknown, status = 200) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

describe('transport on node:http', () => {
  it('sends the token and JSON body, and reads a JSON answer', async () => {
    let seen: { auth?: string; type?: string; length?: string; body?: string } = {};
    const { origin } = await serve((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        seen = { auth: req.headers.authorization, type: req.headers['content-type'], length: req.headers['content-length'], body };
        json(res, { ok: true, echo: body.length });
      });
    });
    const body = JSON.stringify({ spec: { name: 'é' } });
    const res = await transport(origin).send({ route: 'test', method: 'POST', path: '/y', body, safeToRetry: false });
    expect(res).toMatchObject({ status: 200, body: { ok: true, echo: body.length } });
    expect(seen).toEqual({ auth: 'Bearer transport-test-token', type: 'application/json', length: String(Buffer.byteLength(body)), body });
  });

  it('gives up on response headers after the headers timeout', async () => {
    const { origin } = await serve(() => undefined); // never answers
    const started = Date.now();
    const error = await transport(origin, { headersTimeoutMs: 300 })
      .send(get())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(String(error)).toMatch(/HEADERS_TIMEOUT: no response headers within 300 ms/);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('gives up on a body that pauses longer than the body timeout, but not on a slow steady one', async () => {
    const { origin } = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"a":');
      const pause = req.url === '/stall' ? 800 : 100;
      let sent = 0;
      const tick = setInterval(() => {
        if (sent++ < 4) res.write(' ');
        else {
          clearInterval(tick);
          res.end('1}');
        }
      }, pause);
    });
    const t = transport(origin, { bodyTimeoutMs: 300 });
    await expect(t.send(get('/steady'))).resolves.toMatchObject({ body: { a: 1 } });
    await expect(t.send(get('/stall'))).rejects.toThrow(/BODY_TIMEOUT/);
  });

  it('cuts off a body over the size cap, and a body the connection ends early', async () => {
    const { origin } = await serve((req, res) => {
      if (req.url === '/big') return json(res, { pad: 'x'.repeat(5000) });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"partial":');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const t = transport(origin, { maxResponseBytes: 1000 });
    await expect(t.send(get('/big'))).rejects.toBeInstanceOf(ProtocolViolationError);
    const cut = await t.send(get('/cut')).catch((e: unknown) => e);
    expect(cut).toBeInstanceOf(TransportError);
  });

  it('keeps at most `connections` connections and reuses them', async () => {
    let open = 0;
    let most = 0;
    const { origin, sockets } = await serve((_req, res) => {
      open++;
      most = Math.max(most, open);
      setTimeout(() => {
        open--;
        json(res, { ok: true });
      }, 20);
    });
    const t = transport(origin, { connections: 3 });
    await Promise.all(Array.from({ length: 12 }, () => t.send(get())));
    await Promise.all(Array.from({ length: 12 }, () => t.send(get())));
    expect(most).toBe(3);
    expect(sockets.size).toBe(3);
  });

  it('refuses a redirect without following it', async () => {
    let followed = false;
    const { origin } = await serve((req, res) => {
      if (req.url === '/elsewhere') followed = true;
      res.writeHead(307, { location: '/elsewhere' });
      res.end();
    });
    await expect(transport(origin).send(get())).rejects.toThrow(/redirect \(HTTP 307\) refused/);
    expect(followed).toBe(false);
  });

  it('talks to an IPv6 loopback origin', async () => {
    const { origin } = await serve((_req, res) => json(res, { v6: true }), '::1');
    expect(origin.hostname).toBe('[::1]');
    await expect(transport(origin).send(get())).resolves.toMatchObject({ body: { v6: true } });
  });

  it('streams a raw body with its exact length, opened afresh for each attempt', async () => {
    const received: number[] = [];
    const { origin } = await serve((req, res) => {
      let n = 0;
      req.on('data', (d: Buffer) => (n += d.length));
      req.on('end', () => {
        received.push(n);
        if (received.length === 1) return json(res, { error: { code: 'backend_unavailable', message: 'later', requestId: 'r1', retryable: true } }, 503);
        json(res, { ok: req.headers['content-length'] });
      });
    });
    const size = 300_000;
    let opened = 0;
    const rawBody = {
      size,
      open: () => {
        opened++;
        return Readable.from([Buffer.alloc(size / 2, 1), Buffer.alloc(size / 2, 2)]);
      },
    };
    const res = await transport(origin, { maxAttempts: 2 }).send({ route: 'test', method: 'PUT', path: '/blob', rawBody, safeToRetry: true });
    expect(res.body).toEqual({ ok: String(size) });
    expect(received).toEqual([size, size]);
    expect(opened).toBe(2);
  });

  it('reports a refused connection as a transport error without the token', async () => {
    const { origin } = await serve(() => undefined);
    servers[0]!.close();
    servers[0]!.closeAllConnections();
    servers.length = 0;
    const error = await transport(origin)
      .send(get())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(String(error)).toMatch(/ECONNREFUSED/);
    expect(String(error)).not.toContain('transport-test-token');
  });
});
