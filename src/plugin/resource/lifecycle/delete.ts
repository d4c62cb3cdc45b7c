// Deleting one resource of any kind, fenced by the generation the state last saw; "already
// gone" is success. A dependent being deleted in the same run but not ordered before us (it
// names us by a literal instead of a reference) frees us shortly: we wait a little for it.
import { AcceptedOutcomeUnknownError, HostApiError } from '../../../host-client/index.js';
import { hostFailureDiagnostic } from '../../diag/host-diagnostics.js';
import { objectValue, type TfObject } from '../../values/tf-value.js';
import { readEnvelope } from '../envelope.js';
import type { ResourceKind } from '../resource-kind.js';
import { operationTimeout } from '../timeouts.js';
import type { StateResult } from './apply.js';
import { diagnosticContext } from './common.js';
import type { HostAccess, LifecycleClient } from './host-access.js';
import { settlePending } from './pending.js';

/** How long a delete waits for dependents that are going away in the same run. */
export const DEPENDENCY_WAIT_MS = 10_000;

export async function deleteResource(kind: ResourceKind, host: HostAccess, client: LifecycleClient, recorded: TfObject): Promise<StateResult> {
  // A create or update still running on the Host is seen through first: its state has no
  // fence to delete by yet.
  const settled = await settlePending(kind, host, client, recorded, 'delete', operationTimeout(recorded.timeouts, 'delete'));
  if ('refusal' in settled) return { state: recorded, private: kind.privateFor(recorded), diagnostics: settled.refusal };
  const prior = settled.prior;
  if (prior === null) return { state: null, private: {}, diagnostics: [] };
  const envelope = readEnvelope(prior);
  const formRef = kind.formRef(prior);
  const address = { formRef, space: envelope.space, name: envelope.name };
  const waitUntil = Date.now() + DEPENDENCY_WAIT_MS;
  for (let delay = 250; ; delay = Math.min(delay * 2, 2000)) {
    try {
      await client.resources.delete(
        address,
        { expectedGeneration: envelope.generation, uid: envelope.uid },
        { operationTimeoutMs: operationTimeout(prior.timeouts, 'delete') },
      );
      host.journal.forgetName(formRef, envelope.space, envelope.name);
      return { state: null, private: {}, diagnostics: [] };
    } catch (e) {
      if (e instanceof HostApiError && e.code === 'dependency_in_use' && Date.now() + delay < waitUntil) {
        await new Promise((r) => setTimeout(r, delay));
        continue;
      }
      const diagnostic = hostFailureDiagnostic('delete', e, diagnosticContext(kind, formRef, envelope.name, envelope.space, prior));
      if (e instanceof AcceptedOutcomeUnknownError) {
        // Keep the object (with the Operation to follow) so the next run sees the outcome.
        const state = objectValue([...Object.entries(prior), ['pending_operation', e.operationId]]);
        return { state, private: kind.privateFor(state), diagnostics: [diagnostic] };
      }
      return { state: prior, private: kind.privateFor(prior), diagnostics: [diagnostic] };
    }
  }
}
