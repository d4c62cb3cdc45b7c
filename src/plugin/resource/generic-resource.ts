// The generic kind, `takoform_resource`: any Form by exact FormRef, for Forms that are not in
// the catalog. The FormRef is written out and the spec is one dynamic value sent as written;
// the Host's materialized spec comes back as `spec_json`. Its state keeps the user's `spec`
// (core requires the planned value to equal the configuration), so drift is a change of
// `spec_json` away from what our last apply stored (private data `applied`).
//
// Everything else — prepare at plan, fenced apply, the create journal, Operations and
// timeouts, deletes that wait for dependents, refresh, import, diagnostics — is the one
// lifecycle of lifecycle/. Named differences (KindTraits): no resource identity (the type does
// not pin a Form), and the spec is one attribute.
import { canonicalJson } from '../../common/digest.js';
import { materializeDefaults } from '../../common/json-schema-defaults.js';
import { resourceNameProblem } from '../../common/grammar.js';
import { sameFormRef, type FormRef, type JsonObject, type ResourceResponse } from '../../host-client/index.js';
import { errorDiag, type AttributePath, type Diagnostic } from '../diag/diagnostics.js';
import { dynamicToJson, jsonToDynamic, SpecConversionError } from '../schema/form-mapping.js';
import { impliedType, type TfSchema } from '../schema/tf-schema.js';
import { T, type TfType } from '../values/tf-type.js';
import { isUnknown, isWhollyKnown, objectValue, UNKNOWN, type TfObject, type TfValue } from '../values/tf-value.js';
import { addressDiagnostics } from './address-validation.js';
import { ENVELOPE_ATTRIBUTES, envelopeValues } from './envelope.js';
import type { FormResourceType } from './form-resource-type.js';
import { withTimeouts } from './lifecycle/common.js';
import type { ResourcePrivate } from './lifecycle/resource-private.js';
import type { ImportTarget, KindTraits, ResourceKind } from './resource-kind.js';
import { NO_FORM_ATTRIBUTES, RESOURCE_STATE_VERSION } from './state-upgrade.js';
import { invalidDuration, TIMEOUTS_BLOCK } from './timeouts.js';

export const GENERIC_TYPE_NAME = 'takoform_resource';

const required = (name: string, description: string) => ({ name, type: T.string, required: true, description });
const FORM_REF_ATTRIBUTES = ['api_version', 'kind', 'definition_version', 'schema_digest'] as const;

export const GENERIC_SCHEMA: TfSchema = {
  version: RESOURCE_STATE_VERSION,
  block: {
    description:
      'Any Form the Host offers, named by its exact FormRef, with the spec as written. Prefer the typed resource types from the catalog; `moved` blocks convert between this type and the typed one of the same FormRef.',
    attributes: [
      required('api_version', 'Form group. Changing it creates a new resource.'),
      required('kind', 'Form kind. Changing it creates a new resource.'),
      required('definition_version', 'Form Definition version. Changing it creates a new resource.'),
      required('schema_digest', 'Form Definition digest. Changing it creates a new resource.'),
      { ...ENVELOPE_ATTRIBUTES.name, description: 'Resource name, a DNS label. Changing it creates a new resource.' },
      { ...ENVELOPE_ATTRIBUTES.space, description: 'Space; defaults to the provider `space`. Changing it creates a new resource.' },
      { name: 'spec', type: T.dynamic, required: true, description: 'Desired spec, sent as written (an object).' },
      { name: 'spec_json', type: T.string, computed: true, description: 'Canonical JSON of the spec the Host stores (defaults filled in).' },
      ENVELOPE_ATTRIBUTES.id,
      ...ENVELOPE_ATTRIBUTES.status,
      ...ENVELOPE_ATTRIBUTES.observed,
    ],
    blocks: [TIMEOUTS_BLOCK],
  },
};

export const GENERIC_TYPE: TfType = impliedType(GENERIC_SCHEMA.block);
const GENERIC_TRAITS: KindTraits = { identity: false, specShape: 'dynamic' };

export function formRefOf(state: TfObject): FormRef {
  return {
    apiVersion: state.api_version as string,
    kind: state.kind as string,
    definitionVersion: state.definition_version as string,
    schemaDigest: state.schema_digest as string,
  };
}

/** Generic state for an existing typed resource (moved typed → generic), spec = the Host's. */
export function genericFromHostSpec(spec: JsonObject): TfValue {
  return jsonToDynamic(spec);
}

