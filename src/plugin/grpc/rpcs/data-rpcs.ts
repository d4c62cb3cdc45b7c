// Data source RPCs: offline validation of name and space, and the read.
import type { ProviderHandlers } from '../../generated/types/tfplugin6/Provider.js';
import { DATA_SOURCES, type DataSource } from '../../data/data-sources.js';
import { errorDiag } from '../../diag/diagnostics.js';
import type { TakoformProvider } from '../../provider/provider.js';
import { addressDiagnostics } from '../../resource/address-validation.js';
import { readOnlyDiagnostics } from '../../schema/read-only.js';
import { toProtoDiagnostics } from '../convert.js';
import { decodeObject, encodeDynamic } from '../dynamic-value.js';
import type { unaryRpc } from './unary.js';

function dataSource(typeName: string): DataSource {
  const ds = DATA_SOURCES.find((d) => d.typeName === typeName);
  if (!ds) throw new Error(`unknown data source ${typeName}; this provider has ${DATA_SOURCES.map((d) => d.typeName).join(', ')}`);
  return ds;
}

export function dataRpcs(provider: TakoformProvider, unary: ReturnType<typeof unaryRpc>) {
  return {
    ValidateDataResourceConfig: unary('ValidateDataResourceConfig', (req) => {
      const ds = dataSource(req.type_name);
      const config = decodeObject(req.config, ds.valueType);
      return {
        diagnostics: toProtoDiagnostics(
          config ? [...readOnlyDiagnostics(req.type_name, ds.schema.block, config), ...addressDiagnostics(req.type_name, config)] : [],
        ),
      };
    }),

    ReadDataSource: unary('ReadDataSource', async (req) => {
      const ds = dataSource(req.type_name);
      const config = decodeObject(req.config, ds.valueType);
      const result = config
        ? await ds.read(config, provider)
        : { state: null, diagnostics: [errorDiag('Missing configuration', `${req.type_name} needs a configuration.`)] };
      if (!result.state) return { diagnostics: toProtoDiagnostics(result.diagnostics) };
      return { state: encodeDynamic(result.state, ds.valueType), diagnostics: toProtoDiagnostics(result.diagnostics) };
    }),
  } satisfies Partial<ProviderHandlers>;
}
