// The example of a resource page: a configuration that passes `tofu validate` and `tofu plan`
// against a Host serving the catalog's Forms. Values come from the Form's desired JSON Schema
// (required properties only: enum/const, minimum, minLength/maxLength, a pattern's own sample,
// minItems) and honour the Form's constraints (orderedPair, sum, uniqueBy); a reference gets a
// resource of its target Form in the same example, so the plan resolves it.
import type { Catalog, CatalogForm } from '../catalog/catalog-file.js';
import type { JsonObject } from '../../host-client/wire-types.js';
import { mapDesiredSchema, type FieldMapping, type ValueMapping } from '../schema/form-mapping.js';

type Schema = Record<string, unknown>;

interface Block {
  readonly typeName: string;
  readonly label: string;
  readonly body: string;
}

/** Sample strings tried, in order, against a property's pattern. */
const STRING_SAMPLES = ['example', 'EXAMPLE', 'example.takoform.test', 'com.example.service', 'EXAMPLE_1', 'e1'];

export function exampleConfig(catalog: Catalog, form: CatalogForm): string {
  const blocks: Block[] = [];
  const seen = new Map<string, string>();
  const build = (f: CatalogForm, label: string, name: string, depth: number, inherited = false): void => {
    const fields = mapDesiredSchema(f.desiredSchema);
    const schema = f.desiredSchema as Schema;
    const ctx: Ctx = { catalog, form: f, depth, blocks, seen, build, shareTargets: inherited || (f.constraints ?? []).some((c) => c.kind === 'sameResolvedTarget') };
    const spec = objectValue(schema, ctx, '');
    const lines = [`  name = ${JSON.stringify(name)}`, ...hclFields(fields, spec, '  ', ctx)];
    blocks.push({ typeName: f.typeName, label, body: lines.join('\n') });
  };
  build(form, 'example', 'example', 0);
  // Targets first (they are built first): a reader sees what the example refers to before it.
  return blocks
    .map((b) => `resource "${b.typeName}" "${b.label}" {\n${b.body}\n}\n`)
    .join('\n');
}

interface Ctx {
  readonly catalog: Catalog;
  readonly form: CatalogForm;
  readonly depth: number;
  readonly blocks: Block[];
  /** Target Form type name → label of its example block, when targets are shared. */
  readonly seen: Map<string, string>;
  readonly build: (f: CatalogForm, label: string, name: string, depth: number, inherited?: boolean) => void;
  readonly shareTargets: boolean;
}

const REF = Symbol('reference');
type Value = unknown;

function objectValue(schema: Schema, ctx: Ctx, pointer: string): Record<string, Value> {
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  const out: Record<string, Value> = {};
  for (const [key, sub] of Object.entries(props)) {
    if (!required.has(key) || 'default' in sub || 'const' in sub) continue;
    out[key] = value(sub, ctx, `${pointer}/${key}`);
  }
  for (const c of ctx.form.constraints ?? []) {
    // orderedPair: value(p1) <= value(p2); keep p2 one above p1 so the example reads as a range.
    if (c.kind === 'orderedPair' && Array.isArray(c.references)) {
      const [a, b] = (c.references as string[]).map((p) => p.slice(pointer.length + 1));
      if (a && b && typeof out[a] === 'number' && typeof out[b] === 'number' && !a.includes('/') && !b.includes('/')) out[b] = Math.max(out[b] as number, (out[a] as number) + 1);
    }
  }
  return out;
}

function value(schema: Schema, ctx: Ctx, pointer: string): Value {
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const target = referenceTarget(schema, ctx);
  if (target) return target;
  switch (schema.type) {
    case 'string': {
      const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
      const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
      const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern, 'u') : undefined;
      return STRING_SAMPLES.find((s) => s.length >= min && s.length <= max && (!pattern || pattern.test(s))) ?? 'example';
    }
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? Math.max(schema.minimum, 1) : 1;
    case 'boolean':
      return true;
    case 'array': {
      const count = Math.max(typeof schema.minItems === 'number' ? schema.minItems : 0, 1);
      const items = Array.from({ length: count }, () => value((schema.items ?? {}) as Schema, ctx, `${pointer}/*`));
      for (const c of ctx.form.constraints ?? []) {
        // sum: the members add up to exactly `total`; uniqueBy: distinct members.
        if (c.kind === 'sum' && c.list === pointer && typeof c.member === 'string' && typeof c.total === 'number') {
          items.forEach((it, i) => ((it as Record<string, Value>)[c.member as string] = i === 0 ? (c.total as number) - (items.length - 1) : 1));
        }
        if (c.kind === 'uniqueBy' && c.list === pointer && typeof c.member === 'string') {
          items.forEach((it, i) => {
            const o = it as Record<string, Value>;
            if (typeof o[c.member as string] === 'string') o[c.member as string] = `${o[c.member as string]}${i || ''}`;
            else if (typeof o[c.member as string] === 'number') o[c.member as string] = (o[c.member as string] as number) + i;
          });
        }
      }
      return items;
    }
    case 'object':
      return objectValue(schema, ctx, pointer);
    default:
      return 'example';
  }
}

/** A relation to another Form of the catalog: its example block is added, the value is its name. */
function referenceTarget(schema: Schema, ctx: Ctx): { [REF]: string } | undefined {
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  const group = props.apiVersion?.const;
  const kind = props.kind?.const;
  if (typeof group !== 'string' || typeof kind !== 'string' || !props.name) return undefined;
  const exact = (schema['x-takoform-target-formrefs'] as JsonObject[] | undefined)?.[0];
  const candidates = ctx.catalog.forms.filter((f) => f.formRef.apiVersion === group && f.formRef.kind === kind);
  const target =
    candidates.find((f) => exact && f.formRef.definitionVersion === exact.definitionVersion && f.formRef.schemaDigest === exact.schemaDigest) ??
    [...candidates].sort((a, b) => (a.typeName < b.typeName ? -1 : 1))[0];
  if (!target || ctx.depth > 3) return { [REF]: '"example-target"' };
  if (ctx.shareTargets && ctx.seen.has(target.typeName)) return { [REF]: `${target.typeName}.${ctx.seen.get(target.typeName)}.name` };
  const n = ctx.seen.size + 1;
  const label = `target_${n}`;
  ctx.seen.set(target.typeName, label);
  // Below a sameResolvedTarget Form every relation to one Form resolves to one resource.
  ctx.build(target, label, `example-target-${n}`, ctx.depth + 1, ctx.shareTargets);
  return { [REF]: `${target.typeName}.${label}.name` };
}

function hclFields(fields: readonly FieldMapping[], spec: Record<string, Value>, indent: string, ctx: Ctx): string[] {
  const lines: string[] = [];
  for (const f of fields) {
    if (!(f.property in spec)) continue;
    lines.push(`${indent}${f.attribute} = ${hcl(spec[f.property], f.mapping, indent, ctx)}`);
  }
  return lines;
}

function hcl(v: Value, mapping: ValueMapping, indent: string, ctx: Ctx): string {
  if (typeof v === 'object' && v !== null && REF in v) return (v as { [REF]: string })[REF];
  if (mapping.kind === 'list' && Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return `[\n${v.map((e) => `${indent}  ${hcl(e, mapping.element, indent + '  ', ctx)},`).join('\n')}\n${indent}]`;
  }
  if (mapping.kind === 'object' && typeof v === 'object' && v !== null) {
    const inner = hclFields(mapping.fields, v as Record<string, Value>, indent + '  ', ctx);
    return inner.length ? `{\n${inner.join('\n')}\n${indent}}` : '{}';
  }
  return JSON.stringify(v);
}
