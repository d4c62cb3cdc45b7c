// Managed resource RPCs: each decodes its message with the kind's value type, runs the one
// lifecycle (resource/lifecycle/) and encodes the answer. Nothing here knows which kind it
// serves beyond the kind's named traits (identity).
import type { ProviderHandlers } from '../../generated/types/tfplugin6/Provider.js';
import { errorDiag, hasError } from '../../diag/diagnostics.js';
import type { TakoformProvider } from '../../provider/provider.js';
import { GENERIC_TYPE, GENERIC_TYPE_NAME } from '../../resource/generic-resource.js';
import { IDENTITY_ATTRIBUTES, IDENTITY_TYPE, IDENTITY_VERSION, identityOf, importIdFromIdentity, upgradeIdentity } from '../../resource/identity.js';
import { applyChange } from '../../resource/lifecycle/apply.js';
import { importResource } from '../../resource/lifecycle/import.js';
import { planChange } from '../../resource/lifecycle/plan.js';
import { readResource } from '../../resource/lifecycle/read.js';
import { moveState } from '../../resource/move.js';
import type { ResourceKind } from '../../resource/resource-kind.js';
import { newerStateDiagnostic, upgradeStateJson } from '../../resource/state-upgrade.js';
import { readOnlyDiagnostics } from '../../schema/read-only.js';
import { isUnknown, type TfObject } from '../../values/tf-value.js';
import { identityFromProto, identityToProto, privateFromProto, privateToProto, toProtoDiagnostics, toProtoPaths } from '../convert.js';
import { decodeObject, encodeDynamic } from '../dynamic-value.js';
import type { unaryRpc } from './unary.js';

