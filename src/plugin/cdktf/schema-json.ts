// The provider's schemas in the shape `tofu providers schema -json` prints, built from our
// own definitions (no CLI needed): the input of CDKTF's binding generator.
import { ARTIFACT_SCHEMA, ARTIFACT_TYPE_NAME } from '../artifact/artifact-schema.js';
import type { Catalog } from '../catalog/catalog-file.js';
import { DATA_SOURCES } from '../data/data-sources.js';
import { PROVIDER_SOURCE } from '../install.js';
import { PROVIDER_SCHEMA } from '../provider/provider-config.js';
import { PROVIDER_VERSION } from '../provider/provider.js';
import { FormResourceType } from '../resource/form-resource-type.js';
import { GENERIC_SCHEMA, GENERIC_TYPE_NAME } from '../resource/generic-resource.js';
import type { TfAttribute, TfBlock, TfSchema } from '../schema/tf-schema.js';
import { typeToJson } from '../values/tf-type.js';

export function providerSchemaJson(catalog: Catalog): Record<string, unknown> {
  const resources: Record<string, unknown> = {};
  for (const form of catalog.forms) resources[form.typeName] = schemaJson(new FormResourceType(form).schema);
  resources[GENERIC_TYPE_NAME] = schemaJson(GENERIC_SCHEMA);
  resources[ARTIFACT_TYPE_NAME] = schemaJson(ARTIFACT_SCHEMA);
  return {
    format_version: '1.0',
    provider_schemas: {
      [PROVIDER_SOURCE]: {
        provider: schemaJson(PROVIDER_SCHEMA),
        resource_schemas: resources,
        data_source_schemas: Object.fromEntries(DATA_SOURCES.map((d) => [d.typeName, schemaJson(d.schema)])),
      },
    },
    provider_versions: { [PROVIDER_SOURCE]: PROVIDER_VERSION },
  };
}

function schemaJson(schema: TfSchema): Record<string, unknown> {
  return { version: schema.version, block: blockJson(schema.block) };
}

function blockJson(block: TfBlock): Record<string, unknown> {
  return {
    attributes: Object.fromEntries(block.attributes.map((a) => [a.name, attributeJson(a)])),
    ...(block.blocks?.length
      ? { block_types: Object.fromEntries(block.blocks.map((b) => [b.typeName, { nesting_mode: b.nesting.toLowerCase(), block: blockJson(b.block) }])) }
      : {}),
    ...(block.description ? { description: block.description, description_kind: 'markdown' } : {}),
  };
}

function attributeJson(a: TfAttribute): Record<string, unknown> {
  return {
    ...(a.nested
      ? {
          nested_type: {
            nesting_mode: a.nested.nesting.toLowerCase(),
            attributes: Object.fromEntries(a.nested.attributes.map((n) => [n.name, attributeJson(n)])),
          },
        }
      : { type: typeToJson(a.type!) }),
    ...(a.description ? { description: a.description, description_kind: 'markdown' } : {}),
    ...(a.required ? { required: true } : {}),
    ...(a.optional ? { optional: true } : {}),
    ...(a.computed ? { computed: true } : {}),
    ...(a.sensitive ? { sensitive: true } : {}),
  };
}
