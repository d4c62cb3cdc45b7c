import { X509Certificate, createPrivateKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createServerCertificate } from '../../../src/plugin/handshake/certificate.js';
import { formatHandshakeLine, negotiateProtocol } from '../../../src/plugin/handshake/handshake-line.js';

describe('server certificate (what Go crypto/x509 checks, lessons G1–G5)', () => {
  const certs = Array.from({ length: 64 }, () => createServerCertificate());

  it('has SAN DNS:localhost, CA, serverAuth and a validity window that starts in the past', () => {
    const x = new X509Certificate(certs[0]!.certPem);
    expect(x.subjectAltName).toBe('DNS:localhost');
    expect(x.ca).toBe(true);
    expect(x.keyUsage).toContain('1.3.6.1.5.5.7.3.1');
    expect(Date.parse(x.validFrom)).toBeLessThan(Date.now() - 20_000);
    expect(Date.parse(x.validTo)).toBeGreaterThan(Date.now() + 24 * 3600 * 1000);
    expect(x.checkPrivateKey(createPrivateKey(certs[0]!.keyPem))).toBe(true);
    expect(x.verify(x.publicKey)).toBe(true);
  });

  it('always has a positive, minimally encoded 16-byte serial (G4, G5)', () => {
    for (const c of certs) {
      const serial = new X509Certificate(c.certPem).serialNumber;
      expect(serial).toMatch(/^[4-7][0-9A-F]{31}$/);
    }
  });
});

describe('handshake line', () => {
  it('carries the DER certificate in base64 without padding (G6)', () => {
    for (let i = 0; i < 16; i++) {
      const cert = createServerCertificate();
      const line = formatHandshakeLine({ network: 'unix', address: '/tmp/x/plugin.sock' }, cert.der);
      expect(line.endsWith('\n')).toBe(true);
      const fields = line.trimEnd().split('|');
      expect(fields.slice(0, 5)).toEqual(['1', '6', 'unix', '/tmp/x/plugin.sock', 'grpc']);
      expect(fields[5]).not.toContain('=');
      expect(Buffer.from(fields[5]!, 'base64').equals(cert.der)).toBe(true);
    }
  });
  it('has an empty certificate field without TLS', () => {
    expect(formatHandshakeLine({ network: 'tcp', address: '127.0.0.1:1234' })).toBe('1|6|tcp|127.0.0.1:1234|grpc|\n');
  });
  it('picks protocol 6 whatever the order, and refuses a host without it', () => {
    expect(negotiateProtocol('5,6')).toBe(6);
    expect(negotiateProtocol('6,5')).toBe(6);
    expect(negotiateProtocol('5')).toBeUndefined();
  });
});