export function resourceRpcs(provider: TakoformProvider, unary: ReturnType<typeof unaryRpc>) {
  // An identity not known yet (a name or space that comes from another resource) is left out:
  // both CLIs fail to save a plan whose planned identity holds unknown values.
  const identity = (kind: ResourceKind, state: TfObject | null) => {
    if (!kind.traits.identity || !state) return undefined;
    const value = identityOf(kind, state);
    return isUnknown(value) ? undefined : identityToProto(value, IDENTITY_TYPE);
  };
  const withIdentity = <K extends string>(key: K, kind: ResourceKind, state: TfObject | null) => {
    const id = identity(kind, state);
    return (id ? { [key]: id } : {}) as Partial<Record<K, ReturnType<typeof identityToProto>>>;
  };

  return {
    GetResourceIdentitySchemas: unary('GetResourceIdentitySchemas', () => ({
      identity_schemas: Object.fromEntries(
        provider
          .kinds()
          .filter((k) => k.traits.identity)
          .map((k) => [
            k.typeName,
            { version: String(IDENTITY_VERSION), identity_attributes: IDENTITY_ATTRIBUTES.map((a) => ({ ...a, type: Buffer.from('"string"') })) },
          ]),
      ),
      diagnostics: [],
    })),

    UpgradeResourceIdentity: unary('UpgradeResourceIdentity', (req) => {
      provider.kind(req.type_name);
      if (Number(req.version) !== IDENTITY_VERSION) {
        return {
          diagnostics: toProtoDiagnostics([
            errorDiag('Unknown identity version', `${req.type_name} identity version ${req.version} is not known to this provider.`),
          ]),
        };
      }
      const raw = JSON.parse(Buffer.from(req.raw_identity?.json ?? Buffer.from('null')).toString('utf8')) as Record<string, unknown> | null;
      return { upgraded_identity: identityToProto(upgradeIdentity(raw), IDENTITY_TYPE), diagnostics: [] };
    }),

    ValidateResourceConfig: unary('ValidateResourceConfig', async (req) => {
      const kind = provider.kind(req.type_name);
      const config = decodeObject(req.config, kind.valueType);
      return {
        diagnostics: toProtoDiagnostics(config ? [...readOnlyDiagnostics(req.type_name, kind.schema.block, config), ...(await kind.validate(config))] : []),
      };
    }),

    UpgradeResourceState: unary('UpgradeResourceState', (req) => {
      const kind = provider.kind(req.type_name);
      const version = Number(req.version);
      if (version > kind.schema.version) return { diagnostics: toProtoDiagnostics([newerStateDiagnostic(req.type_name, version, kind.schema.version)]) };
      const json = req.raw_state?.json ?? Buffer.alloc(0);
      if (version < kind.schema.version) {
        // An older state (state-upgrade.ts lists the versions): rewritten once into the current shape.
        const upgraded = upgradeStateJson(json, version, kind.stateShape);
        if ('problem' in upgraded) {
          const detail = `The stored state of this ${req.type_name} (schema version ${version}) cannot be upgraded to version ${kind.schema.version}: ${upgraded.problem}. Restore the state file from a backup, or remove the resource from state (\`state rm\`) and import it again.`;
          return { diagnostics: toProtoDiagnostics([errorDiag('Unreadable resource state', detail)]) };
        }
        return { upgraded_state: { json: Buffer.from(JSON.stringify(upgraded.state)) }, diagnostics: [] };
      }
      // Same schema version: hand the JSON back untouched. Core decodes it with the current
      // schema, losslessly (a JSON.parse round trip would turn 1e400 into Infinity). Parsing
      // here only checks it: state that is not a JSON object is refused with a diagnostic
      // instead of being handed to core as if it were an upgraded state.
      const unreadable = stateJsonProblem(json);
      if (unreadable) {
        const detail = `The stored state of this ${req.type_name} is ${unreadable}, so it cannot be upgraded. Restore the state file from a backup, or remove the resource from state (\`state rm\`) and import it again.`;
        return { diagnostics: toProtoDiagnostics([errorDiag('Unreadable resource state', detail)]) };
      }
      return { upgraded_state: { json }, diagnostics: [] };
    }),

    ReadResource: unary('ReadResource', async (req) => {
      const kind = provider.kind(req.type_name);
      const current = decodeObject(req.current_state, kind.valueType);
      if (!current) return { new_state: encodeDynamic(null, kind.valueType), diagnostics: [] };
      const result = await readResource(kind, provider, current, privateFromProto(req.private));
      return {
        new_state: encodeDynamic(result.state, kind.valueType),
        private: privateToProto(result.private),
        ...withIdentity('new_identity', kind, result.state),
        diagnostics: toProtoDiagnostics(result.diagnostics),
      };
    }),

    PlanResourceChange: unary('PlanResourceChange', async (req) => {
      const kind = provider.kind(req.type_name);
      const decode = (v: typeof req.config) => decodeObject(v, kind.valueType);
      const planned = await planChange(
        kind,
        provider,
        decode(req.prior_state),
        decode(req.proposed_new_state),
        decode(req.config),
        privateFromProto(req.prior_private),
        privateFromProto(req.planned_private),
      );
      const result = planned.planned === null ? planned : { ...planned, diagnostics: [...planned.diagnostics, ...provider.planWarnings(req.type_name)] };
      if (hasError(result.diagnostics)) return { diagnostics: toProtoDiagnostics(result.diagnostics) };
      return {
        planned_state: encodeDynamic(result.planned, kind.valueType),
        requires_replace: toProtoPaths(result.requiresReplace),
        planned_private: privateToProto(result.private),
        ...withIdentity('planned_identity', kind, result.planned),
        diagnostics: toProtoDiagnostics(result.diagnostics),
      };
    }),

    ApplyResourceChange: unary('ApplyResourceChange', async (req) => {
      const kind = provider.kind(req.type_name);
      const decode = (v: typeof req.config) => decodeObject(v, kind.valueType);
      const result = await applyChange(kind, provider, decode(req.prior_state), decode(req.planned_state), privateFromProto(req.planned_private));
      return {
        new_state: encodeDynamic(result.state, kind.valueType),
        private: privateToProto(result.private),
        ...withIdentity('new_identity', kind, result.state),
        diagnostics: toProtoDiagnostics(result.diagnostics),
      };
    }),

    ImportResourceState: unary('ImportResourceState', async (req) => {
      const kind = provider.kind(req.type_name);
      let id = req.id;
      const named = kind.traits.identity ? identityFromProto(req.identity, IDENTITY_TYPE) : undefined;
      if (named !== undefined) {
        const target = importIdFromIdentity(kind, named);
        if ('error' in target) return { imported_resources: [], diagnostics: toProtoDiagnostics([target.error]) };
        id = target.id;
      }
      const result = await importResource(kind, provider, id);
      if (!result.state) return { imported_resources: [], diagnostics: toProtoDiagnostics(result.diagnostics) };
      const imported = {
        type_name: req.type_name,
        state: encodeDynamic(result.state, kind.valueType),
        private: privateToProto(result.private),
        ...withIdentity('identity', kind, result.state),
      };
      return { imported_resources: [imported], diagnostics: toProtoDiagnostics(result.diagnostics) };
    }),

    MoveResourceState: unary('MoveResourceState', (req) => {
      if (!/\/takoform$/.test(req.source_provider_address)) {
        const detail = `The takoform provider can only take over resources it manages; the source is ${req.source_provider_address}.`;
        return { diagnostics: toProtoDiagnostics([errorDiag('Unsupported move', detail)]) };
      }
      const toGeneric = req.target_type_name === GENERIC_TYPE_NAME;
      const target = toGeneric ? undefined : provider.typed(req.target_type_name);
      const typedSource = req.source_type_name === GENERIC_TYPE_NAME ? undefined : provider.resourceTypes.get(req.source_type_name);
      const result = moveState(
        req.source_type_name,
        Number(req.source_schema_version),
        req.source_state?.json,
        target ? { generic: false, rt: target } : { generic: true },
        typedSource,
      );
      if (!result.state) return { diagnostics: toProtoDiagnostics(result.diagnostics) };
      return {
        target_state: encodeDynamic(result.state, target ? target.valueType : GENERIC_TYPE),
        ...(target ? withIdentity('target_identity', target, result.state) : {}),
        diagnostics: toProtoDiagnostics(result.diagnostics),
      };
    }),
  } satisfies Partial<ProviderHandlers>;
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
