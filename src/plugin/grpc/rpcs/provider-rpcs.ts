// The provider-level RPCs: metadata, schemas, the provider block, stop and functions.
import type { ProviderHandlers } from '../../generated/types/tfplugin6/Provider.js';
import { ARTIFACT_SCHEMA, ARTIFACT_TYPE_NAME } from '../../artifact/artifact-schema.js';
import { DATA_SOURCES } from '../../data/data-sources.js';
import { PROVIDER_SCHEMA } from '../../provider/provider-config.js';
import type { TakoformProvider } from '../../provider/provider.js';
import { spaceIdDiagnostic } from '../../resource/address-validation.js';
import { impliedType } from '../../schema/tf-schema.js';
import { toProtoDiagnostics, toProtoSchema } from '../convert.js';
import { decodeObject } from '../dynamic-value.js';
import type { unaryRpc } from './unary.js';

const CAPABILITIES = { get_provider_schema_optional: true, plan_destroy: false, move_resource_state: true };

export function providerRpcs(provider: TakoformProvider, unary: ReturnType<typeof unaryRpc>, onStop: () => void) {
  const providerType = impliedType(PROVIDER_SCHEMA.block);
  return {
    GetMetadata: unary('GetMetadata', () => ({
      server_capabilities: CAPABILITIES,
      resources: [...provider.kinds().map((k) => ({ type_name: k.typeName })), { type_name: ARTIFACT_TYPE_NAME }],
      data_sources: DATA_SOURCES.map((d) => ({ type_name: d.typeName })),
      diagnostics: toProtoDiagnostics(provider.loadDiagnostics),
    })),

    GetProviderSchema: unary('GetProviderSchema', () => ({
      provider: toProtoSchema(PROVIDER_SCHEMA),
      resource_schemas: {
        ...Object.fromEntries(provider.kinds().map((k) => [k.typeName, toProtoSchema(k.schema)])),
        [ARTIFACT_TYPE_NAME]: toProtoSchema(ARTIFACT_SCHEMA),
      },
      data_source_schemas: Object.fromEntries(DATA_SOURCES.map((d) => [d.typeName, toProtoSchema(d.schema)])),
      server_capabilities: CAPABILITIES,
      diagnostics: toProtoDiagnostics(provider.loadDiagnostics),
    })),

    ValidateProviderConfig: unary('ValidateProviderConfig', (req) => {
      const config = decodeObject(req.config, providerType);
      const space = config && typeof config.space === 'string' ? spaceIdDiagnostic('The provider', config.space, ['space']) : undefined;
      return { diagnostics: toProtoDiagnostics(space ? [space] : []) };
    }),

    ConfigureProvider: unary('ConfigureProvider', async (req) => {
      const config = decodeObject(req.config, providerType);
      return { diagnostics: toProtoDiagnostics(await provider.configure(config, req.terraform_version)) };
    }),

    StopProvider: (_call, callback) => {
      onStop();
      callback(null, { Error: '' });
    },

    GetFunctions: unary('GetFunctions', () => ({ functions: {}, diagnostics: [] })),
  } satisfies Partial<ProviderHandlers>;
}
