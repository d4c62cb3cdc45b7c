// tfplugin6.Provider: each handler converts the request from the wire, calls the provider or
// lifecycle code, and converts the answer back. Every outcome travels as diagnostics — an
// exception in our code becomes an error diagnostic naming the RPC, never a gRPC failure
// (which core shows as an opaque "Plugin error") and never a crash. RPCs we do not support
// answer a clean "unsupported" diagnostic.
import type * as grpc from '@grpc/grpc-js';
import type { ProviderHandlers } from '../generated/types/tfplugin6/Provider.js';
import type { Diagnostic as ProtoDiagnostic } from '../generated/types/tfplugin6/Diagnostic.js';
import { errorDiag, hasError, toProtoDiagnostics, type Diagnostic } from '../diag/diagnostics.js';
import { PROVIDER_SCHEMA } from '../provider/provider-config.js';
import type { TakoformProvider } from '../provider/provider.js';
import { applyResource, importResource, planResource, readResource } from '../resource/lifecycle.js';
import { encodePrivate } from '../resource/private-data.js';
import { invalidDuration } from '../resource/timeouts.js';
import { addressDiagnostics, spaceIdDiagnostic } from '../resource/address-validation.js';
import { impliedType, toProtoSchema } from '../schema/tf-schema.js';
import { ValueCodecError } from '../values/msgpack.js';
import type { FormResourceType } from '../resource/form-resource-type.js';
import { decodeObject, encodeDynamic } from './dynamic-value.js';
import { applyGeneric, GENERIC_SCHEMA, GENERIC_TYPE, GENERIC_TYPE_NAME, importGeneric, planGeneric, readGeneric, validateGenericSpec } from '../resource/generic-resource.js';
import { moveState } from '../resource/move.js';
import { DATA_SOURCES, type DataSource } from '../data/data-sources.js';
import { IDENTITY_ATTRIBUTES, IDENTITY_TYPE, IDENTITY_VERSION, identityOf } from '../resource/identity.js';
import { objectValue, type TfObject } from '../values/tf-value.js';
import type { DynamicValue__Output } from '../generated/types/tfplugin6/DynamicValue.js';

type AnyResponse = { diagnostics?: ProtoDiagnostic[] };

