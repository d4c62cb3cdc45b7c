// RPCs of protocol features this provider does not offer (ephemeral resources, list
// resources, actions, state stores, configuration generation): each answers with an
// "Unsupported operation" diagnostic, streams included, so core never sees a gRPC error.
import type { ProviderHandlers } from '../../generated/types/tfplugin6/Provider.js';
import { errorDiag } from '../../diag/diagnostics.js';
import { toProtoDiagnostics } from '../convert.js';
import type { AnyResponse, unaryRpc } from './unary.js';

const refusal = (what: string) => toProtoDiagnostics([errorDiag('Unsupported operation', `The takoform provider does not support ${what}.`)]);

export function unsupportedRpcs(unary: ReturnType<typeof unaryRpc>) {
  const unsupported = <Req>(rpc: string, what: string) => unary<Req, AnyResponse>(rpc, () => ({ diagnostics: refusal(what) }));
  return {
    ValidateEphemeralResourceConfig: unsupported('ValidateEphemeralResourceConfig', 'ephemeral resources'),
    OpenEphemeralResource: unsupported('OpenEphemeralResource', 'ephemeral resources'),
    RenewEphemeralResource: unsupported('RenewEphemeralResource', 'ephemeral resources'),
    CloseEphemeralResource: unsupported('CloseEphemeralResource', 'ephemeral resources'),
    GenerateResourceConfig: unsupported('GenerateResourceConfig', 'configuration generation yet'),
    ValidateListResourceConfig: unsupported('ValidateListResourceConfig', 'list resources'),
    ValidateActionConfig: unsupported('ValidateActionConfig', 'actions'),
    PlanAction: unsupported('PlanAction', 'actions'),
    ValidateStateStoreConfig: unsupported('ValidateStateStoreConfig', 'state stores'),
    ConfigureStateStore: unsupported('ConfigureStateStore', 'state stores'),
    LockState: unsupported('LockState', 'state stores'),
    UnlockState: unsupported('UnlockState', 'state stores'),
    GetStates: unsupported('GetStates', 'state stores'),
    DeleteState: unsupported('DeleteState', 'state stores'),
    ListResource: (call) => {
      call.write({ diagnostic: refusal('list resources') });
      call.end();
    },
    InvokeAction: (call) => {
      call.write({ completed: { diagnostics: refusal('actions') } });
      call.end();
    },
    ReadStateBytes: (call) => {
      call.write({ diagnostics: refusal('state stores') });
      call.end();
    },
    WriteStateBytes: (call, callback) => {
      call.on('data', () => undefined);
      call.on('end', () => callback(null, { diagnostics: refusal('state stores') }));
    },
    CallFunction: (call, callback) => callback(null, { error: { text: `The takoform provider has no function ${JSON.stringify(call.request.name)}.` } }),
  } satisfies Partial<ProviderHandlers>;
}
