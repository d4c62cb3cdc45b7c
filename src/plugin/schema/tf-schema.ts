// Terraform schemas as plain data (what GetProviderSchema returns), the value type they
// imply (what every DynamicValue of that resource is encoded with), and the conversion to
// the protocol message. Form data uses nested *attributes* only (they can be
// optional+computed, which is how Host-materialized defaults reach the plan); the one nested
// block is the conventional `timeouts { ... }`.
import type { Schema } from '../generated/types/tfplugin6/Schema.js';
import type { _tfplugin6_Schema_Attribute as ProtoAttribute, _tfplugin6_Schema_Object as ProtoObject } from '../generated/types/tfplugin6/Schema.js';
import { T, typeToJson, type TfType } from '../values/tf-type.js';

export type Nesting = 'SINGLE' | 'LIST' | 'SET' | 'MAP';

export interface TfAttribute {
  readonly name: string;
  /** Exactly one of `type` and `nested`. */
  readonly type?: TfType;
  readonly nested?: { readonly nesting: Nesting; readonly attributes: readonly TfAttribute[] };
  readonly description?: string;
  readonly required?: boolean;
  readonly optional?: boolean;
  readonly computed?: boolean;
  readonly sensitive?: boolean;
}

export interface TfNestedBlock {
  readonly typeName: string;
  readonly nesting: 'SINGLE';
  readonly block: TfBlock;
}

export interface TfBlock {
  readonly attributes: readonly TfAttribute[];
  readonly blocks?: readonly TfNestedBlock[];
  readonly description?: string;
}

export interface TfSchema {
  readonly version: number;
  readonly block: TfBlock;
}

export function attributeType(attr: TfAttribute): TfType {
  if (attr.type) return attr.type;
  if (!attr.nested) throw new Error(`attribute ${attr.name} has neither a type nor nested attributes`);
  const object = objectType(attr.nested.attributes);
  switch (attr.nested.nesting) {
    case 'SINGLE':
      return object;
    case 'LIST':
      return T.list(object);
    case 'SET':
      return T.set(object);
    case 'MAP':
      return T.map(object);
  }
}

export function objectType(attributes: readonly TfAttribute[]): TfType {
  const out: Record<string, TfType> = {};
  for (const a of attributes) out[a.name] = attributeType(a);
  return T.object(out);
}

/** The type every state, plan and config value of this schema is encoded with. */
export function impliedType(block: TfBlock): TfType {
  const out: Record<string, TfType> = {};
  for (const a of block.attributes) out[a.name] = attributeType(a);
  for (const b of block.blocks ?? []) out[b.typeName] = impliedType(b.block);
  return T.object(out);
}

export function toProtoSchema(schema: TfSchema): Schema {
  return { version: String(schema.version), block: toProtoBlock(schema.block, schema.version) };
}

function toProtoBlock(block: TfBlock, version: number): NonNullable<Schema['block']> {
  return {
    version: String(version),
    attributes: block.attributes.map(toProtoAttribute),
    block_types: (block.blocks ?? []).map((b) => ({ type_name: b.typeName, nesting: b.nesting, block: toProtoBlock(b.block, version) })),
    description: block.description ?? '',
    description_kind: 'MARKDOWN',
  };
}

function toProtoAttribute(attr: TfAttribute): ProtoAttribute {
  const base: ProtoAttribute = {
    name: attr.name,
    description: attr.description ?? '',
    description_kind: 'MARKDOWN',
    required: !!attr.required,
    optional: !!attr.optional,
    computed: !!attr.computed,
    sensitive: !!attr.sensitive,
  };
  if (attr.nested) {
    const nested: ProtoObject = { attributes: attr.nested.attributes.map(toProtoAttribute), nesting: attr.nested.nesting };
    return { ...base, nested_type: nested };
  }
  return { ...base, type: Buffer.from(JSON.stringify(typeToJson(attr.type!))) };
}
