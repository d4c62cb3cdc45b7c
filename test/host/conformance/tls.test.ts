// TLS (§2.1): with --tls-cert/--tls-key the Host serves HTTPS, may listen on a non-loopback
// address, advertises an https API root, and keeps the 65 s keep-alive. The certificate is a
// self-signed test fixture (test/host/support/tls, CN=localhost, valid for a century).
import { readFileSync } from 'node:fs';
import { get } from 'node:https';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startHost } from '../../../src/host/server.js';
import { RANGE_SEQUENCE_DIR, TOKENS } from '../support/host-harness.js';

const TLS_DIR = path.resolve('test/host/support/tls');
const tls = { cert: readFileSync(path.join(TLS_DIR, 'cert.pem')), key: readFileSync(path.join(TLS_DIR, 'key.pem')) };

function discover(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    get(`${url}/.well-known/takoform/v1`, { ca: tls.cert, headers: { authorization: 'Bearer tenant-a-token' } }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

describe('TLS', () => {
  it('serves HTTPS and advertises an https API root', async () => {
    const host = await startHost({ listen: { host: '127.0.0.1', port: 0 }, dbPath: ':memory:', packageDirs: [RANGE_SEQUENCE_DIR], tokens: TOKENS, tls });
    try {
      expect(host.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const answer = await discover(host.url);
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body).endpoints.api).toBe(`${host.url}/apis/forms.takoform.com/v1`);
    } finally {
      await host.close();
    }
  });

  it('allows a non-loopback listen address only with TLS', async () => {
    const options = { listen: { host: '0.0.0.0', port: 0 }, dbPath: ':memory:', packageDirs: [RANGE_SEQUENCE_DIR], tokens: TOKENS };
    await expect(startHost(options)).rejects.toThrow(/loopback/);
    const host = await startHost({ ...options, tls });
    await host.close();
  });
});