export class GenericResourceKind implements ResourceKind {
  readonly typeName = GENERIC_TYPE_NAME;
  readonly schema = GENERIC_SCHEMA;
  readonly valueType = GENERIC_TYPE;
  readonly traits = GENERIC_TRAITS;
  readonly computedOnChange = ['spec_json'] as const;
  readonly stateShape = NO_FORM_ATTRIBUTES;

  /** `typed(ref)`: the catalog's typed type of the same exact Form, if any (its schema checks the spec offline). */
  constructor(private readonly typed: (ref: FormRef) => FormResourceType | undefined) {}

  formRef(value: TfObject): FormRef {
    return formRefOf(value);
  }

  async validate(config: TfObject): Promise<Diagnostic[]> {
    const found = [...addressDiagnostics(GENERIC_TYPE_NAME, config), ...(await validateGenericSpec(this.typed, config))];
    const bad = invalidDuration(config.timeouts);
    if (bad)
      found.push(
        errorDiag('Invalid duration', `${JSON.stringify(bad.text)} is not a duration; use Go syntax such as "30s" or "10m".`, ['timeouts', bad.attribute]),
      );
    return found;
  }

  specKnown(config: TfObject): boolean {
    return isWhollyKnown(config.spec ?? null) && FORM_REF_ATTRIBUTES.every((a) => isWhollyKnown(config[a] ?? null));
  }

  desiredSpec(config: TfObject): JsonObject {
    return specObject(config.spec ?? null);
  }

  withDefaults(spec: JsonObject, formRef: FormRef): JsonObject {
    const rt = this.typed(formRef);
    return rt ? materializeDefaults(rt.form.desiredSchema, spec) : spec;
  }

  hostSpecOf(state: TfObject): JsonObject {
    return parseSpecJson(state.spec_json);
  }

  plannedHostSpec(planned: TfObject): JsonObject | undefined {
    return typeof planned.spec_json === 'string' ? parseSpecJson(planned.spec_json) : undefined;
  }

  replacePaths(prior: TfObject, planned: TfObject): AttributePath[] {
    const paths: AttributePath[] = FORM_REF_ATTRIBUTES.filter((a) => String(prior[a]) !== String(planned[a])).map((a) => [a]);
    // A Form without `update` (as the catalog knows it, like the typed type does) changes its
    // spec only by replacement. Outside the catalog the availability probe refuses the update
    // with a message naming the missing operation.
    const rt = paths.length === 0 ? this.typed(formRefOf(planned)) : undefined;
    const canUpdate = !rt || rt.form.operations.length === 0 || rt.form.operations.includes('update');
    if (
      !canUpdate &&
      planned.spec !== undefined &&
      isWhollyKnown(planned.spec ?? null) &&
      canonicalJson(specObject(prior.spec ?? null)) !== canonicalJson(specObject(planned.spec ?? null))
    )
      paths.push(['spec']);
    return paths;
  }

  unchanged(prior: TfObject, config: TfObject, _local: JsonObject, priorPrivate: ResourcePrivate): boolean {
    // The spec as written is what the state keeps: unchanged when it is the same value and
    // the Host still stores what our last apply left (no drift).
    const sameSpec = canonicalJson(specObject(prior.spec ?? null)) === canonicalJson(specObject(config.spec ?? null));
    const noDrift = priorPrivate.applied === undefined || priorPrivate.applied === prior.spec_json;
    return sameSpec && noDrift;
  }

  completePlanned(planned: Record<string, TfValue>, spec: JsonObject | 'unknown', _config: TfObject, source: 'host' | 'local'): void {
    // Locally materialized defaults are exact only with the Form's schema from the catalog.
    const exact = spec !== 'unknown' && (source === 'host' || this.typed(formRefOf(planned as TfObject)) !== undefined);
    planned.spec_json = exact ? canonicalJson(spec) : UNKNOWN;
  }

  pendingValue(attribute: string, prior: TfObject | null, planned: TfObject): TfValue {
    // `spec_json`: what was planned when known, else what the state had.
    const pick = (v: TfValue | undefined) => (v === undefined || v === null || isUnknown(v) ? undefined : v);
    return pick(planned[attribute]) ?? pick(prior?.[attribute]) ?? '{}';
  }

