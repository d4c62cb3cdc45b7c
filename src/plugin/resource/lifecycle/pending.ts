// The Host accepted a change (HTTP 202) but its end was not seen within the timeout. Record
// what was asked for and the Operation to follow, with a warning, so that the state never
// loses a resource the Host may be creating; the next refresh follows the Operation.
import { AcceptedOutcomeUnknownError, HostApiError } from '../../../host-client/index.js';
import { errorDiag, warningDiag, type Diagnostic } from '../../diag/diagnostics.js';
import { hostFailureDiagnostic } from '../../diag/host-diagnostics.js';
import { objectValue, type TfObject, type TfValue } from '../../values/tf-value.js';
import { pendingEnvelope, readEnvelope } from '../envelope.js';
import type { ResourceKind } from '../resource-kind.js';
import type { StateResult } from './apply.js';
import { diagnosticContext } from './common.js';
import type { HostAccess, LifecycleClient } from './host-access.js';
import { readResource } from './read.js';

export function pendingState(kind: ResourceKind, prior: TfObject | null, planned: TfObject, e: AcceptedOutcomeUnknownError): StateResult {
  const target = readEnvelope(planned);
  const uid = e.uid ?? (prior ? readEnvelope(prior).uid : '');
  const envelope = pendingEnvelope(prior, kind.formRef(planned), target.space, uid, e.operationId);
  const extra = new Set(kind.computedOnChange);
  const state = objectValue(
    Object.entries(planned).map(([k, v]): [string, TfValue] => [k, k in envelope ? envelope[k]! : extra.has(k) ? kind.pendingValue(k, prior, planned) : v]),
  );
  return {
    state,
    private: kind.privateFor(state),
    diagnostics: [
      warningDiag(
        'Host still working on the change',
        `The Host accepted the change to ${kind.typeName} "${target.name}" as operation ${e.operationId}${uid ? ` (uid ${uid})` : ''}, but it had not finished when the wait ended: ${e.causeMessage}. ` +
          'The state records the operation; the next plan or refresh follows it and shows the result.' +
          (e.stopped ? ' Nothing is lost: run apply again to see it through.' : ' Raise the `timeouts` block to wait longer.'),
      ),
    ],
  };
}

/**
 * Before an update or a delete of a resource whose last change is still an Operation on the
 * Host: wait for it (up to `timeoutMs`), then read the resource, so that the change is fenced
 * by what the Host stores now. The recorded state of a pending create has no uid or
 * generation yet, so sending the change without this would carry no valid fence.
 * Returns the refreshed state (null: the resource is not on the Host), or a refusal that
 * keeps the state as recorded.
 */
export async function settlePending(
  kind: ResourceKind,
  host: HostAccess,
  client: LifecycleClient,
  prior: TfObject,
  change: 'update' | 'delete',
  timeoutMs: number,
): Promise<{ readonly prior: TfObject | null } | { readonly refusal: Diagnostic[] }> {
  const envelope = readEnvelope(prior);
  const operationId = envelope.pendingOperation;
  if (!operationId) return { prior };
  const ctx = diagnosticContext(kind, kind.formRef(prior), envelope.name, envelope.space, prior);
  try {
    const { operation, retryAfterMs } = await client.operations.get(operationId);
    await client.operations.waitForResult('follow', operation, retryAfterMs, envelope.uid || undefined, timeoutMs);
  } catch (e) {
    if (e instanceof AcceptedOutcomeUnknownError) return { refusal: [stillWorking(kind, envelope.name, envelope.space, operationId, change, e)] };
    // A terminal error of the operation (its change did not happen) or an operation the Host
    // no longer has: what the Host stores now decides, so read it.
    if (!(e instanceof HostApiError)) return { refusal: [hostFailureDiagnostic('follow the operation of', e, ctx)] };
  }
  // The Operation has ended: read as a refresh would, without following it a second time.
  const read = await readResource(kind, host, objectValue([...Object.entries(prior), ['pending_operation', null]]), {});
  if (read.diagnostics.some((d) => d.severity === 'error')) return { refusal: read.diagnostics };
  return { prior: read.state };
}

function stillWorking(
  kind: ResourceKind,
  name: string,
  space: string,
  operationId: string,
  change: 'update' | 'delete',
  e: AcceptedOutcomeUnknownError,
): Diagnostic {
  return errorDiag(
    'Host still working on the last change',
    `${kind.typeName} "${name}" in space "${space}" cannot be ${change === 'delete' ? 'deleted' : 'changed'} yet: the Host is still working on operation ${operationId}, ` +
      `the change an earlier apply asked for (${e.causeMessage}). Nothing was sent and the state is kept. ` +
      `Run the command again once the operation has ended (a plan or \`apply -refresh-only\` follows it and shows its result)` +
      (e.stopped ? '.' : `, or raise \`timeouts.${change}\` so that this command waits longer for it.`),
  );
}
