// `takoform_resource`: the escape hatch for Forms that are not in the catalog. The exact
// FormRef is written out and the spec is a dynamic value sent as written; the Host's
// materialized spec comes back as `spec_json`. Drift shows as a change of `spec_json` away
// from what the last apply stored (kept in private data), which plans a re-apply.
import { canonicalJson } from '../../common/digest.js';
import { AcceptedOutcomeUnknownError, HostApiError, resourceRequest, sameFormRef, type FormRef, type JsonObject, type ResourceResponse } from '../../host-client/index.js';
import { errorDiag, warningDiag, type AttributePath, type Diagnostic } from '../diag/diagnostics.js';
import { hostFailureDiagnostic, type ResourceContext } from '../diag/host-diagnostics.js';
import { dynamicToJson, jsonToDynamic, SpecConversionError } from '../schema/form-mapping.js';
import { impliedType, type TfSchema } from '../schema/tf-schema.js';
import { T, type TfType } from '../values/tf-type.js';
import { isUnknown, isWhollyKnown, objectValue, UNKNOWN, type TfObject, type TfValue } from '../values/tf-value.js';
import { CONDITION_TYPE, conditionValues, stateId, type FormResourceType } from './form-resource-type.js';
import { journaledCreate, resumeInterruptedCreate } from './journaled-create.js';
import { createConflictDiagnostic, ignoredEntryWarnings, resumedWarning, type HostAccess } from './lifecycle.js';
import { operationTimeout, TIMEOUTS_BLOCK } from './timeouts.js';

export const GENERIC_TYPE_NAME = 'takoform_resource';

const computed = (name: string, description: string) => ({ name, type: T.string, computed: true, description });

export const GENERIC_SCHEMA: TfSchema = {
  version: 0,
  block: {
    description: 'Any Form the Host offers, named by its exact FormRef, with the spec as written. Prefer the typed resource types from the catalog; `moved` blocks convert between this type and the typed one of the same FormRef.',
    attributes: [
      { name: 'api_version', type: T.string, required: true, description: 'Form group. Changing it creates a new resource.' },
      { name: 'kind', type: T.string, required: true, description: 'Form kind. Changing it creates a new resource.' },
      { name: 'definition_version', type: T.string, required: true, description: 'Form Definition version. Changing it creates a new resource.' },
      { name: 'schema_digest', type: T.string, required: true, description: 'Form Definition digest. Changing it creates a new resource.' },
      { name: 'name', type: T.string, required: true, description: 'Resource name. Changing it creates a new resource.' },
      { name: 'space', type: T.string, optional: true, computed: true, description: 'Space; defaults to the provider `space`.' },
      { name: 'spec', type: T.dynamic, required: true, description: 'Desired spec, sent as written (an object).' },
      computed('spec_json', 'Canonical JSON of the spec the Host stores (defaults filled in).'),
      computed('id', 'State key: `space/apiVersion/kind/uid`.'),
      computed('uid', 'Host-issued identity of this incarnation.'),
      computed('generation', 'Desired-state generation.'),
      computed('revision', 'Representation revision.'),
      { name: 'conditions', type: T.list(CONDITION_TYPE), computed: true, description: 'Status conditions.' },
      { name: 'ready', type: T.bool, computed: true, description: 'True when the Ready condition is True.' },
      computed('outputs_json', 'Canonical JSON of `status.outputs` (`{}` when none).'),
      computed('pending_operation', 'Host Operation still being followed, if any.'),
    ],
    blocks: [TIMEOUTS_BLOCK],
  },
};

export const GENERIC_TYPE: TfType = impliedType(GENERIC_SCHEMA.block);
const REPLACING = ['api_version', 'kind', 'definition_version', 'schema_digest', 'name', 'space'];
const ON_CHANGE = ['spec_json', 'generation', 'revision', 'conditions', 'ready', 'outputs_json', 'pending_operation'];

