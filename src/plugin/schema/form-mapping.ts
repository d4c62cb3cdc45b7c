// How a Form's desired JSON Schema (2020-12) becomes Terraform attributes, and how values
// move between the two worlds. Closed objects become nested attributes, typed maps become
// maps, arrays become lists (order must survive a round trip, so never sets), scalars map
// one to one, and anything this mapper cannot type precisely becomes `dynamic` rather than
// a failure. A Terraform list or map has ONE element type, so a collection whose elements
// may differ in type (free-form values, oneOf/anyOf, untyped, or anything holding those)
// becomes one `dynamic` value as a whole: a map(dynamic) would have core convert
// `{ PORT = 8080, DEBUG = true }` to strings without a word. A property with a `default` (or a `const`) is optional+computed: when the user
// leaves it out, the planned value comes from the Host's materialized prepare echo.
import type { JsonObject, JsonValue } from '../../host-client/wire-types.js';
import { TfNumber } from '../values/tf-number.js';
import { T, type TfType } from '../values/tf-type.js';
import { isObjectValue, objectValue, TfDynamic, Unknown, type TfValue } from '../values/tf-value.js';
import { attributeType, type TfAttribute } from './tf-schema.js';
import { snakeCase, topLevelAttributeName } from './names.js';

type JsonSchema = { readonly [key: string]: unknown };

export type ValueMapping =
  | { readonly kind: 'string' }
  | { readonly kind: 'bool' }
  | { readonly kind: 'number'; readonly integer: boolean }
  | { readonly kind: 'list'; readonly element: ValueMapping }
  | { readonly kind: 'map'; readonly element: ValueMapping }
  | { readonly kind: 'object'; readonly fields: readonly FieldMapping[] }
  /** A relation {apiVersion, kind, name} with constant group and kind: written as the target's name. */
  | { readonly kind: 'reference'; readonly targetGroup: string; readonly targetKind: string }
  | { readonly kind: 'dynamic' };

export interface FieldMapping {
  /** Terraform attribute name. */
  readonly attribute: string;
  /** JSON property name in the spec. */
  readonly property: string;
  readonly mapping: ValueMapping;
  readonly required: boolean;
  /** A Host default or const exists: optional+computed, planned from the prepare echo. */
  readonly hostFilled: boolean;
  readonly constValue?: JsonValue;
  readonly description?: string;
}

/**
 * The mappings made of each schema object, so that a launch maps a catalog Form once: the
 * catalog checks it for clashing names (formAttributeClashes) and its resource type is built
 * from the same mapping. The mappings are never changed after they are made.
 */
const desiredMappings = new WeakMap<JsonSchema, readonly FieldMapping[]>();
const outputMappings = new WeakMap<JsonSchema, readonly FieldMapping[]>();

function mapOnce(cache: WeakMap<JsonSchema, readonly FieldMapping[]>, schema: JsonSchema, nameOf: (property: string) => string): readonly FieldMapping[] {
  let fields = cache.get(schema);
  if (!fields) cache.set(schema, (fields = mapProperties(schema, nameOf)));
  return fields;
}

/** Maps the top level of a desired schema. Property order is kept (it is the doc order). */
export function mapDesiredSchema(schema: JsonSchema): readonly FieldMapping[] {
  return mapOnce(desiredMappings, schema, topLevelAttributeName);
}

function mapProperties(schema: JsonSchema, nameOf: (property: string) => string): FieldMapping[] {
  const properties = (isRecord(schema.properties) ? schema.properties : {}) as Record<string, JsonSchema>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  return Object.entries(properties).map(([property, sub]) => {
    const hasConst = 'const' in sub;
    const field: FieldMapping = {
      attribute: nameOf(property),
      property,
      mapping: mapValue(sub),
      required: required.includes(property) && !hasConst && !('default' in sub),
      hostFilled: 'default' in sub || hasConst,
      ...(hasConst ? { constValue: sub.const as JsonValue } : {}),
      ...(typeof sub.description === 'string' ? { description: sub.description } : describeConstraints(property, sub)),
    };
    return field;
  });
}

