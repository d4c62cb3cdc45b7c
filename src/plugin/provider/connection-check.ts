// The one Host request ConfigureProvider makes: discovery, which the client needs before any
// other call anyway (it is cached and reused, so a command that talks to the Host makes no
// extra request). A failure that no retry can fix — wrong scheme, nothing listening, a name
// that does not resolve, a token the Host does not know, an answer outside Host API v1 — is
// reported here once for the whole command, in words a person understands, instead of once
// per resource. A transient failure is not a verdict: it is logged, and the resource calls
// retry and report it as before.
import { HostApiError, ProtocolViolationError, TransportError } from '../../host-client/index.js';
import { errorDiag, type Diagnostic } from '../diag/diagnostics.js';
import { untrustedCertificate } from '../diag/host-diagnostics.js';

const FIX = 'Fix the provider `endpoint` (or TAKOFORM_ENDPOINT) and run the command again.';

export function connectionDiagnostic(error: unknown, endpoint: string): Diagnostic | undefined {
  const at = `the Host at ${endpoint}`;
  if (error instanceof HostApiError) {
    if (error.code === 'unauthenticated') {
      return errorDiag(
        'Host does not know this token',
        `${at} refused the provider's token (unauthenticated, request ${error.requestId}): it names no principal there. Check the provider \`token\` (or TAKOFORM_TOKEN) — a token for another Host or a mistyped one — and run the command again. Nothing was changed.`,
        ['token'],
      );
    }
    return undefined;
  }
  if (error instanceof ProtocolViolationError) {
    return errorDiag(
      'Not a Takoform Host',
      `${at} answered discovery (GET /.well-known/takoform/v1) outside Host API v1: ${error.detail}. Check that the endpoint is the Host's origin (scheme, host and port, no path). Nothing was changed.`,
      ['endpoint'],
    );
  }
  if (!(error instanceof TransportError)) return undefined;
  const cause = error.causeMessage;
  const https = endpoint.startsWith('https:');
  if (https && /wrong version number|packet length too long|EPROTO|unknown protocol|http request/i.test(cause)) {
    return errorDiag(
      'Host does not speak HTTPS',
      `The endpoint ${endpoint} says https://, but the Host answered in plain HTTP (TLS could not start: ${cause}). If this Host serves plain HTTP (a local or test Host), write the endpoint with http://; otherwise check the port. Nothing was sent.`,
      ['endpoint'],
    );
  }
  if (https && untrustedCertificate(cause)) {
    return errorDiag(
      'Host certificate not trusted',
      `The TLS certificate of ${at} is not trusted (${cause}), so nothing was sent to it. For a Host with a private CA, set the provider \`ca_file\` (or TAKOFORM_CA_FILE) to that CA certificate (PEM); verification is never turned off.`,
      ['endpoint'],
    );
  }
  if (/ECONNREFUSED/.test(cause)) {
    return errorDiag(
      'Host refused the connection',
      `Nothing accepts connections at ${endpoint} (${cause}): the Host is not running there, or the host or port is wrong. Start the Host or ${FIX.charAt(0).toLowerCase()}${FIX.slice(1)}`,
      ['endpoint'],
    );
  }
  if (/ENOTFOUND|EAI_AGAIN/.test(cause)) {
    return errorDiag('Host name not found', `The host name of ${endpoint} does not resolve (${cause}). ${FIX}`, ['endpoint']);
  }
  if (!https && /ECONNRESET|socket hang up|other side closed|HPE_/i.test(cause)) {
    return errorDiag(
      'Host closed the connection',
      `${at} closed the connection without an HTTP answer (${cause}). If the Host serves HTTPS, write the endpoint with https://. ${FIX}`,
      ['endpoint'],
    );
  }
  return undefined;
}
