// The typed kind: one Terraform resource type per exact FormRef of the catalog. Its schema is
// the envelope plus the Form's desired properties as attributes (and typed outputs when the
// catalog has the Form's outputSchema); its state mirrors the Host's spec attribute by
// attribute, so drift shows as a difference of those attributes.
import { pointerTokens } from '../../common/json-pointer.js';
import { canonicalJson } from '../../common/digest.js';
import { materializeDefaults } from '../../common/json-schema-defaults.js';
import type { FormRef, JsonObject, ResourceResponse } from '../../host-client/index.js';
import type { CatalogForm } from '../catalog/catalog-file.js';
import { errorDiag, hasError, hclPath, type AttributePath, type Diagnostic } from '../diag/diagnostics.js';
import { pointerToPath } from '../diag/host-diagnostics.js';
import { ConfigValidator } from '../schema/config-validation.js';
import {
  computedAttribute,
  fieldAttribute,
  fromSpec,
  keepDynamicValues,
  mapDesiredSchema,
  mapOutputSchema,
  toSpec,
  type FieldMapping,
  type ValueMapping,
} from '../schema/form-mapping.js';
import { snakeCase, topLevelAttributeName } from '../schema/names.js';
import { checkSpecConstraints } from '../schema/spec-constraints.js';
import { impliedType, type TfSchema } from '../schema/tf-schema.js';
import { T, type TfType } from '../values/tf-type.js';
import { isUnknown, isWhollyKnown, objectValue, UNKNOWN, type TfObject, type TfValue } from '../values/tf-value.js';
import { addressDiagnostics } from './address-validation.js';
import { conditionValues, CONDITION_TYPE, ENVELOPE_ATTRIBUTES, envelopeValues, stateId } from './envelope.js';
import { sameValue, withTimeouts } from './lifecycle/common.js';
import type { ResourcePrivate } from './lifecycle/resource-private.js';
import type { ImportTarget, KindTraits, ResourceKind } from './resource-kind.js';
import { RESOURCE_STATE_VERSION, type StateShape } from './state-upgrade.js';
import { invalidDuration, TIMEOUTS_BLOCK } from './timeouts.js';
import { resourceNameProblem, spaceIdProblem } from '../../common/grammar.js';

export { CONDITION_TYPE, conditionValues, stateId };

const TYPED_TRAITS: KindTraits = { identity: true, specShape: 'attributes' };

export class FormResourceType implements ResourceKind {
  readonly typeName: string;
  readonly fields: readonly FieldMapping[];
  readonly schema: TfSchema;
  readonly valueType: TfType;
  readonly traits = TYPED_TRAITS;
  /** Attributes whose change forces a new resource (besides name and space). */
  readonly replaceAttributes: ReadonlySet<string>;
  /** Typed outputs, when the catalog carries the Form's outputSchema. */
  readonly outputFields: readonly FieldMapping[] | undefined;
  /** Offline JSON Schema checks of configurations (compiled on first use). */
  readonly validator: ConfigValidator;
  readonly computedOnChange: readonly string[];
  readonly stateShape: StateShape;