/** A description from the schema's own rules, for properties that carry none. */
function describeConstraints(property: string, schema: JsonSchema): { description?: string } {
  const parts: string[] = [];
  if (Array.isArray(schema.enum)) parts.push(`One of ${schema.enum.map((v) => `\`${JSON.stringify(v)}\``).join(', ')}.`);
  if ('const' in schema) parts.push(`Always \`${JSON.stringify(schema.const)}\` (filled in when left out).`);
  if ('default' in schema) parts.push(`Default \`${JSON.stringify(schema.default)}\`, filled in by the Host when left out.`);
  if (typeof schema.minimum === 'number' || typeof schema.maximum === 'number') parts.push(`Between ${schema.minimum ?? '-∞'} and ${schema.maximum ?? '∞'}.`);
  if (typeof schema.pattern === 'string') parts.push(`Matches \`${schema.pattern}\`.`);
  if (typeof schema.maxLength === 'number') parts.push(`At most ${schema.maxLength} characters.`);
  if (typeof schema.maxItems === 'number') parts.push(`At most ${schema.maxItems} items.`);
  if (schema.type === 'integer') parts.push('A whole number.');
  return parts.length ? { description: `\`${property}\` in the Form's spec. ${parts.join(' ')}` } : { description: `\`${property}\` in the Form's spec.` };
}

export function mapValue(schema: JsonSchema): ValueMapping {
  const reference = referenceTarget(schema);
  if (reference) return reference;
  const type = schema.type ?? (schema.const !== undefined ? jsonTypeOf(schema.const) : undefined) ?? enumType(schema.enum);
  switch (type) {
    case 'string':
      return { kind: 'string' };
    case 'boolean':
      return { kind: 'bool' };
    case 'integer':
      return { kind: 'number', integer: true };
    case 'number':
      return { kind: 'number', integer: false };
    case 'array': {
      if (!isRecord(schema.items)) return { kind: 'dynamic' };
      const element = mapValue(schema.items as JsonSchema);
      return containsDynamic(element) ? { kind: 'dynamic' } : { kind: 'list', element };
    }
    case 'object': {
      if (isRecord(schema.properties) && schema.additionalProperties === false) {
        return { kind: 'object', fields: mapProperties(schema, snakeCase) };
      }
      if (isRecord(schema.additionalProperties) && !isRecord(schema.properties)) {
        const element = mapValue(schema.additionalProperties as JsonSchema);
        return containsDynamic(element) ? { kind: 'dynamic' } : { kind: 'map', element };
      }
      return { kind: 'dynamic' };
    }
    default:
      return { kind: 'dynamic' };
  }
}

/**
 * Properties of one object that become the same attribute name (`retryLimit` and
 * `retry_limit`, or `outputs` and `specOutputs`), anywhere in the mapping, as sentences. A
 * Terraform schema holds one attribute per name, so such a Form cannot be a typed resource
 * type: core would keep one of the two and the other's values would be lost without a word.
 */
export function attributeNameClashes(fields: readonly FieldMapping[], path: readonly string[] = []): string[] {
  const found: string[] = [];
  const byName = new Map<string, string[]>();
  for (const f of fields) byName.set(f.attribute, [...(byName.get(f.attribute) ?? []), f.property]);
  for (const [attribute, properties] of byName) {
    if (properties.length < 2) continue;
    const within = path.length > 0 ? ` of \`${path.join('.')}\`` : '';
    const listed = properties.map((p) => `\`${p}\``);
    const names = listed.length === 2 ? `${listed[0]} and ${listed[1]}${within} both` : `${listed.slice(0, -1).join(', ')} and ${listed.at(-1)}${within} all`;
    found.push(`the properties ${names} become the attribute \`${attribute}\``);
  }
  const nested = (m: ValueMapping): readonly FieldMapping[] =>
    m.kind === 'object' ? m.fields : m.kind === 'list' || m.kind === 'map' ? nested(m.element) : [];
  for (const f of fields) found.push(...attributeNameClashes(nested(f.mapping), [...path, f.attribute]));
  return found;
}

