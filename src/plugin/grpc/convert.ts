// The one place that converts between tfplugin6 messages and the provider's own types:
// diagnostics and attribute paths, schemas, requires-replace paths, private data and
// resource identity. Handlers call these and nothing below them sees a protocol type
// (the split of terraform-plugin-go's tfprotov6 and its toproto/fromproto packages).
import type { AttributePath as ProtoAttributePath } from '../generated/types/tfplugin6/AttributePath.js';
import type { Diagnostic as ProtoDiagnostic } from '../generated/types/tfplugin6/Diagnostic.js';
import type { DynamicValue__Output } from '../generated/types/tfplugin6/DynamicValue.js';
import type { Schema, _tfplugin6_Schema_Attribute as ProtoAttribute, _tfplugin6_Schema_Object as ProtoObject } from '../generated/types/tfplugin6/Schema.js';
import { pathForCore, type AttributePath, type Diagnostic } from '../diag/diagnostics.js';
import { TIMEOUTS_BLOCK } from '../resource/timeouts.js';

/** The blocks (not attributes) of our resource schemas, where core resolves paths step by step. */
const BLOCK_NAMES: ReadonlySet<string> = new Set([TIMEOUTS_BLOCK.typeName]);
import { decodeResourcePrivate, encodeResourcePrivate, type ResourcePrivate } from '../resource/lifecycle/resource-private.js';
import type { TfAttribute, TfBlock, TfSchema } from '../schema/tf-schema.js';
import { typeToJson, type TfType } from '../values/tf-type.js';
import type { TfValue } from '../values/tf-value.js';
import { decodeObject, encodeDynamic } from './dynamic-value.js';

// ---------- diagnostics ----------

export function toProtoPath(path: AttributePath): ProtoAttributePath {
  return {
    steps: path.map((step) =>
      typeof step === 'string' ? { attribute_name: step } : typeof step === 'number' ? { element_key_int: String(step) } : { element_key_string: step.key },
    ),
  };
}

export function toProtoDiagnostics(diags: readonly Diagnostic[]): ProtoDiagnostic[] {
  return diags.map((d) => ({
    severity: d.severity === 'error' ? 'ERROR' : 'WARNING',
    summary: toValidText(d.summary),
    detail: toValidText(d.detail),
    ...(d.path && d.path.length ? { attribute: toProtoPath(pathForCore(d.path, BLOCK_NAMES)) } : {}),
  }));
}

/** Protobuf strings must be valid UTF-8; replace lone surrogates rather than fail the RPC. */
function toValidText(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/** PlanResourceChange.requires_replace: one attribute path per attribute that forces a new object. */
export function toProtoPaths(paths: readonly AttributePath[]): ProtoAttributePath[] {
  return paths.map(toProtoPath);
}

// ---------- schemas ----------

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

// ---------- private data ----------

export function privateFromProto(bytes: Uint8Array | undefined | null): ResourcePrivate {
  return decodeResourcePrivate(bytes ?? undefined);
}

export function privateToProto(p: ResourcePrivate): Buffer {
  return encodeResourcePrivate(p);
}

// ---------- identity ----------

export function identityToProto(identity: TfValue, type: TfType): { identity_data: ReturnType<typeof encodeDynamic> } {
  return { identity_data: encodeDynamic(identity, type) };
}

/** The identity an import names, or undefined when the import gave an ID string instead. */
export function identityFromProto(
  identity: { identity_data?: DynamicValue__Output | null } | null | undefined,
  type: TfType,
): ReturnType<typeof decodeObject> | undefined {
  const data = identity?.identity_data;
  if (!data || (!data.msgpack?.length && !data.json?.length)) return undefined;
  return decodeObject(data, type);
}