interface GenericPrivate {
  /** The Host's spec right after our last apply (canonical JSON): what "no drift" means. */
  readonly applied?: string;
  readonly prepareDigest?: string;
  readonly specDigest?: string;
}

export function encodeGenericPrivate(p: GenericPrivate): Buffer {
  return Buffer.from(JSON.stringify({ g: 1, ...p }));
}

export function decodeGenericPrivate(bytes: Uint8Array | undefined): GenericPrivate {
  if (!bytes || bytes.length === 0) return {};
  try {
    const o = JSON.parse(Buffer.from(bytes).toString('utf8')) as Record<string, unknown>;
    const text = (k: string) => (typeof o[k] === 'string' ? { [k]: o[k] as string } : {});
    return { ...text('applied'), ...text('prepareDigest'), ...text('specDigest') };
  } catch {
    return {};
  }
}

export function formRefOf(state: TfObject): FormRef {
  return { apiVersion: state.api_version as string, kind: state.kind as string, definitionVersion: state.definition_version as string, schemaDigest: state.schema_digest as string };
}

/** The generic state for a Host resource; `spec` (the user's) and `timeouts` come from `base`. */
export function genericState(resource: ResourceResponse, base: { spec: TfValue; timeouts: TfValue }): TfObject {
  const m = resource.metadata;
  const ref = resource.form.formRef;
  return objectValue([
    ['api_version', ref.apiVersion],
    ['kind', ref.kind],
    ['definition_version', ref.definitionVersion],
    ['schema_digest', ref.schemaDigest],
    ['name', m.name],
    ['space', m.space],
    ['spec', base.spec],
    ['spec_json', canonicalJson(resource.spec)],
    ['id', stateId(m.space, ref.apiVersion, ref.kind, m.uid)],
    ['uid', m.uid],
    ['generation', m.generation],
    ['revision', m.revision],
    ['conditions', conditionValues(resource.status.conditions)],
    ['ready', resource.status.conditions.find((c) => c.type === 'Ready')?.status === 'True'],
    ['outputs_json', canonicalJson(resource.status.outputs ?? {})],
    ['pending_operation', null],
    ['timeouts', base.timeouts],
  ]);
}

function specJson(value: TfValue, path: AttributePath): JsonObject | Diagnostic {
  try {
    const json = dynamicToJson(value);
    if (typeof json !== 'object' || json === null || Array.isArray(json)) return errorDiag('Invalid spec', 'The spec must be an object, e.g. `spec = { lower = 1 }`.', path);
    return json;
  } catch (e) {
    if (e instanceof SpecConversionError) return errorDiag('Invalid spec', e.message, [...path, ...e.path]);
    throw e;
  }
}

/**
 * Offline check of `spec` when the catalog has the same exact Form: the typed resource
 * type's JSON Schema check, so that a spec the Form's schema refuses is refused at validate
 * and never sent to the Host. Forms outside the catalog are left to the Host's prepare.
 * Diagnostics point at `spec` itself, with the JSON Pointer in the detail: Terraform and
 * OpenTofu cannot follow a path into an attribute's expression, and a deeper path ending in
 * e.g. `name` makes them highlight the resource's own `name` argument instead.
 */
export async function validateGenericSpec(types: Iterable<FormResourceType>, config: TfObject): Promise<Diagnostic[]> {
  const parts = [config.api_version, config.kind, config.definition_version, config.schema_digest];
  if (!parts.every((p): p is string => typeof p === 'string')) return [];
  const ref = formRefOf(config);
  const rt = [...types].find((t) => sameFormRef(t.form.formRef, ref));
  const spec = config.spec ?? null;
  if (!rt || spec === null || !isWhollyKnown(spec)) return [];
  const json = specJson(spec, ['spec']);
  if (isDiag(json)) return [json];
  return rt.validator.validateDocument(json, () => ['spec']);
}

const isDiag = (x: unknown): x is Diagnostic => typeof x === 'object' && x !== null && 'severity' in x && 'summary' in x;

