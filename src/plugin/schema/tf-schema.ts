// Terraform schemas as plain data (what GetProviderSchema returns), the value type they
// imply (what every DynamicValue of that resource is encoded with), and the conversion to
// the protocol message (grpc/convert.ts). Form data uses nested *attributes* only (they can be
// optional+computed, which is how Host-materialized defaults reach the plan); the one nested
// block is the conventional `timeouts { ... }`.
import { T, type TfType } from '../values/tf-type.js';

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
