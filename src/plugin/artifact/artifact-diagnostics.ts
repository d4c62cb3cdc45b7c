// Host failures of artifact uploads as diagnostics: the resource type, the manifest, the Host code
// and request id, and the remedy for the code (the provider's one REMEDY table).
import { HostApiError, ProtocolViolationError, TransportError } from '../../host-client/index.js';
import { REMEDY } from '../diag/host-diagnostics.js';
import { errorDiag, type Diagnostic } from '../diag/diagnostics.js';
import { ARTIFACT_TYPE_NAME } from './artifact-schema.js';

export function artifactHostDiagnostic(action: string, error: unknown, manifestDigest: string): Diagnostic {
  const subject = `${ARTIFACT_TYPE_NAME} (manifest ${manifestDigest})`;
  if (error instanceof HostApiError) {
    const detail = [
      `The Host refused to ${action} ${subject}: ${error.hostMessage}`,
      '',
      `Host code: ${error.code} (HTTP ${error.status}, ${error.retryable ? 'retryable' : 'not retryable'}), request ${error.requestId}, route ${error.route}`,
      '',
      REMEDY[error.code],
    ].join('\n');
    return errorDiag(`Host refused: ${error.code}`, detail);
  }
  if (error instanceof ProtocolViolationError) {
    return errorDiag(
      'Host protocol violation',
      `While trying to ${action} ${subject}, the Host answered outside Host API v1 (${error.route}): ${error.detail}. Nothing was recorded.`,
    );
  }
  if (error instanceof TransportError) {
    return errorDiag(
      'Host unreachable',
      `Could not ${action} ${subject}: ${error.causeMessage}\n\nCheck the endpoint and network and run the command again; an upload repeated sends only what the Host still lacks.`,
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return errorDiag(`Could not ${action} the artifact`, `${subject}: ${message}`);
}