export async function planGeneric(host: HostAccess, prior: TfObject | null, proposed: TfObject | null, config: TfObject | null, priorPrivate: Uint8Array | undefined) {
  if (!proposed || !config) return { planned: null, requiresReplace: [] as AttributePath[], diagnostics: [] as Diagnostic[], private: Buffer.alloc(0) };
  const planned: Record<string, TfValue> = { ...proposed };
  if ((config.space ?? null) === null) planned.space = prior ? (prior.space ?? null) : (host.defaultSpace ?? (host.configUnknown ? UNKNOWN : null));
  if (planned.space === null) return { planned: null, requiresReplace: [], diagnostics: [errorDiag('Missing space', 'Set `space` on takoform_resource or in the provider configuration.', ['space'])], private: Buffer.alloc(0) };
  const requiresReplace: AttributePath[] = prior ? REPLACING.filter((k) => canonicalJson(String(prior[k])) !== canonicalJson(String(planned[k]))).map((k) => [k]) : [];
  const known = isWhollyKnown(objectValue(Object.entries(planned).filter(([k]) => ['spec', ...REPLACING].includes(k))));
  const markChanged = (fresh: boolean) => {
    for (const k of ON_CHANGE) planned[k] = UNKNOWN;
    if (fresh) for (const k of ['id', 'uid']) planned[k] = UNKNOWN;
  };
  const priv = decodeGenericPrivate(priorPrivate);
  if (prior && requiresReplace.length === 0 && known) {
    const sameSpec = canonicalJson(dynamicToJson(prior.spec ?? null)) === canonicalJson(dynamicToJson(planned.spec ?? null));
    const noDrift = !priv.applied || priv.applied === prior.spec_json;
    if (sameSpec && noDrift) return { planned: objectValue([...Object.entries(prior), ['timeouts', proposed.timeouts ?? null]]), requiresReplace, diagnostics: [], private: Buffer.from(priorPrivate ?? []) };
  }
  if (!known || !host.client || requiresReplace.length > 0) {
    markChanged(!prior || requiresReplace.length > 0);
    return { planned: objectValue(Object.entries(planned)), requiresReplace, diagnostics: [], private: encodeGenericPrivate({ ...(priv.applied ? { applied: priv.applied } : {}) }) };
  }
  const spec = specJson(planned.spec!, ['spec']);
  if (isDiag(spec)) return { planned: null, requiresReplace, diagnostics: [spec], private: Buffer.alloc(0) };
  const ref = formRefOf(planned as TfObject);
  const ctx: ResourceContext = { typeName: GENERIC_TYPE_NAME, name: planned.name as string, space: planned.space as string, formRef: ref, specAttribute: 'spec', ...(prior ? { uid: prior.uid as string, generation: prior.generation as string } : {}) };
  try {
    const prepared = await host.client.resources.prepare(resourceRequest(ref, planned.space as string, planned.name as string, spec), prior ? (prior.generation as string) : undefined);
    markChanged(!prior);
    planned.spec_json = canonicalJson(prepared.spec);
    return { planned: objectValue(Object.entries(planned)), requiresReplace, diagnostics: [], private: encodeGenericPrivate({ ...(priv.applied ? { applied: priv.applied } : {}), prepareDigest: prepared.prepareDigest, specDigest: prepared.specDigest }) };
  } catch (e) {
    // resource_not_found: a relation target created earlier in this run. A held name with an
    // interrupted create of ours journaled for this spec: apply resumes it.
    // A held name at plan: the old object of a replacement, an interrupted create of ours that
    // apply resumes, or someone else's, which apply refuses with "already exists".
    const held = e instanceof HostApiError && (e.code === 'invalid_argument' || e.code === 'generation_conflict');
    if (!prior && e instanceof HostApiError && (e.code === 'resource_not_found' || held)) {
      markChanged(true);
      return { planned: objectValue(Object.entries(planned)), requiresReplace, diagnostics: [], private: Buffer.alloc(0) };
    }
    return { planned: null, requiresReplace, diagnostics: [hostFailureDiagnostic('prepare', e, ctx)], private: Buffer.alloc(0) };
  }
}