  constructor(readonly form: CatalogForm) {
    this.typeName = form.typeName;
    this.fields = mapDesiredSchema(form.desiredSchema);
    this.validator = new ConfigValidator(form.typeName, form.desiredSchema, this.fields);
    this.outputFields = form.outputSchema ? mapOutputSchema(form.outputSchema) : undefined;
    this.computedOnChange = this.outputFields ? ['outputs'] : [];
    this.stateShape = { outputsProperty: this.fields.some((f) => snakeCase(f.property) === 'outputs'), typedOutputs: this.outputFields !== undefined };
    const canUpdate = form.operations.length === 0 || form.operations.includes('update');
    const immutable = new Set(
      form.immutableFields
        .map((pointer) => pointerTokens(pointer)?.[0])
        .filter((p): p is string => !!p)
        .map(topLevelAttributeName),
    );
    this.replaceAttributes = new Set(this.fields.filter((f) => !canUpdate || immutable.has(f.attribute)).map((f) => f.attribute));
    const ref = form.formRef;
    const computedString = (name: string, description: string) => ({ name, type: T.string, computed: true, description });
    this.schema = {
      version: RESOURCE_STATE_VERSION,
      block: {
        description: `${form.title}. Form \`${ref.apiVersion}/${ref.kind}\` version \`${ref.definitionVersion}\` (\`${ref.schemaDigest}\`).${form.description ? `\n\n${form.description}` : ''}`,
        attributes: [
          ENVELOPE_ATTRIBUTES.id,
          ENVELOPE_ATTRIBUTES.name,
          ENVELOPE_ATTRIBUTES.space,
          ...ENVELOPE_ATTRIBUTES.status,
          {
            name: 'form_ref',
            computed: true,
            description: 'The exact FormRef the resource is recorded under.',
            nested: {
              nesting: 'SINGLE',
              attributes: [
                computedString('api_version', 'Form group.'),
                computedString('kind', 'Form kind.'),
                computedString('definition_version', 'Form Definition version.'),
                computedString('schema_digest', 'RFC 8785 digest of the Form Definition.'),
              ],
            },
          },
          ...ENVELOPE_ATTRIBUTES.observed,
          ...(this.outputFields
            ? [
                {
                  name: 'outputs',
                  computed: true,
                  description: "Host outputs (`status.outputs`), typed from the Form's outputSchema.",
                  nested: { nesting: 'SINGLE' as const, attributes: this.outputFields.map(computedAttribute) },
                },
              ]
            : []),
          ...this.fields.map(fieldAttribute),
        ],
        blocks: [TIMEOUTS_BLOCK],
      },
    };
    this.valueType = impliedType(this.schema.block);
  }

  formRef(): FormRef {
    return this.form.formRef;
  }

  async validate(config: TfObject): Promise<Diagnostic[]> {
    const found = [...addressDiagnostics(this.typeName, config), ...(await this.validator.validate(config))];
    const bad = invalidDuration(config.timeouts);
    if (bad)
      found.push(
        errorDiag('Invalid duration', `${JSON.stringify(bad.text)} is not a duration; use Go syntax such as "30s", "10m" or "1h30m".`, [
          'timeouts',
          bad.attribute,
        ]),
      );
    if (!hasError(found)) found.push(...this.constraintDiagnostics(config));
    return found;
  }

  /** The Form's own-spec constraints (orderedPair, sum, uniqueBy), when the catalog has them. */
  private constraintDiagnostics(config: TfObject): Diagnostic[] {
    const constraints = this.form.constraints;
    if (!constraints || !this.specKnown(config)) return [];
    let spec: JsonObject;
    try {
      spec = this.withDefaults(this.desiredSpec(config));
    } catch {
      return []; // the conversion error is reported by plan with its path
    }
    return checkSpecConstraints(spec, constraints).map((p) => {
      const path = pointerToPath(p.pointer, this.fields);
      return errorDiag(
        'Value not allowed by the Form',
        `${this.typeName}: ${path ? hclPath(path) : p.pointer} ${p.message} (${p.rule}, a constraint of the Form). Checked offline from the catalog.`,
        path,
      );
    });
  }

  specKnown(config: TfObject): boolean {
    return this.fields.every((f) => isWhollyKnown(config[f.attribute] ?? null));
  }

  desiredSpec(config: TfObject): JsonObject {
    // Unset properties are left for the Host to default, so removing a line resets it to the
    // default, as users expect (core's proposed value would keep the old one).
    const configured: Record<string, TfValue> = {};
    for (const f of this.fields) configured[f.attribute] = config[f.attribute] ?? null;
    return toSpec(this.fields, configured);
  }

  withDefaults(spec: JsonObject): JsonObject {
    return materializeDefaults(this.form.desiredSchema, spec);
  }

  hostSpecOf(state: TfObject): JsonObject {
    return toSpec(this.fields, state);
  }

  plannedHostSpec(planned: TfObject): JsonObject | undefined {
    return this.specKnown(planned) ? toSpec(this.fields, planned) : undefined;
  }

  replacePaths(prior: TfObject, planned: TfObject): AttributePath[] {
    return [...this.replaceAttributes].filter((a) => !sameValue(prior[a] ?? null, planned[a] ?? null)).map((a) => [a]);
  }