  stateFromResource(resource: ResourceResponse, carry: TfObject | null): TfObject {
    const envelope = envelopeValues(resource);
    const ref = resource.form.formRef;
    return objectValue([
      ['api_version', ref.apiVersion],
      ['kind', ref.kind],
      ['definition_version', ref.definitionVersion],
      ['schema_digest', ref.schemaDigest],
      ['name', envelope.name],
      ['space', envelope.space],
      // The spec as the configuration wrote it (core requires it); imported: the Host's.
      ['spec', carry ? (carry.spec ?? null) : jsonToDynamic(resource.spec)],
      ['spec_json', canonicalJson(resource.spec)],
      ['id', envelope.id],
      ...envelope.status,
      ...envelope.observed,
      ['timeouts', carry?.timeouts ?? null],
    ]);
  }

  stateFromPrior(prior: TfObject, planned: TfObject): TfObject {
    return withTimeouts(objectValue([...Object.entries(prior), ['spec', planned.spec ?? null]]), planned.timeouts);
  }

  privateFor(state: TfObject): ResourcePrivate {
    // While an Operation is pending the Host's spec is not known yet: no drift reference.
    return typeof state.pending_operation === 'string' || typeof state.spec_json !== 'string' ? {} : { applied: state.spec_json };
  }

  parseImportId(id: string): ImportTarget | Diagnostic {
    const parts = id.split('/');
    if (parts.length !== 6 || parts.some((p) => p === '') || resourceNameProblem(parts[5]!)) {
      return errorDiag(
        'Invalid import ID',
        `Import takoform_resource with "GROUP/KIND/DEFINITION_VERSION/SCHEMA_DIGEST/SPACE/NAME"; got ${JSON.stringify(id)}.`,
      );
    }
    const [apiVersion, kind, definitionVersion, schemaDigest, space, name] = parts as [string, string, string, string, string, string];
    return { formRef: { apiVersion, kind, definitionVersion, schemaDigest }, space, name };
  }

  importId(formRef: FormRef, space: string, name: string): string {
    return [formRef.apiVersion, formRef.kind, formRef.definitionVersion, formRef.schemaDigest, space, name].join('/');
  }

  diagnosticFields() {
    return { specAttribute: 'spec' };
  }

  /** Any missing target at plan may be one created earlier in this run: the spec is opaque here. */
  refersToRelation(): boolean {
    return true;
  }
}

/** The spec value as a JSON object; a diagnostic-ready SpecConversionError otherwise. */
function specObject(value: TfValue): JsonObject {
  let json;
  try {
    json = dynamicToJson(value);
  } catch (e) {
    if (e instanceof SpecConversionError) throw new SpecConversionError(e.message, ['spec', ...e.path]);
    throw e;
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new SpecConversionError('the spec must be an object, e.g. `spec = { lower = 1 }`', ['spec']);
  return json;
}

function parseSpecJson(text: TfValue | undefined): JsonObject {
  if (typeof text !== 'string' || text === '') return {};
  const parsed = JSON.parse(text) as unknown;
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as JsonObject) : {};
}

/**
 * Offline check of `spec` when the catalog has the same exact Form: the typed resource
 * type's JSON Schema check, so that a spec the Form's schema refuses is refused at validate
 * and never sent to the Host. Forms outside the catalog are left to the Host's prepare.
 * Diagnostics point at `spec` itself, with the JSON Pointer in the detail: Terraform and
 * OpenTofu cannot follow a path into an attribute's expression, and a deeper path ending in
 * e.g. `name` makes them highlight the resource's own `name` argument instead.
 */
export async function validateGenericSpec(
  typed: ((ref: FormRef) => FormResourceType | undefined) | Iterable<FormResourceType>,
  config: TfObject,
): Promise<Diagnostic[]> {
  const parts = FORM_REF_ATTRIBUTES.map((a) => config[a]);
  if (!parts.every((p): p is string => typeof p === 'string')) return [];
  const ref = formRefOf(config);
  const rt = typeof typed === 'function' ? typed(ref) : [...typed].find((t) => sameFormRef(t.form.formRef, ref));
  const spec = config.spec ?? null;
  if (!rt || spec === null || !isWhollyKnown(spec)) return [];
  let json: JsonObject;
  try {
    json = specObject(spec);
  } catch (e) {
    if (e instanceof SpecConversionError) return [errorDiag('Invalid spec', `${e.message}.`, e.path)];
    throw e;
  }
  return rt.validator.validateDocument(json, () => ['spec']);
}
