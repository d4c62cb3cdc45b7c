// The check of the client certificate (src/plugin/grpc/client-certificate-pin.ts) over real TLS
// connections on loopback: the server trusts nothing (`ca: []`) and asks for a certificate,
// as the plugin's gRPC server does; the pin alone decides.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import { pinClientCertificate } from '../../../src/plugin/grpc/client-certificate-pin.js';
import { createServerCertificate, type ServerCertificate } from '../../../src/plugin/handshake/certificate.js';

const serverCert = createServerCertificate();
const servers: tls.Server[] = [];
afterAll(() => servers.forEach((s) => s.close()));

/** What the pin of `pinned` says of a client presenting `presented` (or nothing). */
async function verdict(pinned: ServerCertificate, presented: ServerCertificate | undefined): Promise<boolean> {
  const check = pinClientCertificate(pinned.certPem);
  const server = tls.createServer({ cert: serverCert.certPem, key: serverCert.keyPem, ca: [], requestCert: true, rejectUnauthorized: false });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const accepted = once(server, 'secureConnection').then(([socket]) => {
    const ok = check(socket as tls.TLSSocket);
    socket.destroy();
    return ok;
  });
  const client = tls.connect({
    port: (server.address() as AddressInfo).port,
    host: '127.0.0.1',
    servername: 'localhost',
    ca: serverCert.certPem,
    ...(presented ? { cert: presented.certPem, key: presented.keyPem } : {}),
  });
  client.on('error', () => undefined);
  const ok = await accepted;
  client.destroy();
  return ok;
}

describe('pinClientCertificate', () => {
  const core = createServerCertificate();

  it('accepts the certificate core passed, presented with its key', async () => {
    expect(await verdict(core, core)).toBe(true);
  });

  it('refuses any other certificate, and a client without one', async () => {
    expect(await verdict(core, createServerCertificate())).toBe(false);
    expect(await verdict(core, undefined)).toBe(false);
  });

  it('refuses core’s certificate outside its validity period', async () => {
    const expired = createServerCertificate(new Date(Date.now() - 2 * 365 * 24 * 3600 * 1000));
    expect(await verdict(expired, expired)).toBe(false);
  });

  it('fails at start-up on something that is not a certificate', () => {
    expect(() => pinClientCertificate('not a certificate')).toThrow();
  });
});