  unchanged(prior: TfObject, _config: TfObject, local: JsonObject): boolean {
    return canonicalJson(local) === canonicalJson(this.hostSpecOf(prior));
  }

  completePlanned(planned: Record<string, TfValue>, spec: JsonObject | 'unknown', config: TfObject): void {
    planned.form_ref = this.formRefValue();
    if (spec === 'unknown') {
      // Values decided later in this run: what the Host fills is not known before apply.
      for (const f of this.fields) if (f.hostFilled && (config[f.attribute] ?? null) === null) planned[f.attribute] = UNKNOWN;
      return;
    }
    // What the Host will store, with free-form (dynamic) values kept as written where they
    // mean the same JSON (core requires planned == configured for those).
    Object.assign(planned, keepDynamicValues(this.fields, this.desiredValues(spec), config));
  }

  pendingValue(attribute: string, prior: TfObject | null): TfValue {
    const v = prior?.[attribute];
    return v === undefined || isUnknown(v) ? null : v; // `outputs`
  }

  stateFromResource(resource: ResourceResponse, carry: TfObject | null): TfObject {
    const envelope = envelopeValues(resource);
    const ref = resource.form.formRef;
    return objectValue([
      ['id', envelope.id],
      ['name', envelope.name],
      ['space', envelope.space],
      ...envelope.status,
      [
        'form_ref',
        objectValue([
          ['api_version', ref.apiVersion],
          ['kind', ref.kind],
          ['definition_version', ref.definitionVersion],
          ['schema_digest', ref.schemaDigest],
        ]),
      ],
      ...envelope.observed,
      ...(this.outputFields
        ? [['outputs', resource.status.outputs ? objectValue(Object.entries(fromSpec(this.outputFields, resource.status.outputs))) : null] as const]
        : []),
      ...Object.entries(keepDynamicValues(this.fields, this.desiredValues(resource.spec), carry)),
    ]);
  }

  stateFromPrior(prior: TfObject, planned: TfObject): TfObject {
    return withTimeouts(objectValue(Object.entries(keepDynamicValues(this.fields, { ...prior }, planned))), planned.timeouts);
  }

  privateFor(): ResourcePrivate {
    return {}; // the state mirrors the Host's spec: drift needs no reference
  }

  parseImportId(id: string, defaultSpace: string | undefined): ImportTarget | Diagnostic {
    const slash = id.lastIndexOf('/');
    const space = slash >= 0 ? id.slice(0, slash) : defaultSpace;
    const name = slash >= 0 ? id.slice(slash + 1) : id;
    if (!space || !name || resourceNameProblem(name) || spaceIdProblem(space)) {
      return errorDiag(
        'Invalid import ID',
        `Use "SPACE/NAME" (or "NAME" with the provider space set), where NAME is a Host resource name; got ${JSON.stringify(id)}.`,
      );
    }
    return { formRef: this.form.formRef, space, name };
  }

  importId(_formRef: FormRef, space: string, name: string): string {
    return `${space}/${name}`;
  }

  diagnosticFields() {
    return { fields: this.fields };
  }

  /** True when a Host pointer (/spec/target, /spec/members/0) lands on a reference attribute. */
  refersToRelation(pointer: string | undefined): boolean {
    if (!pointer) return false;
    const path = pointerToPath(pointer, this.fields);
    if (!path || typeof path[0] !== 'string') return false;
    let fields = this.fields;
    let mapping: ValueMapping | undefined;
    for (const step of path) {
      if (typeof step === 'string') mapping = fields.find((f) => f.attribute === step)?.mapping;
      else if (mapping && mapping.kind === 'list') mapping = mapping.element;
      if (!mapping) return false;
      if (mapping.kind === 'object') fields = mapping.fields;
    }
    return mapping?.kind === 'reference' || (mapping?.kind === 'list' && mapping.element.kind === 'reference');
  }

  desiredValues(spec: JsonObject): Record<string, TfValue> {
    return fromSpec(this.fields, spec);
  }

  formRefValue(): TfObject {
    const ref = this.form.formRef;
    return objectValue([
      ['api_version', ref.apiVersion],
      ['kind', ref.kind],
      ['definition_version', ref.definitionVersion],
      ['schema_digest', ref.schemaDigest],
    ]);
  }
}
