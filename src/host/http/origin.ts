// The origin a client used to reach the Host. Discovery must advertise `endpoints.api` on that
// same origin (scheme, host, port), so it is taken from the Host header, falling back to the
// listening socket's address for the rare request without one.
import { invalidArgument } from '../errors.js';

// A registered name or IPv4 address, or a bracketed IPv6 literal, with an optional port. No
// userinfo, path or percent sign can slip into the advertised URL.
const HOST_HEADER = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

export function requestOrigin(scheme: 'http' | 'https', hostHeader: string | undefined, localEndpoint: string): string {
  if (hostHeader === undefined || hostHeader === '') return `${scheme}://${localEndpoint}`;
  if (!HOST_HEADER.test(hostHeader)) throw invalidArgument('the Host header is not a valid host[:port]', undefined, { header: 'Host' });
  return `${scheme}://${hostHeader}`;
}