export async function applyGeneric(host: HostAccess, prior: TfObject | null, planned: TfObject | null, plannedPrivate: Uint8Array | undefined) {
  const client = host.client;
  const subject = planned ?? prior!;
  const ref = formRefOf(subject);
  const ctx: ResourceContext = { typeName: GENERIC_TYPE_NAME, name: subject.name as string, space: subject.space as string, formRef: ref, specAttribute: 'spec' };
  if (!client) return { state: prior, private: Buffer.alloc(0), diagnostics: [errorDiag('Provider not configured', 'The takoform provider needs `endpoint` and `token` to apply changes.')] };
  if (!planned) {
    try {
      await client.resources.delete({ formRef: ref, space: prior!.space as string, name: prior!.name as string }, { expectedGeneration: prior!.generation as string, uid: prior!.uid as string }, { operationTimeoutMs: operationTimeout(prior!.timeouts, 'delete') });
      host.journal.forgetName(ref, prior!.space as string, prior!.name as string);
      return { state: null, private: Buffer.alloc(0), diagnostics: [] as Diagnostic[] };
    } catch (e) {
      return { state: prior, private: Buffer.alloc(0), diagnostics: [hostFailureDiagnostic('delete', e, ctx)] };
    }
  }
  const spec = specJson(planned.spec!, ['spec']);
  if (isDiag(spec)) return { state: prior, private: Buffer.alloc(0), diagnostics: [spec] };
  const request = resourceRequest(ref, planned.space as string, planned.name as string, spec);
  let review = decodeGenericPrivate(plannedPrivate);
  const timeoutMs = operationTimeout(planned.timeouts, prior ? 'update' : 'create');
  const journalWarnings: Diagnostic[] = [];
  try {
    // A create of this name and spec that an earlier run here sent but never recorded: resume it.
    const outcome = prior ? undefined : await resumeInterruptedCreate(client, host.journal, request, { operationTimeoutMs: timeoutMs });
    if (outcome) journalWarnings.push(...ignoredEntryWarnings(GENERIC_TYPE_NAME, planned.name as string, outcome.ignored));
    const resumed = outcome?.resumed;
    if (resumed) {
      const state = genericState(resumed.result.resource, { spec: planned.spec ?? null, timeouts: planned.timeouts ?? null });
      return {
        state,
        private: encodeGenericPrivate({ applied: state.spec_json as string }),
        diagnostics: resumed.resumed ? [...journalWarnings, resumedWarning(GENERIC_TYPE_NAME, planned.name as string, resumed.result.resource.metadata.uid)] : journalWarnings,
      };
    }
    if (!review.prepareDigest || !review.specDigest) {
      const prepared = await client.resources.prepare(request, prior ? (prior.generation as string) : undefined);
      if (!isUnknown(planned.spec_json!) && planned.spec_json !== canonicalJson(prepared.spec)) {
        return { state: prior, private: Buffer.alloc(0), diagnostics: [errorDiag('Changed on the Host since plan', `The Host would now store a different spec for takoform_resource "${planned.name as string}" than the plan showed. Run plan again.`)] };
      }
      review = { prepareDigest: prepared.prepareDigest, specDigest: prepared.specDigest };
    }
    const binding = { prepareDigest: review.prepareDigest!, specDigest: review.specDigest! };
    const result = prior
      ? await client.resources.apply(request, binding, { kind: 'update', expectedGeneration: prior.generation as string, expectedUid: prior.uid as string }, { operationTimeoutMs: timeoutMs })
      : await journaledCreate(client, host.journal, request, binding, { operationTimeoutMs: timeoutMs });
    const state = genericState(result.resource, { spec: planned.spec ?? null, timeouts: planned.timeouts ?? null });
    const ready = result.resource.status.conditions.find((c) => c.type === 'Ready');
    return {
      state,
      private: encodeGenericPrivate({ applied: state.spec_json as string }),
      diagnostics: ready && ready.status !== 'True' ? [warningDiag('Resource is not Ready', `takoform_resource "${result.resource.metadata.name}" reports Ready=${ready.status} (${ready.reason}).`)] : [],
    };
  } catch (e) {
    if (e instanceof AcceptedOutcomeUnknownError && prior) {
      return { state: objectValue([...Object.entries(prior), ['pending_operation', e.operationId]]), private: Buffer.alloc(0), diagnostics: [hostFailureDiagnostic('apply', e, ctx)] };
    }
    return { state: prior, private: Buffer.alloc(0), diagnostics: [...journalWarnings, (await createConflictDiagnostic(client, GENERIC_TYPE_NAME, request, prior, e)) ?? hostFailureDiagnostic('apply', e, ctx)] };
  }
}

