// One Terraform resource type per exact FormRef: its schema (envelope attributes plus the
// mapped desired properties) and the conversions between Host resources and state values.
import { canonicalJson } from '../../common/digest.js';
import type { Condition, JsonObject, ResourceResponse } from '../../host-client/wire-types.js';
import type { CatalogForm } from '../catalog/catalog-file.js';
import { computedAttribute, fieldAttribute, fromSpec, mapDesiredSchema, mapOutputSchema, type FieldMapping } from '../schema/form-mapping.js';
import { topLevelAttributeName } from '../schema/names.js';
import { impliedType, type TfAttribute, type TfSchema } from '../schema/tf-schema.js';
import { ConfigValidator } from '../schema/config-validation.js';
import { TIMEOUTS_BLOCK } from './timeouts.js';
import { T, type TfType } from '../values/tf-type.js';
import { objectValue, type TfObject, type TfValue } from '../values/tf-value.js';

export const STATE_SCHEMA_VERSION = 0;

const computedString = (name: string, description: string): TfAttribute => ({ name, type: T.string, computed: true, description });

export const CONDITION_TYPE = T.object({
  type: T.string,
  status: T.string,
  reason: T.string,
  message: T.string,
  host_reason: T.string,
  last_transition_time: T.string,
});

export class FormResourceType {
  readonly typeName: string;
  readonly fields: readonly FieldMapping[];
  readonly schema: TfSchema;
  readonly valueType: TfType;
  /** Attributes whose change forces a new resource (besides name and space). */
  readonly replaceAttributes: ReadonlySet<string>;
  /** Typed outputs, when the catalog carries the Form's outputSchema. */
  readonly outputFields: readonly FieldMapping[] | undefined;
  /** Offline JSON Schema checks of configurations (compiled on first use). */
  readonly validator: ConfigValidator;

  constructor(readonly form: CatalogForm) {
    this.typeName = form.typeName;
    this.fields = mapDesiredSchema(form.desiredSchema);
    this.validator = new ConfigValidator(form.typeName, form.desiredSchema, this.fields);
    this.outputFields = form.outputSchema ? mapOutputSchema(form.outputSchema) : undefined;
    const canUpdate = form.operations.length === 0 || form.operations.includes('update');
    const immutable = new Set(
      form.immutableFields.map((pointer) => pointer.split('/')[1]).filter((p): p is string => !!p).map((p) => topLevelAttributeName(p.replace(/~1/g, '/').replace(/~0/g, '~'))),
    );
    this.replaceAttributes = new Set(this.fields.filter((f) => !canUpdate || immutable.has(f.attribute)).map((f) => f.attribute));
    const ref = form.formRef;
    this.schema = {
      version: STATE_SCHEMA_VERSION,
      block: {
        description: `${form.title}. Form \`${ref.apiVersion}/${ref.kind}\` version \`${ref.definitionVersion}\` (\`${ref.schemaDigest}\`).${form.description ? `\n\n${form.description}` : ''}`,
        attributes: [
          computedString('id', 'State key: `space/apiVersion/kind/uid` of the incarnation this state tracks.'),
          { name: 'name', type: T.string, required: true, description: 'Resource name (`metadata.name`), a DNS label. Changing it creates a new resource.' },
          { name: 'space', type: T.string, optional: true, computed: true, description: 'Space of the resource; defaults to the provider `space`. Changing it creates a new resource.' },
          computedString('uid', 'Host-issued identity of this incarnation; a re-created resource gets a new uid.'),
          computedString('generation', 'Desired-state generation; moves only when the materialized spec changes.'),
          computedString('revision', 'Representation revision; moves on every change, including status.'),
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
          { name: 'conditions', type: T.list(CONDITION_TYPE), computed: true, description: 'Status conditions reported by the Host.' },
          { name: 'ready', type: T.bool, computed: true, description: 'True when the Ready condition is True.' },
          computedString('outputs_json', 'Canonical JSON of the Host outputs (`status.outputs`), `{}` when the Form has none.'),
          computedString('pending_operation', 'Id of a Host Operation that accepted a change whose end was not seen yet; the next refresh follows it. Null otherwise.'),
          ...(this.outputFields
            ? [{ name: 'outputs', computed: true, description: 'Host outputs (`status.outputs`), typed from the Form\'s outputSchema.', nested: { nesting: 'SINGLE' as const, attributes: this.outputFields.map(computedAttribute) } }]
            : []),
          ...this.fields.map(fieldAttribute),
        ],
        blocks: [TIMEOUTS_BLOCK],
      },
    };
    this.valueType = impliedType(this.schema.block);
  }

  /** The state object for a Host resource. */
  stateFromResource(resource: ResourceResponse): TfObject {
    const m = resource.metadata;
    const ref = resource.form.formRef;
    const ready = resource.status.conditions.find((c) => c.type === 'Ready');
    return objectValue([
      ['id', stateId(m.space, ref.apiVersion, ref.kind, m.uid)],
      ['name', m.name],
      ['space', m.space],
      ['uid', m.uid],
      ['generation', m.generation],
      ['revision', m.revision],
      ['form_ref', objectValue([['api_version', ref.apiVersion], ['kind', ref.kind], ['definition_version', ref.definitionVersion], ['schema_digest', ref.schemaDigest]])],
      ['conditions', conditionValues(resource.status.conditions)],
      ['ready', ready?.status === 'True'],
      ['outputs_json', canonicalJson(resource.status.outputs ?? {})],
      ['pending_operation', null],
      ...(this.outputFields ? [['outputs', resource.status.outputs ? objectValue(Object.entries(fromSpec(this.outputFields, resource.status.outputs))) : null] as const] : []),
      ...Object.entries(this.desiredValues(resource.spec)),
    ]);
  }

  desiredValues(spec: JsonObject): Record<string, TfValue> {
    return fromSpec(this.fields, spec);
  }

  formRefValue(): TfObject {
    const ref = this.form.formRef;
    return objectValue([['api_version', ref.apiVersion], ['kind', ref.kind], ['definition_version', ref.definitionVersion], ['schema_digest', ref.schemaDigest]]);
  }
}

export function conditionValues(conditions: readonly Condition[]): TfObject[] {
  return conditions.map((c) =>
    objectValue([
      ['type', c.type],
      ['status', c.status],
      ['reason', c.reason],
      ['message', c.message ?? null],
      ['host_reason', c.hostReason ?? null],
      ['last_transition_time', c.lastTransitionTime],
    ]),
  );
}

export function stateId(space: string, apiVersion: string, kind: string, uid: string): string {
  return `${space}/${apiVersion}/${kind}/${uid}`;
}