export function createProviderHandlers(provider: TakoformProvider, onStop: () => void): ProviderHandlers {
  const log = provider.logger;
  const providerType = impliedType(PROVIDER_SCHEMA.block);

  /** Wraps an async handler: logs, and turns any throw into an error diagnostic. */
  function unary<Req, Res extends AnyResponse>(rpc: string, fn: (req: Req) => Promise<Res> | Res): grpc.handleUnaryCall<Req, Res> {
    return (call, callback) => {
      const started = performance.now();
      Promise.resolve()
        .then(() => fn(call.request))
        .then(
          (res) => {
            log.trace('rpc', { rpc, duration_ms: Math.round(performance.now() - started) });
            callback(null, res);
          },
          (e: unknown) => {
            const message = e instanceof ValueCodecError ? `value does not match the schema: ${e.message}` : e instanceof Error ? e.message : String(e);
            log.error('rpc failed', { rpc, error: message });
            // A value that does not fit the schema names where it is, so core can point at it.
            const path = e instanceof ValueCodecError && e.path.length ? e.path : undefined;
            callback(null, { diagnostics: toProtoDiagnostics([errorDiag(`Provider error in ${rpc}`, `${message}\n\nThis is a bug in the takoform provider; please report it with the TF_LOG=trace output.`, path)]) } as Res);
          },
        );
    };
  }

  const unsupported = <Req,>(rpc: string, what: string) =>
    unary<Req, AnyResponse>(rpc, () => ({ diagnostics: toProtoDiagnostics([errorDiag('Unsupported operation', `The takoform provider does not support ${what}.`)]) }));

  function resourceType(typeName: string): FormResourceType {
    const rt = provider.resourceTypes.get(typeName);
    if (!rt) {
      throw new Error(`unknown resource type ${typeName}; the catalog (${provider.catalog.source}) defines ${[...provider.resourceTypes.keys()].join(', ') || 'no types'}`);
    }
    return rt;
  }

  const diags = (d: Diagnostic[]) => toProtoDiagnostics(d);

  function dataSource(typeName: string): DataSource {
    const ds = DATA_SOURCES.find((d) => d.typeName === typeName);
    if (!ds) throw new Error(`unknown data source ${typeName}; this provider has ${DATA_SOURCES.map((d) => d.typeName).join(', ')}`);
    return ds;
  }

  const identityData = (rt: FormResourceType, state: TfObject) => ({ identity_data: encodeDynamic(identityOf(rt, state), IDENTITY_TYPE) });

  /** An import names its target by ID string ("SPACE/NAME" or "NAME") or by identity. */
  function importTarget(rt: FormResourceType, id: string, identity: DynamicValue__Output | null | undefined): { id: string } | { error: Diagnostic } {
    if (!identity || (!identity.msgpack?.length && !identity.json?.length)) return { id };
    const value = decodeObject(identity, IDENTITY_TYPE);
    const text = (k: string) => (value && typeof value[k] === 'string' ? (value[k] as string) : undefined);
    const ref = rt.form.formRef;
    if ((text('api_version') && text('api_version') !== ref.apiVersion) || (text('kind') && text('kind') !== ref.kind)) {
      return { error: errorDiag('Identity names another Form', `${rt.typeName} manages ${ref.apiVersion}/${ref.kind}; the identity names ${text('api_version')}/${text('kind')}.`) };
    }
    const name = text('name');
    if (!name) return { error: errorDiag('Identity lacks a name', `Importing ${rt.typeName} by identity needs \`name\`.`) };
    return { id: text('space') ? `${text('space')}/${name}` : name };
  }

  return {
    GetMetadata: unary('GetMetadata', () => ({
      server_capabilities: { get_provider_schema_optional: true, plan_destroy: false, move_resource_state: true },
      resources: [...provider.resourceTypes.keys(), GENERIC_TYPE_NAME].map((type_name) => ({ type_name })),
      data_sources: DATA_SOURCES.map((d) => ({ type_name: d.typeName })),
      diagnostics: diags(provider.loadDiagnostics),
    })),

    GetProviderSchema: unary('GetProviderSchema', () => ({
      provider: toProtoSchema(PROVIDER_SCHEMA),
      resource_schemas: {
        ...Object.fromEntries([...provider.resourceTypes].map(([name, rt]) => [name, toProtoSchema(rt.schema)])),
        [GENERIC_TYPE_NAME]: toProtoSchema(GENERIC_SCHEMA),
      },
      data_source_schemas: Object.fromEntries(DATA_SOURCES.map((d) => [d.typeName, toProtoSchema(d.schema)])),
      server_capabilities: { get_provider_schema_optional: true, plan_destroy: false, move_resource_state: true },
      diagnostics: diags(provider.loadDiagnostics),
    })),

    GetResourceIdentitySchemas: unary('GetResourceIdentitySchemas', () => ({
      identity_schemas: Object.fromEntries(
        [...provider.resourceTypes.keys()].map((name) => [
          name,
          {
            version: String(IDENTITY_VERSION),
            identity_attributes: IDENTITY_ATTRIBUTES.map((a) => ({ ...a, type: Buffer.from('"string"') })),
          },
        ]),
      ),
      diagnostics: [],
    })),

    UpgradeResourceIdentity: unary('UpgradeResourceIdentity', (req) => {
      resourceType(req.type_name);
      if (Number(req.version) !== IDENTITY_VERSION) {
        return { diagnostics: diags([errorDiag('Unknown identity version', `${req.type_name} identity version ${req.version} is not known to this provider.`)]) };
      }
      const raw = JSON.parse(Buffer.from(req.raw_identity?.json ?? Buffer.from('null')).toString('utf8')) as Record<string, unknown> | null;
      const value = raw ? objectValue(['space', 'api_version', 'kind', 'name'].map((k) => [k, typeof raw[k] === 'string' ? (raw[k] as string) : null] as const)) : null;
      return { upgraded_identity: { identity_data: encodeDynamic(value, IDENTITY_TYPE) }, diagnostics: [] };
    }),

    ValidateProviderConfig: unary('ValidateProviderConfig', (req) => {
      const config = decodeObject(req.config, providerType);
      const space = config && typeof config.space === 'string' ? spaceIdDiagnostic('The provider', config.space, ['space']) : undefined;
      return { diagnostics: diags(space ? [space] : []) };
    }),

    ConfigureProvider: unary('ConfigureProvider', (req) => {
      const config = decodeObject(req.config, providerType);
      return { diagnostics: diags(provider.configure(config, req.terraform_version)) };
    }),

    ValidateResourceConfig: unary('ValidateResourceConfig', async (req) => {
      if (req.type_name === GENERIC_TYPE_NAME) {
        const config = decodeObject(req.config, GENERIC_TYPE);
        // A Form the catalog has is checked offline, like its typed resource type: a spec
        // its schema refuses never reaches the Host.
        const found = config ? [...addressDiagnostics(GENERIC_TYPE_NAME, config), ...(await validateGenericSpec(provider.resourceTypes.values(), config))] : [];
        const bad = config ? invalidDuration(config.timeouts) : undefined;
        if (bad) found.push(errorDiag('Invalid duration', `${JSON.stringify(bad.text)} is not a duration; use Go syntax such as "30s" or "10m".`, ['timeouts', bad.attribute]));
        return { diagnostics: diags(found) };
      }
      const rt = resourceType(req.type_name);
      const config = decodeObject(req.config, rt.valueType);
      if (!config) return { diagnostics: [] };
      const bad = invalidDuration(config.timeouts);
      const found = [...addressDiagnostics(rt.typeName, config), ...(await rt.validator.validate(config))];
      if (bad) found.push(errorDiag('Invalid duration', `${JSON.stringify(bad.text)} is not a duration; use Go syntax such as "30s", "10m" or "1h30m".`, ['timeouts', bad.attribute]));
      return { diagnostics: diags(found) };
    }),

    UpgradeResourceState: unary('UpgradeResourceState', (req) => {
      const schemaVersion = req.type_name === GENERIC_TYPE_NAME ? GENERIC_SCHEMA.version : resourceType(req.type_name).schema.version;
      const version = Number(req.version);
      if (version > schemaVersion) {
        return {
          diagnostics: diags([errorDiag('State written by a newer provider', `${req.type_name} state has schema version ${version}; this provider writes version ${schemaVersion}. Upgrade the provider.`)]),
        };
      }
      // Same schema version: hand the JSON back untouched. Core decodes it with the current
      // schema, losslessly (a JSON.parse round trip would turn 1e400 into Infinity). Parsing
      // here only checks it: state that is not a JSON object is refused with a diagnostic
      // instead of being handed to core as if it were an upgraded state.
      const json = req.raw_state?.json ?? Buffer.alloc(0);
      const unreadable = stateJsonProblem(json);
      if (unreadable) {
        return { diagnostics: diags([errorDiag('Unreadable resource state', `The stored state of this ${req.type_name} is ${unreadable}, so it cannot be upgraded. Restore the state file from a backup, or remove the resource from state (\`state rm\`) and import it again.`)]) };
      }
      return { upgraded_state: { json }, diagnostics: [] };
    }),

    ReadResource: unary('ReadResource', async (req) => {
      if (req.type_name === GENERIC_TYPE_NAME) {
        const current = decodeObject(req.current_state, GENERIC_TYPE);
        if (!current) return { new_state: encodeDynamic(null, GENERIC_TYPE), diagnostics: [] };
        const result = await readGeneric(provider, current);
        return { new_state: encodeDynamic(result.state, GENERIC_TYPE), private: req.private, diagnostics: diags(result.diagnostics) };
      }
      const rt = resourceType(req.type_name);
      const current = decodeObject(req.current_state, rt.valueType);
      if (!current) return { new_state: encodeDynamic(null, rt.valueType), diagnostics: [] };
      const result = await readResource(rt, provider, current);
      return {
        new_state: encodeDynamic(result.state, rt.valueType),
        private: req.private,
        ...(result.state ? { new_identity: identityData(rt, result.state) } : {}),
        diagnostics: diags(result.diagnostics),
      };
    }),

    PlanResourceChange: unary('PlanResourceChange', async (req) => {
      if (req.type_name === GENERIC_TYPE_NAME) {
        const result = await planGeneric(
          provider,
          decodeObject(req.prior_state, GENERIC_TYPE),
          decodeObject(req.proposed_new_state, GENERIC_TYPE),
          decodeObject(req.config, GENERIC_TYPE),
          req.prior_private,
        );
        if (hasError(result.diagnostics)) return { diagnostics: diags(result.diagnostics) };
        return {
          planned_state: encodeDynamic(result.planned, GENERIC_TYPE),
          requires_replace: result.requiresReplace.map((p) => ({ steps: p.map((st) => ({ attribute_name: String(st) })) })),
          planned_private: result.private,
          diagnostics: diags(result.diagnostics),
        };
      }
      const rt = resourceType(req.type_name);
      const prior = decodeObject(req.prior_state, rt.valueType);
      const proposed = decodeObject(req.proposed_new_state, rt.valueType);
      const config = decodeObject(req.config, rt.valueType);
      const result = await planResource(rt, provider, prior, proposed, config);
      if (hasError(result.diagnostics)) return { diagnostics: diags(result.diagnostics) };
      return {
        planned_state: encodeDynamic(result.planned, rt.valueType),
        requires_replace: result.requiresReplace.map((p) => ({ steps: p.map((s) => (typeof s === 'string' ? { attribute_name: s } : typeof s === 'number' ? { element_key_int: String(s) } : { element_key_string: s.key })) })),
        planned_private: encodePrivate(result.private),
        ...(result.planned ? { planned_identity: identityData(rt, result.planned) } : {}),
        diagnostics: diags(result.diagnostics),
      };
    }),

    ApplyResourceChange: unary('ApplyResourceChange', async (req) => {
      if (req.type_name === GENERIC_TYPE_NAME) {
        const result = await applyGeneric(provider, decodeObject(req.prior_state, GENERIC_TYPE), decodeObject(req.planned_state, GENERIC_TYPE), req.planned_private);
        return { new_state: encodeDynamic(result.state, GENERIC_TYPE), private: result.private, diagnostics: diags(result.diagnostics) };
      }
      const rt = resourceType(req.type_name);
      const prior = decodeObject(req.prior_state, rt.valueType);
      const planned = decodeObject(req.planned_state, rt.valueType);
      const result = await applyResource(rt, provider, prior, planned, req.planned_private);
      return {
        new_state: encodeDynamic(result.state, rt.valueType),
        ...(result.state ? { new_identity: identityData(rt, result.state) } : {}),
        diagnostics: diags(result.diagnostics),
      };
    }),

    ImportResourceState: unary('ImportResourceState', async (req) => {
      if (req.type_name === GENERIC_TYPE_NAME) {
        const result = await importGeneric(provider, req.id);
        if (!result.state) return { imported_resources: [], diagnostics: diags(result.diagnostics) };
        return { imported_resources: [{ type_name: req.type_name, state: encodeDynamic(result.state, GENERIC_TYPE) }], diagnostics: diags(result.diagnostics) };
      }
      const rt = resourceType(req.type_name);
      const target = importTarget(rt, req.id, req.identity?.identity_data);
      if ('error' in target) return { imported_resources: [], diagnostics: diags([target.error]) };
      const result = await importResource(rt, provider, target.id);
      if (!result.state) return { imported_resources: [], diagnostics: diags(result.diagnostics) };
      return {
        imported_resources: [{ type_name: req.type_name, state: encodeDynamic(result.state, rt.valueType), identity: identityData(rt, result.state) }],
        diagnostics: diags(result.diagnostics),
      };
    }),

    StopProvider: (_call, callback) => {
      onStop();
      callback(null, { Error: '' });
    },

    GetFunctions: unary('GetFunctions', () => ({ functions: {}, diagnostics: [] })),
    ValidateDataResourceConfig: unary('ValidateDataResourceConfig', (req) => {
      const config = decodeObject(req.config, dataSource(req.type_name).valueType);
      return { diagnostics: diags(config ? addressDiagnostics(req.type_name, config) : []) };
    }),
    ReadDataSource: unary('ReadDataSource', async (req) => {
      const ds = dataSource(req.type_name);
      const config = decodeObject(req.config, ds.valueType);
      const result = config ? await ds.read(config, provider) : { state: null, diagnostics: [errorDiag('Missing configuration', `${req.type_name} needs a configuration.`)] };
      if (!result.state) return { diagnostics: diags(result.diagnostics) };
      return { state: encodeDynamic(result.state, ds.valueType), diagnostics: diags(result.diagnostics) };
    }),
    ValidateEphemeralResourceConfig: unsupported('ValidateEphemeralResourceConfig', 'ephemeral resources'),
    OpenEphemeralResource: unsupported('OpenEphemeralResource', 'ephemeral resources'),
    RenewEphemeralResource: unsupported('RenewEphemeralResource', 'ephemeral resources'),
    CloseEphemeralResource: unsupported('CloseEphemeralResource', 'ephemeral resources'),
    MoveResourceState: unary('MoveResourceState', (req) => {
      if (!/\/takoform$/.test(req.source_provider_address)) {
        return { diagnostics: diags([errorDiag('Unsupported move', `The takoform provider can only take over resources it manages; the source is ${req.source_provider_address}.`)]) };
      }
      const toGeneric = req.target_type_name === GENERIC_TYPE_NAME;
      const targetType = toGeneric ? GENERIC_TYPE : resourceType(req.target_type_name).valueType;
      const typedSource = req.source_type_name === GENERIC_TYPE_NAME ? undefined : provider.resourceTypes.get(req.source_type_name);
      const result = moveState(req.source_type_name, req.source_state?.json, toGeneric ? { generic: true } : { generic: false, rt: resourceType(req.target_type_name) }, typedSource);
      if (!result.state) return { diagnostics: diags(result.diagnostics) };
      return {
        target_state: encodeDynamic(result.state, targetType),
        ...(toGeneric ? {} : { target_identity: identityData(resourceType(req.target_type_name), result.state) }),
        diagnostics: diags(result.diagnostics),
      };
    }),
    GenerateResourceConfig: unsupported('GenerateResourceConfig', 'configuration generation yet'),
    CallFunction: (call, callback) => callback(null, { error: { text: `The takoform provider has no function ${JSON.stringify(call.request.name)}.` } }),
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
      call.write({ diagnostic: toProtoDiagnostics([errorDiag('Unsupported operation', 'The takoform provider does not support list resources.')]) });
      call.end();
    },
    InvokeAction: (call) => {
      call.write({ completed: { diagnostics: toProtoDiagnostics([errorDiag('Unsupported operation', 'The takoform provider does not support actions.')]) } });
      call.end();
    },
    ReadStateBytes: (call) => {
      call.write({ diagnostics: toProtoDiagnostics([errorDiag('Unsupported operation', 'The takoform provider does not support state stores.')]) });
      call.end();
    },
    WriteStateBytes: (call, callback) => {
      call.on('data', () => undefined);
      call.on('end', () => callback(null, { diagnostics: toProtoDiagnostics([errorDiag('Unsupported operation', 'The takoform provider does not support state stores.')]) }));
    },
  };
}

/** Why raw state JSON cannot be a resource state (not JSON, or not an object), or undefined. */
export function stateJsonProblem(json: Uint8Array): string | undefined {
  if (json.length === 0) return 'empty (no JSON state)';
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(json).toString('utf8'));
  } catch (e) {
    return `not valid JSON (${e instanceof Error ? e.message : String(e)})`;
  }
  if (value !== null && (typeof value !== 'object' || Array.isArray(value))) return `JSON ${Array.isArray(value) ? 'array' : typeof value}, not an object`;
  return undefined;
}
