// Which endpoints we are willing to send a bearer token to (wire reference §2.1, §23.1):
// an absolute https origin, or plain http only on a loopback host; no path, query,
// fragment or userinfo (a URL with userinfo would leak a second credential into logs).
import { isIP } from 'node:net';
import { ConfigurationError } from './errors.js';

export function parseOrigin(endpoint: string): URL {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new ConfigurationError(`endpoint ${JSON.stringify(endpoint)} is not an absolute URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigurationError(`endpoint must use https (got ${url.protocol})`);
  }
  if (url.username || url.password) throw new ConfigurationError('endpoint must not contain user information');
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || endpoint.includes('?') || endpoint.includes('#')) {
    throw new ConfigurationError('endpoint must be an origin only (scheme, host and port), without path, query or fragment');
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new ConfigurationError(`plain http is allowed only for a loopback Host; use https for ${url.hostname}`);
  }
  return url;
}

export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1';
  return false;
}

export function sameOrigin(a: URL, b: URL): boolean {
  const port = (u: URL) => u.port || (u.protocol === 'https:' ? '443' : '80');
  return a.protocol === b.protocol && a.hostname.toLowerCase() === b.hostname.toLowerCase() && port(a) === port(b);
}