export async function readGeneric(host: HostAccess, current: TfObject) {
  const client = host.client;
  if (!client) return { state: current, diagnostics: [] as Diagnostic[] };
  const ref = formRefOf(current);
  const ctx: ResourceContext = { typeName: GENERIC_TYPE_NAME, name: current.name as string, space: current.space as string, formRef: ref };
  try {
    const r = await client.resources.read({ formRef: ref, space: current.space as string, name: current.name as string });
    if (!r) {
      host.journal.forgetName(ref, current.space as string, current.name as string);
      return { state: null, diagnostics: [] };
    }
    if (typeof current.uid === 'string' && current.uid !== '' && r.metadata.uid !== current.uid) {
      return { state: current, diagnostics: [errorDiag('Resource was replaced outside this configuration', `takoform_resource "${current.name as string}" is now uid ${r.metadata.uid}; state tracks ${current.uid}. Remove it from state and import it to manage the new one.`)] };
    }
    // The state holds this resource: a journaled create of the name has nothing left to resume.
    host.journal.forgetName(ref, current.space as string, current.name as string);
    return { state: genericState(r, { spec: current.spec ?? null, timeouts: current.timeouts ?? null }), diagnostics: [] };
  } catch (e) {
    return { state: current, diagnostics: [hostFailureDiagnostic('read', e, ctx)] };
  }
}

/** Import by "GROUP/KIND/DEFINITION_VERSION/SCHEMA_DIGEST/SPACE/NAME". */
export async function importGeneric(host: HostAccess, id: string) {
  const parts = id.split('/');
  if (parts.length !== 6 || parts.some((p) => p === '')) {
    return { state: null, diagnostics: [errorDiag('Invalid import ID', `Import takoform_resource with "GROUP/KIND/DEFINITION_VERSION/SCHEMA_DIGEST/SPACE/NAME"; got ${JSON.stringify(id)}.`)] };
  }
  const [apiVersion, kind, definitionVersion, schemaDigest, space, name] = parts as [string, string, string, string, string, string];
  const formRef = { apiVersion, kind, definitionVersion, schemaDigest };
  if (!host.client) return { state: null, diagnostics: [errorDiag('Provider not configured', 'Importing needs the provider `endpoint` and `token`.')] };
  try {
    const r = await host.client.resources.read({ formRef, space, name });
    if (!r) return { state: null, diagnostics: [errorDiag('Cannot import non-existent resource', `The Host has no ${kind} "${name}" in space "${space}" under this exact Form.`)] };
    return { state: genericState(r, { spec: jsonToDynamic(r.spec), timeouts: null }), diagnostics: [] as Diagnostic[] };
  } catch (e) {
    return { state: null, diagnostics: [hostFailureDiagnostic('import', e, { typeName: GENERIC_TYPE_NAME, name, space, formRef })] };
  }
}

/** Generic state for an existing typed resource (moved typed → generic), spec = the Host's. */
export function genericFromHostSpec(spec: JsonObject): TfValue {
  return jsonToDynamic(spec);
}