/** The clashes of a Form's desired and output schemas (see attributeNameClashes); none for a Form that maps. */
export function formAttributeClashes(form: { readonly desiredSchema: JsonSchema; readonly outputSchema?: JsonSchema }): string[] {
  return [
    ...attributeNameClashes(mapDesiredSchema(form.desiredSchema)),
    ...(form.outputSchema ? attributeNameClashes(mapOutputSchema(form.outputSchema), ['outputs']) : []),
  ];
}

/** True when a value of this mapping can hold values of different types (a `dynamic` part). */
export function containsDynamic(m: ValueMapping): boolean {
  switch (m.kind) {
    case 'dynamic':
      return true;
    case 'list':
    case 'map':
      return containsDynamic(m.element);
    case 'object':
      return m.fields.some((f) => containsDynamic(f.mapping));
    default:
      return false;
  }
}

/**
 * Values of `dynamic` parts as the configuration (or state) already holds them, where they
 * mean the same JSON as the fresh ones. Core compares planned with configured values, and
 * applied with planned ones, by type as well as by value: `tomap({a = 1})` and `{ a = 1 }`
 * are the same JSON but not the same Terraform value, so the one core already has is kept.
 */
export function keepDynamicValues(
  fields: readonly FieldMapping[],
  fresh: Record<string, TfValue>,
  had: { readonly [attr: string]: TfValue } | null,
): Record<string, TfValue> {
  if (!had) return fresh;
  for (const f of fields) {
    const before = had[f.attribute];
    const now = fresh[f.attribute];
    if (before === undefined || before === null || now === undefined || now === null || before instanceof Unknown) continue;
    if (f.mapping.kind === 'dynamic') {
      if (sameJson(before, now)) fresh[f.attribute] = before;
    } else if (f.mapping.kind === 'object' && isObjectValue(before) && isObjectValue(now)) {
      fresh[f.attribute] = objectValue(Object.entries(keepDynamicValues(f.mapping.fields, { ...now }, before)));
    }
  }
  return fresh;
}

function sameJson(a: TfValue, b: TfValue): boolean {
  try {
    return JSON.stringify(canonicalOrder(dynamicToJson(a))) === JSON.stringify(canonicalOrder(dynamicToJson(b)));
  } catch {
    return false; // not known or not sendable: not the same
  }
}

function canonicalOrder(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(canonicalOrder);
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonicalOrder((v as JsonObject)[k]!)]),
    );
  return v;
}

/**
 * A reference (wire reference §7.3): a closed object whose members are exactly apiVersion,
 * kind and name, all required, with apiVersion and kind constant. The user writes only the
 * target's name, so `target = takoform_range_sequence.x.name` creates the dependency.
 */
function referenceTarget(schema: JsonSchema): ValueMapping | undefined {
  if (schema.type !== 'object' || schema.additionalProperties !== false || !isRecord(schema.properties)) return undefined;
  const props = schema.properties as Record<string, JsonSchema>;
  const keys = Object.keys(props).sort();
  const required = Array.isArray(schema.required) ? [...(schema.required as string[])].sort() : [];
  if (keys.join() !== 'apiVersion,kind,name' || required.join() !== 'apiVersion,kind,name') return undefined;
  const group = props.apiVersion?.const;
  const kind = props.kind?.const;
  return typeof group === 'string' && typeof kind === 'string' ? { kind: 'reference', targetGroup: group, targetKind: kind } : undefined;
}

function enumType(values: unknown): string | undefined {
  if (!Array.isArray(values) || values.length === 0) return undefined;
  const types = new Set(values.map(jsonTypeOf));
  return types.size === 1 ? [...types][0] : undefined;
}

