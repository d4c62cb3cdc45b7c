// Data sources:
//   takoform_forms     the Forms the Host offers in a space, with their support
//   takoform_resource  an existing resource read by exact FormRef and name: uid, counters,
//                      readiness, conditions, outputs and the Host's spec as JSON
import { canonicalJson } from '../../common/digest.js';
import type { HostClient } from '../../host-client/index.js';
import { errorDiag, type Diagnostic } from '../diag/diagnostics.js';
import { hostFailureDiagnostic } from '../diag/host-diagnostics.js';
import type { TfSchema } from '../schema/tf-schema.js';
import { impliedType } from '../schema/tf-schema.js';
import { T, type TfType } from '../values/tf-type.js';
import { objectValue, type TfObject } from '../values/tf-value.js';
import { CONDITION_TYPE, conditionValues } from '../resource/form-resource-type.js';

export interface DataSource {
  readonly typeName: string;
  readonly schema: TfSchema;
  readonly valueType: TfType;
  read(config: TfObject, host: DataHost): Promise<{ state: TfObject | null; diagnostics: Diagnostic[] }>;
}

export interface DataHost {
  readonly client: HostClient | undefined;
  readonly defaultSpace: string | undefined;
  /** Catalog type name of an exact FormRef, when the catalog has it. */
  typeNameOf(ref: { apiVersion: string; kind: string; definitionVersion: string; schemaDigest: string }): string | undefined;
}

const FORM_ENTRY = T.object({
  api_version: T.string,
  kind: T.string,
  definition_version: T.string,
  schema_digest: T.string,
  package_digest: T.string,
  type_name: T.string,
  operations: T.list(T.string),
  installed: T.bool,
  executable: T.bool,
  activated: T.bool,
  available: T.bool,
});

const formsSchema: TfSchema = {
  version: 0,
  block: {
    description: 'The Forms the Host offers in a space, with what it supports for each.',
    attributes: [
      { name: 'space', type: T.string, optional: true, computed: true, description: 'Space to ask about; defaults to the provider `space`.' },
      {
        name: 'forms',
        type: T.list(FORM_ENTRY),
        computed: true,
        description: 'One entry per exact FormRef, sorted; `type_name` is the resource type in this catalog, or null.',
      },
    ],
  },
};

const resourceSchema: TfSchema = {
  version: 0,
  block: {
    description: 'Reads an existing Host resource by exact FormRef and name.',
    attributes: [
      { name: 'api_version', type: T.string, required: true, description: 'Form group.' },
      { name: 'kind', type: T.string, required: true, description: 'Form kind.' },
      { name: 'definition_version', type: T.string, required: true, description: 'Form Definition version.' },
      { name: 'schema_digest', type: T.string, required: true, description: 'Form Definition digest.' },
      { name: 'name', type: T.string, required: true, description: 'Resource name.' },
      { name: 'space', type: T.string, optional: true, computed: true, description: 'Space; defaults to the provider `space`.' },
      { name: 'uid', type: T.string, computed: true, description: 'Incarnation uid.' },
      { name: 'generation', type: T.string, computed: true, description: 'Desired-state generation.' },
      { name: 'revision', type: T.string, computed: true, description: 'Representation revision.' },
      { name: 'ready', type: T.bool, computed: true, description: 'True when the Ready condition is True.' },
      { name: 'conditions', type: T.list(CONDITION_TYPE), computed: true, description: 'Status conditions.' },
      { name: 'outputs_json', type: T.string, computed: true, description: 'Canonical JSON of `status.outputs` (`{}` when none).' },
      { name: 'spec_json', type: T.string, computed: true, description: 'Canonical JSON of the materialized desired spec.' },
    ],
  },
};

