// Refreshing one resource of any kind: follow a pending Operation first (while it runs the
// state stays as recorded), then the exact read. Gone → removed from state (core plans a
// create); the name now held by another incarnation → an error that keeps the state.
import { HostApiError, type ResourceResponse } from '../../../host-client/index.js';
import { errorDiag, warningDiag } from '../../diag/diagnostics.js';
import { hostFailureDiagnostic } from '../../diag/host-diagnostics.js';
import type { TfObject } from '../../values/tf-value.js';
import { readEnvelope } from '../envelope.js';
import type { ResourceKind } from '../resource-kind.js';
import type { StateResult } from './apply.js';
import { diagnosticContext, withTimeouts } from './common.js';
import type { HostAccess } from './host-access.js';
import type { ResourcePrivate } from './resource-private.js';

export async function readResource(kind: ResourceKind, host: HostAccess, current: TfObject, priorPrivate: ResourcePrivate): Promise<StateResult> {
  const client = host.client;
  const unchanged = (diagnostics: StateResult['diagnostics'] = []): StateResult => ({ state: current, private: priorPrivate, diagnostics });
  if (!client) return unchanged();
  const envelope = readEnvelope(current);
  const formRef = kind.formRef(current);
  const ctx = diagnosticContext(kind, formRef, envelope.name, envelope.space, current);
  if (envelope.pendingOperation) {
    try {
      const { operation } = await client.operations.get(envelope.pendingOperation);
      if (!operation.done) {
        // Say so: a plan would otherwise read "No changes" while the Host is still at work.
        return unchanged([
          warningDiag(
            'Host still working on the change',
            `${kind.typeName} "${envelope.name}" in space "${envelope.space}": operation ${envelope.pendingOperation}, the change an earlier apply asked for, has not ended yet, so the state still shows what was recorded when the Host accepted it. ` +
              'The next plan or refresh follows it again; a change or destroy of this resource first waits for it.',
          ),
        ]);
      }
    } catch (e) {
      if (!(e instanceof HostApiError && e.code === 'operation_not_found')) return unchanged([hostFailureDiagnostic('follow the operation of', e, ctx)]);
    }
  }
  let resource: ResourceResponse | undefined;
  try {
    resource = await client.resources.read({ formRef, space: envelope.space, name: envelope.name });
  } catch (e) {
    return unchanged([hostFailureDiagnostic('read', e, ctx)]);
  }
  if (!resource) {
    // Gone (deleted out of band, or by a run killed before it recorded the delete).
    host.journal.forgetName(formRef, envelope.space, envelope.name);
    return { state: null, private: {}, diagnostics: [] };
  }
  if (envelope.uid !== '' && resource.metadata.uid !== envelope.uid) {
    return unchanged([
      errorDiag(
        'Resource was replaced outside this configuration',
        `${kind.typeName} "${envelope.name}" in space "${envelope.space}" is now a different incarnation on the Host (uid ${resource.metadata.uid}; state tracks ${envelope.uid}). ` +
          'The one this state managed was deleted and the name re-created by someone else. State was kept unchanged. ' +
          'To manage the new one, remove this resource from state (`state rm`) and import it; to discard it, delete it on the Host.',
      ),
    ]);
  }
  // The state holds this resource: a journaled create of the name has nothing left to resume.
  host.journal.forgetName(formRef, envelope.space, envelope.name);
  const state = withTimeouts(kind.stateFromResource(resource, current), envelope.timeouts);
  // A pending Operation that finished: the state is now written from the Host, so the drift
  // reference is what the Host stores now.
  return { state, private: envelope.pendingOperation ? kind.privateFor(state) : priorPrivate, diagnostics: [] };
}