function jsonTypeOf(v: unknown): string | undefined {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return undefined;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// ---------- Terraform attributes ----------

export function fieldAttribute(field: FieldMapping): TfAttribute {
  const flags = field.required ? { required: true } : field.hostFilled ? { optional: true, computed: true } : { optional: true };
  const m = field.mapping;
  const description =
    m.kind === 'reference'
      ? `Name of the ${m.targetKind} (\`${m.targetGroup}\`) this resource refers to, in the same space. Refer to the other resource's \`name\` attribute to order the two.`
      : (field.description ?? '');
  if (m.kind === 'object') return { name: field.attribute, nested: { nesting: 'SINGLE', attributes: m.fields.map(fieldAttribute) }, description, ...flags };
  if (m.kind === 'list' && m.element.kind === 'object') {
    return { name: field.attribute, nested: { nesting: 'LIST', attributes: m.element.fields.map(fieldAttribute) }, description, ...flags };
  }
  if (m.kind === 'map' && m.element.kind === 'object') {
    return { name: field.attribute, nested: { nesting: 'MAP', attributes: m.element.fields.map(fieldAttribute) }, description, ...flags };
  }
  return { name: field.attribute, type: valueType(m), description, ...flags };
}

/** The same attribute, computed-only all the way down (for Host outputs). */
export function computedAttribute(field: FieldMapping): TfAttribute {
  const attr = fieldAttribute(field);
  const strip = (a: TfAttribute): TfAttribute => ({
    name: a.name,
    ...(a.type ? { type: a.type } : {}),
    ...(a.nested ? { nested: { nesting: a.nested.nesting, attributes: a.nested.attributes.map(strip) } } : {}),
    ...(a.description ? { description: a.description } : {}),
    computed: true,
  });
  return strip(attr);
}

/** Maps an output schema's properties with their JSON names turned into snake_case. */
export function mapOutputSchema(schema: JsonSchema): readonly FieldMapping[] {
  return mapOnce(outputMappings, schema, snakeCase);
}

export function valueType(m: ValueMapping): TfType {
  switch (m.kind) {
    case 'string':
    case 'reference':
      return T.string;
    case 'bool':
      return T.bool;
    case 'number':
      return T.number;
    case 'list':
      return T.list(valueType(m.element));
    case 'map':
      return T.map(valueType(m.element));
    case 'object':
      return attributeType({ name: '', nested: { nesting: 'SINGLE', attributes: m.fields.map(fieldAttribute) } });
    case 'dynamic':
      return T.dynamic;
  }
}

// ---------- values: Terraform → JSON spec ----------

export class SpecConversionError extends Error {
  constructor(
    message: string,
    readonly path: readonly (string | number)[],
  ) {
    super(message);
  }
}

/** Builds the JSON spec from wholly known attribute values; null attributes are omitted. */
export function toSpec(fields: readonly FieldMapping[], values: { readonly [attr: string]: TfValue }, path: (string | number)[] = []): JsonObject {
  const spec: JsonObject = {};
  for (const f of fields) {
    const v = values[f.attribute] ?? null;
    if (v === null) {
      if (f.constValue !== undefined) spec[f.property] = f.constValue;
      continue;
    }
    spec[f.property] = toJson(f.mapping, v, [...path, f.attribute]);
  }
  return spec;
}

function toJson(m: ValueMapping, v: TfValue, path: (string | number)[]): JsonValue {
  if (v instanceof Unknown) throw new SpecConversionError('value is not known yet', path);
  if (v === null) return null;
  switch (m.kind) {
    case 'string':
    case 'bool':
      return v as string | boolean;
    case 'number': {
      const n = v as TfNumber;
      // describe()/equals(), not the expanded decimal text: a number such as 1e400000000
      // would otherwise become a 400-million-character string (and a failed gRPC answer).
      if (m.integer && !n.isInteger) throw new SpecConversionError(`${n.describe()} is not an integer`, path);
      const js = n.toNumber();
      if (!Number.isFinite(js) || (m.integer && !Number.isSafeInteger(js)) || !TfNumber.of(js).equals(n)) {
        throw new SpecConversionError(`${n.describe()} cannot be sent exactly as an I-JSON number (Host API v1 numbers are IEEE-754 doubles)`, path);
      }
      return js;
    }
    case 'list':
      return (v as readonly TfValue[]).map((item, i) => toJson(m.element, item, [...path, i]));
    case 'map': {
      const out: JsonObject = {};
      for (const [k, item] of Object.entries(v as { [k: string]: TfValue })) out[k] = toJson(m.element, item, [...path, k]);
      return out;
    }
    case 'object':
      return toSpec(m.fields, v as { [k: string]: TfValue }, path);
    case 'reference':
      return { apiVersion: m.targetGroup, kind: m.targetKind, name: v as string };
    case 'dynamic':
      return dynamicToJson(v, path);
  }
}

export function dynamicToJson(v: TfValue, path: (string | number)[] = []): JsonValue {
  if (v instanceof Unknown) throw new SpecConversionError('value is not known yet', path);
  if (v instanceof TfDynamic) return dynamicToJson(v.value, path);
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (v instanceof TfNumber) return toJson({ kind: 'number', integer: false }, v, path);
  if (Array.isArray(v)) return v.map((item, i) => dynamicToJson(item, [...path, i]));
  const out: JsonObject = {};
  for (const [k, item] of Object.entries(v as { [k: string]: TfValue })) out[k] = dynamicToJson(item, [...path, k]);
  return out;
}

// ---------- values: JSON spec → Terraform ----------

/** Attribute values from a Host spec; properties the spec lacks become null. */
export function fromSpec(fields: readonly FieldMapping[], spec: JsonObject): Record<string, TfValue> {
  const out: Record<string, TfValue> = {};
  for (const f of fields) out[f.attribute] = fromJson(f.mapping, spec[f.property]);
  return out;
}

function fromJson(m: ValueMapping, v: JsonValue | undefined): TfValue {
  if (v === undefined || v === null) return null;
  switch (m.kind) {
    case 'string':
      return typeof v === 'string' ? v : JSON.stringify(v);
    case 'bool':
      return typeof v === 'boolean' ? v : null;
    case 'number':
      return typeof v === 'number' ? TfNumber.of(v) : null;
    case 'list':
      return Array.isArray(v) ? v.map((item) => fromJson(m.element, item)) : null;
    case 'map':
      return isRecord(v) ? objectValue(Object.entries(v).map(([k, item]) => [k, fromJson(m.element, item as JsonValue)] as const)) : null;
    case 'object':
      return isRecord(v) ? objectValue(Object.entries(fromSpec(m.fields, v as JsonObject))) : null;
    case 'reference':
      return isRecord(v) && typeof v.name === 'string' ? v.name : null;
    case 'dynamic':
      return jsonToDynamic(v);
  }
}

export function jsonToDynamic(v: JsonValue): TfDynamic {
  const typed = typedJson(v);
  return new TfDynamic(typed.type, typed.value);
}

function typedJson(v: JsonValue): { type: TfType; value: TfValue } {
  if (v === null) return { type: T.dynamic, value: null };
  if (typeof v === 'string') return { type: T.string, value: v };
  if (typeof v === 'boolean') return { type: T.bool, value: v };
  if (typeof v === 'number') return { type: T.number, value: TfNumber.of(v) };
  if (Array.isArray(v)) {
    const items = v.map(typedJson);
    return { type: T.tuple(items.map((i) => i.type)), value: items.map((i) => i.value) };
  }
  const entries = Object.entries(v).map(([k, item]) => [k, typedJson(item)] as const);
  return {
    type: T.object(Object.fromEntries(entries.map(([k, t]) => [k, t.type]))),
    value: objectValue(entries.map(([k, t]) => [k, t.value] as const)),
  };
}

export { isObjectValue };
