// The one line go-plugin's client reads from our stdout:
//   CORE|APP|NETWORK|ADDRESS|PROTOCOL|SERVERCERT
// The certificate is DER in base64 *without padding* (Go's RawStdEncoding): padding makes
// the host fail with "illegal base64 data", and only for some certificate lengths (G6).

export const CORE_PROTOCOL_VERSION = 1;
export const APP_PROTOCOL_VERSION = 6;

export interface ListenAddress {
  readonly network: 'unix' | 'tcp';
  readonly address: string;
}

export function formatHandshakeLine(listen: ListenAddress, serverCertDer?: Uint8Array): string {
  const cert = serverCertDer ? Buffer.from(serverCertDer).toString('base64').replace(/=+$/, '') : '';
  return `${CORE_PROTOCOL_VERSION}|${APP_PROTOCOL_VERSION}|${listen.network}|${listen.address}|grpc|${cert}\n`;
}

/** Picks protocol 6 from PLUGIN_PROTOCOL_VERSIONS ("5,6" in any order); undefined if absent. */
export function negotiateProtocol(versions: string | undefined): number | undefined {
  const offered = (versions ?? String(APP_PROTOCOL_VERSION)).split(',').map((v) => parseInt(v.trim(), 10));
  return offered.includes(APP_PROTOCOL_VERSION) ? APP_PROTOCOL_VERSION : undefined;
}

export const MAGIC_COOKIE_KEY = 'TF_PLUGIN_MAGIC_COOKIE';
export const MAGIC_COOKIE_VALUE = 'd602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2';
