// Values a Form's desired JSON Schema allows, generated with fast-check, and their HCL: for
// the round-trip property (test/e2e/round-trip.test.ts). The generator covers what the
// shared and synthetic Forms use — types, enum/const, patterns, lengths, ranges, arrays with
// item counts and uniqueItems, closed and free-form objects, oneOf/anyOf, untyped values —
// and leaves references to the caller (they must name resources that exist).
import fc from 'fast-check';
import type { FieldMapping, ValueMapping } from '../../src/plugin/schema/form-mapping.js';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Schema = { readonly [key: string]: unknown };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Free-form JSON: every type, nested a little, keys that are valid HCL object keys when quoted. */
const freeJson: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -1_000_000, max: 1_000_000 }),
    fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e9, max: 1e9 }).filter((n) => !Object.is(n, -0)),
    fc.string({ maxLength: 8 }),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(
      fc.string({ minLength: 1, maxLength: 6 }).filter((k) => !k.includes('\u0000')),
      tie('value'),
      { maxKeys: 3 },
    ),
  ),
})).value;

/** How to fill a reference {apiVersion, kind, name}: with the name of an existing target. */
export type ReferenceName = (group: string, kind: string) => string;

export function arbitraryFor(schema: Schema, references: ReferenceName, depth = 0): fc.Arbitrary<Json> {
  if ('const' in schema) return fc.constant(schema.const as Json);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as Json[]));
  const branches = (Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined) as Schema[] | undefined;
  if (branches) return fc.oneof(...branches.map((b) => arbitraryFor(b, references, depth + 1)));
  const reference = referenceOf(schema);
  if (reference) return fc.constant({ apiVersion: reference.group, kind: reference.kind, name: references(reference.group, reference.kind) });
  switch (schema.type) {
    case 'string': {
      const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
      const max = typeof schema.maxLength === 'number' ? Math.min(schema.maxLength, 12) : 12;
      const base =
        typeof schema.pattern === 'string' ? fc.stringMatching(new RegExp(schema.pattern)) : fc.string({ minLength: min, maxLength: Math.max(min, max) });
      return base.filter((s) => [...s].length >= min && (typeof schema.maxLength !== 'number' || [...s].length <= schema.maxLength));
    }
    case 'integer': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : -1_000_000;
      const max = typeof schema.maximum === 'number' ? schema.maximum : Math.max(min, 0) + 2_000_000;
      return fc.integer({ min, max });
    }
    case 'number':
      return fc
        .double({
          noNaN: true,
          noDefaultInfinity: true,
          min: typeof schema.minimum === 'number' ? schema.minimum : -1e9,
          max: typeof schema.maximum === 'number' ? schema.maximum : 1e9,
        })
        .filter((n) => !Object.is(n, -0));
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const items = isRecord(schema.items) ? (schema.items as Schema) : {};
      const minLength = typeof schema.minItems === 'number' ? schema.minItems : 0;
      const maxLength = Math.max(minLength, typeof schema.maxItems === 'number' ? Math.min(schema.maxItems, 3) : 3);
      const element = depth > 3 ? freeJson : arbitraryFor(items, references, depth + 1);
      return schema.uniqueItems === true
        ? fc.uniqueArray(element, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
        : fc.array(element, { minLength, maxLength });
    }
    case 'object': {
      if (isRecord(schema.properties)) {
        const properties = schema.properties as Record<string, Schema>;
        const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
        const record: Record<string, fc.Arbitrary<Json>> = {};
        for (const [k, sub] of Object.entries(properties)) record[k] = arbitraryFor(sub, references, depth + 1);
        return fc.record(record, { requiredKeys: [...required] }) as fc.Arbitrary<Json>;
      }
      if (isRecord(schema.additionalProperties))
        return fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), arbitraryFor(schema.additionalProperties as Schema, references, depth + 1), {
          maxKeys: 3,
        });
      return fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), freeJson, { maxKeys: 3 });
    }
    default:
      return freeJson;
  }
}

function referenceOf(schema: Schema): { group: string; kind: string } | undefined {
  if (schema.type !== 'object' || !isRecord(schema.properties)) return undefined;
  const p = schema.properties as Record<string, Schema>;
  if (Object.keys(p).sort().join() !== 'apiVersion,kind,name') return undefined;
  const group = p.apiVersion?.const;
  const kind = p.kind?.const;
  return typeof group === 'string' && typeof kind === 'string' ? { group, kind } : undefined;
}

// ---------- HCL ----------

/** An HCL string literal: JSON escapes, plus the two template introducers escaped. */
export function hclString(s: string): string {
  return JSON.stringify(s).replace(/\$\{/g, '$${').replace(/%\{/g, '%%{');
}

/** Any JSON value as an HCL expression (objects with quoted keys). */
export function hclJson(v: Json): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return hclString(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(hclJson).join(', ')}]`;
  return `{ ${Object.entries(v)
    .map(([k, x]) => `${hclString(k)} = ${hclJson(x)}`)
    .join(', ')} }`;
}

/** How a reference to the resource named `name` is written (a literal, or `type.label.name`). */
export type ReferenceExpression = (name: string) => string;
const literalName: ReferenceExpression = (name) => hclString(name);

/** A spec value as the HCL of one attribute, by its mapping (references as the target's name). */
export function hclFor(m: ValueMapping, v: Json, ref: ReferenceExpression = literalName): string {
  if (v === null) return 'null';
  switch (m.kind) {
    case 'reference':
      return ref((v as { name: string }).name);
    case 'list':
      return `[${(v as Json[]).map((x) => hclFor(m.element, x, ref)).join(', ')}]`;
    case 'map':
      return `{ ${Object.entries(v as Record<string, Json>)
        .map(([k, x]) => `${hclString(k)} = ${hclFor(m.element, x, ref)}`)
        .join(', ')} }`;
    case 'object':
      return `{ ${m.fields
        .filter((f) => (v as Record<string, Json>)[f.property] !== undefined)
        .map((f) => `${f.attribute} = ${hclFor(f.mapping, (v as Record<string, Json>)[f.property]!, ref)}`)
        .join(', ')} }`;
    default:
      return hclJson(v);
  }
}

/** The attribute lines of a resource block for a generated spec. */
export function hclAttributes(fields: readonly FieldMapping[], spec: Record<string, Json>, ref: ReferenceExpression = literalName): string {
  return fields
    .filter((f) => spec[f.property] !== undefined)
    .map((f) => `  ${f.attribute} = ${hclFor(f.mapping, spec[f.property]!, ref)}\n`)
    .join('');
}