export const DATA_SOURCES: readonly DataSource[] = [
  {
    typeName: 'takoform_forms',
    schema: formsSchema,
    valueType: impliedType(formsSchema.block),
    async read(config, host) {
      const space = typeof config.space === 'string' ? config.space : host.defaultSpace;
      if (!host.client)
        return { state: null, diagnostics: [errorDiag('Provider not configured', 'Reading takoform_forms needs the provider `endpoint` and `token`.')] };
      if (!space) return { state: null, diagnostics: [errorDiag('Missing space', 'Set `space` here or in the provider configuration.', ['space'])] };
      try {
        const forms = await host.client.forms.list({ space });
        const entries = forms
          .map((f) =>
            objectValue([
              ['api_version', f.identity.formRef.apiVersion],
              ['kind', f.identity.formRef.kind],
              ['definition_version', f.identity.formRef.definitionVersion],
              ['schema_digest', f.identity.formRef.schemaDigest],
              ['package_digest', f.identity.packageDigest ?? null],
              ['type_name', host.typeNameOf(f.identity.formRef) ?? null],
              ['operations', [...f.operations].sort()],
              ['installed', f.installed],
              ['executable', f.executable],
              ['activated', f.activated],
              ['available', f.availableToPrincipal],
            ]),
          )
          .sort((a, b) => (canonicalJson(keyOf(a)) < canonicalJson(keyOf(b)) ? -1 : 1));
        return {
          state: objectValue([
            ['space', space],
            ['forms', entries],
          ]),
          diagnostics: [],
        };
      } catch (e) {
        return {
          state: null,
          diagnostics: [
            hostFailureDiagnostic('list Forms for', e, {
              typeName: 'data.takoform_forms',
              name: '-',
              space,
              formRef: { apiVersion: '-', kind: '-', definitionVersion: '-', schemaDigest: '-' },
            }),
          ],
        };
      }
    },
  },
  {
    typeName: 'takoform_resource',
    schema: resourceSchema,
    valueType: impliedType(resourceSchema.block),
    async read(config, host) {
      const formRef = {
        apiVersion: config.api_version as string,
        kind: config.kind as string,
        definitionVersion: config.definition_version as string,
        schemaDigest: config.schema_digest as string,
      };
      const name = config.name as string;
      const space = typeof config.space === 'string' ? config.space : host.defaultSpace;
      if (!host.client)
        return { state: null, diagnostics: [errorDiag('Provider not configured', 'Reading takoform_resource needs the provider `endpoint` and `token`.')] };
      if (!space) return { state: null, diagnostics: [errorDiag('Missing space', 'Set `space` here or in the provider configuration.', ['space'])] };
      const ctx = { typeName: 'data.takoform_resource', name, space, formRef };
      try {
        const r = await host.client.resources.read({ formRef, space, name });
        if (!r) {
          return {
            state: null,
            diagnostics: [
              errorDiag(
                'Resource not found',
                `The Host has no ${formRef.kind} "${name}" in space "${space}" under ${formRef.apiVersion}@${formRef.definitionVersion} (${formRef.schemaDigest}).`,
              ),
            ],
          };
        }
        const ready = r.status.conditions.find((c) => c.type === 'Ready');
        return {
          state: objectValue([
            ...Object.entries(config).filter(([k]) => ['api_version', 'kind', 'definition_version', 'schema_digest', 'name'].includes(k)),
            ['space', space],
            ['uid', r.metadata.uid],
            ['generation', r.metadata.generation],
            ['revision', r.metadata.revision],
            ['ready', ready?.status === 'True'],
            ['conditions', conditionValues(r.status.conditions)],
            ['outputs_json', canonicalJson(r.status.outputs ?? {})],
            ['spec_json', canonicalJson(r.spec)],
          ]),
          diagnostics: [],
        };
      } catch (e) {
        return { state: null, diagnostics: [hostFailureDiagnostic('read', e, ctx)] };
      }
    },
  },
];

function keyOf(entry: TfObject): unknown[] {
  return [entry.api_version, entry.kind, entry.definition_version, entry.schema_digest];
}
