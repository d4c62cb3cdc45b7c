// Importing one resource of any kind by its import ID: an exact read of the address it names;
// the state is then written from the Host (spec included), so the next plan shows how the
// configuration differs from what the Host stores.
import { errorDiag } from '../../diag/diagnostics.js';
import { hostFailureDiagnostic } from '../../diag/host-diagnostics.js';
import type { ResourceKind } from '../resource-kind.js';
import type { StateResult } from './apply.js';
import { diagnosticContext } from './common.js';
import type { HostAccess } from './host-access.js';

export async function importResource(kind: ResourceKind, host: HostAccess, id: string): Promise<StateResult> {
  const client = host.client;
  if (!client) return { state: null, private: {}, diagnostics: [errorDiag('Provider not configured', 'Importing needs the provider `endpoint` and `token`.')] };
  const target = kind.parseImportId(id, host.defaultSpace);
  if ('severity' in target) return { state: null, private: {}, diagnostics: [target] };
  const { formRef, space, name } = target;
  try {
    const resource = await client.resources.read({ formRef, space, name });
    if (!resource) {
      return {
        state: null,
        private: {},
        diagnostics: [errorDiag('Cannot import non-existent resource', `The Host has no ${formRef.kind} "${name}" in space "${space}" under this exact Form.`)],
      };
    }
    const state = kind.stateFromResource(resource, null);
    return { state, private: kind.privateFor(state), diagnostics: [] };
  } catch (e) {
    return { state: null, private: {}, diagnostics: [hostFailureDiagnostic('import', e, diagnosticContext(kind, formRef, name, space, null))] };
  }
}
