// The tfplugin6 Provider service: the handler of every RPC, assembled from small per-area
// modules (rpcs/). Each handler only converts between protocol messages and the provider's
// own types (convert.ts, dynamic-value.ts) and calls the provider, the one resource
// lifecycle or a data source; none of them decides behaviour.
import type { ProviderHandlers } from '../generated/types/tfplugin6/Provider.js';
import type { TakoformProvider } from '../provider/provider.js';
import { artifactRpcs, routeArtifact } from './rpcs/artifact-rpcs.js';
import { dataRpcs } from './rpcs/data-rpcs.js';
import { providerRpcs } from './rpcs/provider-rpcs.js';
import { resourceRpcs } from './rpcs/resource-rpcs.js';
import { unaryRpc } from './rpcs/unary.js';
import { unsupportedRpcs } from './rpcs/unsupported-rpcs.js';

export { stateJsonProblem } from './rpcs/resource-rpcs.js';

export function createProviderHandlers(provider: TakoformProvider, onStop: () => void): ProviderHandlers {
  const unary = unaryRpc(provider.logger);
  return {
    ...providerRpcs(provider, unary, onStop),
    ...routeArtifact(resourceRpcs(provider, unary), artifactRpcs(provider, unary)),
    ...dataRpcs(provider, unary),
    ...unsupportedRpcs(unary),
  };
}
