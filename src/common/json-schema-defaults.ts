// Default materialization as Host API v1 defines it (wire reference §7.3, ambiguity A15):
// a property's `default` is filled in when the property is absent, recursively inside
// objects and array items that are present; an absent optional object stays absent;
// present values are kept even when equal to the default. The Host is the authority (it
// materializes at prepare); the provider uses the same rule to tell, without a round trip,
// whether a configuration still means the state it has.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = { readonly [key: string]: unknown };

export function materializeDefaults<T extends Json>(schema: Schema, value: T): T {
  return fill(schema, value) as T;
}

function fill(schema: Schema, value: Json): Json {
  if (Array.isArray(value)) {
    const items = isSchema(schema.items) ? schema.items : undefined;
    return items ? value.map((v) => fill(items, v)) : value;
  }
  if (value !== null && typeof value === 'object') {
    const props = isSchema(schema.properties) ? (schema.properties as Record<string, Schema>) : {};
    const out: { [key: string]: Json } = {};
    for (const [k, v] of Object.entries(value)) out[k] = isSchema(props[k]) ? fill(props[k], v) : v;
    for (const [k, sub] of Object.entries(props)) {
      if (!(k in out) && isSchema(sub) && 'default' in sub) out[k] = fill(sub, structuredClone(sub.default as Json));
    }
    return out;
  }
  return value;
}

function isSchema(v: unknown): v is Schema {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
