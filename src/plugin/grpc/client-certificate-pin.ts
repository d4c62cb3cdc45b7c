// Which TLS clients the plugin's gRPC server accepts (go-plugin's AutoMTLS): exactly the one
// certificate core passed in PLUGIN_CLIENT_CERT, presented by a client that proved it holds
// the certificate's key (TLS checks the CertificateVerify signature whatever the trust
// settings), within the certificate's validity period.
//
// Why not OpenSSL's own verification with `ca: clientCertPem`: in Node 20 the first CA
// certificate added to a secure context builds a private copy of Node's bundled root store,
// parsing ~140 PEM certificates, ~30 ms of CPU in every provider launch (core starts us 3-5
// times per command) only to trust one self-signed certificate. Comparing the presented
// certificate with that one, byte for byte, accepts the same clients: a self-signed
// certificate verifies only against itself. (`getPeerCertificate`, not X509Certificate: that
// class's module is not loaded otherwise, and one comparison per connection needs no more.)
import type { TLSSocket } from 'node:tls';

/** A check of a TLS connection's peer against the one certificate core gave us. */
export type ClientCertificateCheck = (socket: TLSSocket) => boolean;

/** Throws if `pem` does not hold a certificate (a start-up error: core passed something else). */
export function pinClientCertificate(pem: string): ClientCertificateCheck {
  const der = certificateDer(pem);
  return (socket) => {
    const presented = socket.getPeerCertificate();
    if (!presented?.raw || !presented.raw.equals(der)) return false;
    // The presented certificate is core's, byte for byte: its validity period is core's.
    const now = Date.now();
    return now >= Date.parse(presented.valid_from) && now <= Date.parse(presented.valid_to);
  };
}

/** The DER bytes of the (first) certificate of a PEM text. */
function certificateDer(pem: string): Buffer {
  const m = /-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]+)-----END CERTIFICATE-----/.exec(pem);
  const der = m ? Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64') : Buffer.alloc(0);
  // A certificate is one DER SEQUENCE (0x30): anything else is not one.
  if (der.length < 64 || der[0] !== 0x30) throw new Error('no PEM certificate in it');
  return der;
}
