// The client under faults, through a fault-injecting proxy in front of the real Host:
// each fault gives the documented outcome, and nothing reaches the Host twice unless the
// Host can recognise it as a replay.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError, HostApiError, HostClient, ProtocolViolationError, resourceRequest, TransportError } from '../../src/host-client/index.js';
import type { RunningHost } from '../../src/host/server.js';
import { FaultProxy } from '../support/fault-proxy.js';
import { RANGE_SEQUENCE, startTestHost, TOKEN_A } from './support.js';

let host: RunningHost;
let proxy: FaultProxy;
const clients: HostClient[] = [];
beforeAll(async () => {
  host = await startTestHost();
  proxy = await FaultProxy.start(host.url);
});
afterEach(() => {
  proxy.rules.length = 0;
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await proxy?.close();
  await host?.close();
});

function client(extra: Partial<ConstructorParameters<typeof HostClient>[0]> = {}): HostClient {
  const c = new HostClient({ endpoint: proxy.url, token: TOKEN_A, ...extra });
  clients.push(c);
  return c;
}
const req = (name: string, spec: Record<string, number>) => resourceRequest(RANGE_SEQUENCE, 'demo', name, spec);
const addr = (name: string) => ({ formRef: RANGE_SEQUENCE, space: 'demo', name });
const APPLY_PATH = '/resources/resources.publisher.example/RangeSequence/';

async function create(c: HostClient, name: string) {
  const r = req(name, { lower: 1, upper: 2 });
  const p = await c.resources.prepare(r);
  return c.resources.apply({ ...r, spec: p.spec }, p, { kind: 'create' });
}

describe('connection faults', () => {
  it('a reset before the Host saw the apply is retried with the same key: one resource', async () => {
    const c = client();
    proxy.add({ method: 'PUT', path: `${APPLY_PATH}reset-before`, fault: { kind: 'reset-before' } });
    const result = await create(c, 'reset-before');
    expect(result.outcome).toBe('created');
    expect(proxy.count('PUT', `${APPLY_PATH}reset-before`)).toBe(1);
  });

  it('a reset after the Host committed is retried with the same key and replayed: still one resource', async () => {
    const c = client();
    proxy.add({ method: 'PUT', path: `${APPLY_PATH}reset-after`, fault: { kind: 'reset-after' } });
    const result = await create(c, 'reset-after');
    const puts = proxy.forwarded.filter((f) => f.method === 'PUT' && f.path.includes(`${APPLY_PATH}reset-after`));
    expect(puts).toHaveLength(2);
    expect(puts[0]!.headers['idempotency-key']).toBe(puts[1]!.headers['idempotency-key']);
    const onHost = await c.resources.read(addr('reset-after'));
    expect(onHost?.metadata.uid).toBe(result.resource.metadata.uid);
    expect(onHost?.metadata.generation).toBe('1');
  });

  it('a slow body beyond the body timeout is a transport error', async () => {
    const c = client({ bodyTimeoutMs: 200, maxAttempts: 1 });
    await c.discover();
    proxy.add({ method: 'GET', path: '/forms', fault: { kind: 'slow-body', delayMs: 1000 } });
    await expect(c.forms.list()).rejects.toBeInstanceOf(TransportError);
  });
});

