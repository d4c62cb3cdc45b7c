// The Host accepted a change (HTTP 202) but its end was not seen within the timeout. Record
// what was asked for and the Operation to follow, with a warning, so that the state never
// loses a resource the Host may be creating; the next refresh follows the Operation.
import type { AcceptedOutcomeUnknownError } from '../../../host-client/index.js';
import { warningDiag } from '../../diag/diagnostics.js';
import { objectValue, type TfObject, type TfValue } from '../../values/tf-value.js';
import { pendingEnvelope, readEnvelope } from '../envelope.js';
import type { ResourceKind } from '../resource-kind.js';
import type { StateResult } from './apply.js';

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
          'The state records the operation; the next plan or refresh follows it and shows the result. Raise the `timeouts` block to wait longer.',
      ),
    ],
  };
}
