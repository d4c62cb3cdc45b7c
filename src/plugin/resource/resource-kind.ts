// The seam between the one resource lifecycle (lifecycle/) and the kinds of resource it runs
// for. The lifecycle owns everything that talks to the Host or to core's rules — prepare,
// fenced apply, the create journal, Operations, timeouts, delete with dependents, refresh,
// import, diagnostics. A kind supplies only what differs: its schema, how a configuration
// becomes a desired spec and a Host resource becomes a state, and its extra attributes.
//
// Kinds today: one typed type per exact Form of the catalog (form-resource-type.ts) and the
// generic `takoform_resource` (generic-resource.ts). What a kind deliberately does not have
// is a named trait, so the difference is written down where it is decided.
import type { FormRef, JsonObject, ResourceResponse } from '../../host-client/index.js';
import type { AttributePath, Diagnostic } from '../diag/diagnostics.js';
import type { ResourceContext } from '../diag/host-diagnostics.js';
import type { TfSchema } from '../schema/tf-schema.js';
import type { TfType } from '../values/tf-type.js';
import type { TfObject, TfValue } from '../values/tf-value.js';
import type { ResourcePrivate } from './lifecycle/resource-private.js';
import type { StateShape } from './state-upgrade.js';

export interface KindTraits {
  /** Resource identity (protocol 6.9, `import { identity = {...} }`): only where the type pins the Form. */
  readonly identity: boolean;
  /** How the desired spec is written: one attribute per property, or one dynamic `spec`. */
  readonly specShape: 'attributes' | 'dynamic';
}

export interface ImportTarget {
  readonly formRef: FormRef;
  readonly space: string;
  readonly name: string;
}

export interface ResourceKind {
  readonly typeName: string;
  readonly schema: TfSchema;
  /** The type every config, plan and state value of this kind is encoded with. */
  readonly valueType: TfType;
  readonly traits: KindTraits;
  /** What an upgrade of a stored state of this type needs to know (state-upgrade.ts). */
  readonly stateShape: StateShape;

  /** The exact Form of a value whose Form attributes are known (see `specKnown`). */
  formRef(value: TfObject): FormRef;
  /** Offline checks of a configuration (the Form's schema, grammars), no Host request. */
  validate(config: TfObject): Promise<Diagnostic[]>;

  /** True when everything the desired spec and the Form are made of is known. */
  specKnown(config: TfObject): boolean;
  /**
   * The desired spec as the configuration means it: unset properties are left to the Host's
   * defaults. Throws SpecConversionError with the attribute path of a value that cannot be sent.
   */
  desiredSpec(config: TfObject): JsonObject;
  /** The spec with the Form's defaults applied locally, where the kind knows the Form's schema. */
  withDefaults(spec: JsonObject, formRef: FormRef): JsonObject;
  /** The Host's spec as the state records it. */
  hostSpecOf(state: TfObject): JsonObject;
  /** The spec the plan promised the Host will store, when the plan knew it. */
  plannedHostSpec(planned: TfObject): JsonObject | undefined;

  /** Attributes besides name and space whose change forces a new resource. */
  replacePaths(prior: TfObject, planned: TfObject): AttributePath[];
  /**
   * True when the configuration still means what the prior state records, so the plan is
   * "no changes" without asking the Host (`local` is the desired spec with local defaults).
   */
  unchanged(prior: TfObject, config: TfObject, local: JsonObject, priorPrivate: ResourcePrivate): boolean;
  /**
   * Fills the planned value from the spec the Host will store (`'unknown'`: not known before
   * apply), plus the kind's own fixed attributes. `source` says whether the Host prepared
   * the spec or it was materialized locally: a kind that cannot materialize exactly (no
   * schema) must then plan what the Host fills as unknown, or core refuses the apply result.
   */
  completePlanned(planned: Record<string, TfValue>, spec: JsonObject | 'unknown', config: TfObject, source: 'host' | 'local'): void;
  /** Kind attributes a change makes unknown (besides the envelope's), e.g. typed outputs. */
  readonly computedOnChange: readonly string[];
  /** The value of a kind attribute in a state recorded while an Operation is pending. */
  pendingValue(attribute: string, prior: TfObject | null, planned: TfObject): TfValue;

  /** The state for a Host resource; `carry` is the planned or current value (configuration-only attributes). */
  stateFromResource(resource: ResourceResponse, carry: TfObject | null): TfObject;
  /** The prior state with the planned configuration-only attributes (`timeouts`, …), when nothing reaches the Host. */
  stateFromPrior(prior: TfObject, planned: TfObject): TfObject;
  /** Private data to keep with a state just written from the Host. */
  privateFor(state: TfObject): ResourcePrivate;

  /** Reads an import ID into the address it names (with the provider's default space). */
  parseImportId(id: string, defaultSpace: string | undefined): ImportTarget | Diagnostic;
  /** The import ID of an address (what `parseImportId` reads back). */
  importId(formRef: FormRef, space: string, name: string): string;

  /** What diagnostics need to map Host pointers to attributes. */
  diagnosticFields(): Pick<ResourceContext, 'fields' | 'specAttribute'>;
  /** True when a Host pointer into the spec lands on a reference to another resource. */
  refersToRelation(pointer: string | undefined): boolean;
}
