// TLS is verified: a Host with a self-signed certificate works once its CA file is
// configured and fails closed otherwise. The client-side rate limit spaces requests out.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError, HostClient, TransportError } from '../../src/host-client/index.js';
import { startHost, type RunningHost } from '../../src/host/server.js';
import { readFileSync } from 'node:fs';
import { GENERIC_FORMS, REPO_ROOT } from '../support/paths.js';
import { startTestHost, TOKEN_A } from './support.js';

const TLS_DIR = path.join(REPO_ROOT, 'test/host/support/tls');

describe('TLS', () => {
  let host: RunningHost;
  beforeAll(async () => {
    host = await startHost({
      listen: { host: '127.0.0.1', port: 0 },
      dbPath: ':memory:',
      packageDirs: [path.join(GENERIC_FORMS, 'range-sequence')],
      tokens: [{ token: TOKEN_A, tenant: 'tenant-a', principal: 'alice' }],
      tls: { cert: readFileSync(path.join(TLS_DIR, 'cert.pem')), key: readFileSync(path.join(TLS_DIR, 'key.pem')) },
    });
  });
  afterAll(async () => {
    await host?.close();
  });

  it('works with the configured CA file', async () => {
    expect(host.url.startsWith('https://')).toBe(true);
    const client = new HostClient({ endpoint: host.url, token: TOKEN_A, caFile: path.join(TLS_DIR, 'cert.pem') });
    expect((await client.forms.list()).length).toBe(1);
    await client.close();
  });

  it('fails closed without it, and never mentions the token', async () => {
    const client = new HostClient({ endpoint: host.url, token: TOKEN_A, maxAttempts: 1 });
    const e = await client.forms.list().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TransportError);
    expect((e as Error).message).toMatch(/certificate/i);
    expect((e as Error).message).not.toContain(TOKEN_A);
    await client.close();
  });

  it('refuses a CA file it cannot read', () => {
    expect(() => new HostClient({ endpoint: host.url, token: TOKEN_A, caFile: '/nonexistent/ca.pem' })).toThrow(ConfigurationError);
  });
});

describe('client-side rate limit', () => {
  it('spaces requests to the configured rate', async () => {
    const host = await startTestHost();
    const client = new HostClient({ endpoint: host.url, token: TOKEN_A, requestsPerSecond: 10 });
    await client.discover(); // spends one token
    const started = Date.now();
    await Promise.all(Array.from({ length: 20 }, () => client.forms.list()));
    // 9 tokens remain in the burst; the other 11 requests wait ~100 ms each.
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    await client.close();
    await host.close();
  });
});