describe('retryable and non-retryable answers', () => {
  const envelope = (code: string, retryable: boolean) => JSON.stringify({ error: { code, message: 'injected', requestId: 'req_injected', retryable } });

  it('503 backend_unavailable with Retry-After is retried after the delay', async () => {
    const c = client();
    await c.discover();
    proxy.add({
      method: 'GET',
      path: '/forms',
      fault: { kind: 'respond', status: 503, headers: { 'retry-after': '1' }, body: envelope('backend_unavailable', true) },
    });
    const started = Date.now();
    const forms = await c.forms.list();
    expect(forms.length).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('429 rate_limited without Retry-After is retried with backoff', async () => {
    const c = client();
    await c.discover();
    proxy.add({ method: 'POST', path: '/resources/prepare', times: 2, fault: { kind: 'respond', status: 429, body: envelope('rate_limited', true) } });
    const p = await c.resources.prepare(req('rate', { lower: 1, upper: 2 }));
    expect(p.spec.mode).toBe('safe');
  });

  it('500 internal_error is never retried', async () => {
    const c = client();
    await c.discover();
    const before = proxy.seen.length;
    proxy.add({ method: 'POST', path: '/resources/prepare', fault: { kind: 'respond', status: 500, body: envelope('internal_error', false) } });
    const e = await c.resources.prepare(req('boom', { lower: 1, upper: 2 })).catch((x: unknown) => x);
    expect((e as HostApiError).code).toBe('internal_error');
    expect(proxy.seen.length - before).toBe(1);
  });

  it('an envelope whose status does not match its code is a protocol violation, not retried', async () => {
    const c = client();
    await c.discover();
    proxy.add({ method: 'GET', path: '/forms', fault: { kind: 'respond', status: 500, body: envelope('backend_unavailable', true) } });
    await expect(c.forms.list()).rejects.toBeInstanceOf(ProtocolViolationError);
  });
});

describe('responses outside the contract', () => {
  it('truncated JSON is a protocol violation', async () => {
    const c = client({ maxAttempts: 1 });
    await c.discover();
    proxy.add({ method: 'GET', path: '/forms', fault: { kind: 'truncate' } });
    const e = await c.forms.list().catch((x: unknown) => x);
    expect(e instanceof ProtocolViolationError || e instanceof TransportError).toBe(true);
  });

  it('duplicate JSON members are a protocol violation', async () => {
    const c = client();
    await create(c, 'dup-members');
    proxy.add({ method: 'GET', path: `${APPLY_PATH}dup-members`, fault: { kind: 'rewrite', body: (b) => b.replace('"kind":', '"kind":"X","kind":') } });
    const e = await c.resources.read(addr('dup-members')).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProtocolViolationError);
    expect((e as Error).message).toMatch(/duplicate member/);
  });

  it('a wrong ETag is a protocol violation', async () => {
    const c = client();
    await create(c, 'wrong-etag');
    proxy.add({ method: 'GET', path: `${APPLY_PATH}wrong-etag`, fault: { kind: 'rewrite', headers: (h) => ({ ...h, etag: '"99"' }) } });
    await expect(c.resources.read(addr('wrong-etag'))).rejects.toThrow(/ETag/);
  });

  it('an unknown member in a closed envelope is a protocol violation', async () => {
    const c = client();
    await create(c, 'extra-member');
    proxy.add({ method: 'GET', path: `${APPLY_PATH}extra-member`, fault: { kind: 'rewrite', body: (b) => b.replace(/^\{/, '{"surprise":1,') } });
    await expect(c.resources.read(addr('extra-member'))).rejects.toThrow(/unknown member "surprise"/);
  });

  it('a redirect is refused and never followed with the token', async () => {
    let reached = 0;
    const elsewhere = createServer((_req, res) => {
      reached++;
      res.end('{}');
    });
    await new Promise<void>((r) => elsewhere.listen(0, '127.0.0.1', r));
    const target = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/steal`;
    const c = client();
    await c.discover();
    proxy.add({ method: 'GET', path: '/forms', fault: { kind: 'respond', status: 307, headers: { location: target } } });
    const e = await c.forms.list().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProtocolViolationError);
    expect((e as Error).message).not.toContain(TOKEN_A);
    expect(reached).toBe(0);
    elsewhere.close();
  });

  it('a discovery document pointing at another origin is refused before any other call', async () => {
    const c = client();
    const before = proxy.seen.length;
    proxy.add({
      method: 'GET',
      path: '/.well-known/takoform/v1',
      fault: { kind: 'rewrite', body: (b) => b.replace(/http:\/\/127\.0\.0\.1:\d+/, 'http://127.0.0.2:9') },
    });
    await expect(c.forms.list()).rejects.toThrow(/another origin/);
    expect(proxy.seen.length - before).toBe(1);
  });

  it('an oversized response is refused', async () => {
    const c = client({ maxResponseBytes: 64 });
    await expect(c.discover()).rejects.toThrow(/exceeds 64 bytes/);
  });
});

describe('origin validation', () => {
  it('allows https anywhere and http only on loopback, without path, query or userinfo', () => {
    expect(() => new HostClient({ endpoint: 'http://example.com', token: 't' })).toThrow(ConfigurationError);
    expect(() => new HostClient({ endpoint: 'http://127.0.0.1:1/apis', token: 't' })).toThrow(/origin only/);
    expect(() => new HostClient({ endpoint: 'https://user:pw@example.com', token: 't' })).toThrow(/user information/);
    expect(() => new HostClient({ endpoint: 'ftp://example.com', token: 't' })).toThrow(/https/);
    expect(() => new HostClient({ endpoint: 'https://example.com', token: '' })).toThrow(/token/);
    const ok = [
      new HostClient({ endpoint: 'https://host.example', token: 't' }),
      new HostClient({ endpoint: 'http://localhost:8080', token: 't' }),
      new HostClient({ endpoint: 'http://[::1]:8080', token: 't' }),
    ];
    clients.push(...ok);
  });
});

describe('prepare echo', () => {
  it('refuses an echo that changes a value that was sent (defaults may only be added)', async () => {
    const c = client();
    await c.discover();
    proxy.add({ method: 'POST', path: '/resources/prepare', fault: { kind: 'rewrite', body: (b) => b.replace('"upper":2', '"upper":3') } });
    const e = await c.resources.prepare(req('echo', { lower: 1, upper: 2 })).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProtocolViolationError);
    expect((e as Error).message).toMatch(/changes \/upper/);
  });
});
