// The per-process server certificate for go-plugin's AutoMTLS. The host trusts exactly the
// certificate we print in the handshake line, and Go's crypto/x509 checks it, so it must
// have: SAN DNS:localhost (CN is ignored), EKU serverAuth, a validity window that starts a
// little in the past (clock skew), and a positive, minimally encoded serial (Go >= 1.23
// refuses negative serials; OpenSSL refuses a padded one — lessons G1–G5).
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { bitString, booleanTrue, explicit, integer, octetString, oid, sequence, set, utcTime, utf8String } from './der.js';

export interface ServerCertificate {
  readonly certPem: string;
  readonly keyPem: string;
  /** DER bytes of the certificate, as the handshake line carries them. */
  readonly der: Buffer;
}

const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  organization: '2.5.4.10',
  commonName: '2.5.4.3',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectAltName: '2.5.29.17',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
};

const extension = (id: string, critical: boolean, value: Buffer) =>
  critical ? sequence(oid(id), booleanTrue(), octetString(value)) : sequence(oid(id), octetString(value));

export function createServerCertificate(now = new Date()): ServerCertificate {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });

  // 16 random bytes with the top bits forced to 01: positive, and the first byte is never
  // 0x00, so the INTEGER needs no padding and never has a redundant leading zero.
  const serial = randomBytes(16);
  serial[0] = (serial[0]! & 0x3f) | 0x40;

  const name = sequence(
    set(sequence(oid(OID.organization), utf8String('terraform-provider-takoform'))),
    set(sequence(oid(OID.commonName), utf8String('localhost'))),
  );
  const signatureAlgorithm = sequence(oid(OID.ecdsaWithSha256));
  const notBefore = new Date(now.getTime() - 30_000);
  const notAfter = new Date(now.getTime() + 365 * 24 * 3600 * 1000);

  // keyUsage digitalSignature | keyEncipherment | keyAgreement | keyCertSign, as go-plugin's
  // own certificates carry: bits 0, 2, 4, 5 → 0b10101100, two unused trailing bits.
  const keyUsage = bitString(Buffer.from([0xac]), 2);
  const extensions = sequence(
    extension(OID.basicConstraints, true, sequence(booleanTrue())),
    extension(OID.keyUsage, true, keyUsage),
    extension(OID.extKeyUsage, false, sequence(oid(OID.serverAuth), oid(OID.clientAuth))),
    extension(OID.subjectAltName, false, sequence(Buffer.concat([Buffer.from([0x82, 'localhost'.length]), Buffer.from('localhost', 'ascii')]))),
  );

  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))), // v3
    integer(serial),
    signatureAlgorithm,
    name,
    sequence(utcTime(notBefore), utcTime(notAfter)),
    name,
    spki,
    explicit(3, extensions),
  );
  const signature = sign('sha256', tbs, { key: privateKey, dsaEncoding: 'der' });
  const der = sequence(tbs, signatureAlgorithm, bitString(signature));

  const base64 = der
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '');
  return {
    certPem: `-----BEGIN CERTIFICATE-----\n${base64}\n-----END CERTIFICATE-----\n`,
    keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    der,
  };
}
