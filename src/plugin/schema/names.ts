// Terraform attribute names for JSON Schema property names. Rule (documented in
// docs/schema-mapping.md): camelCase and any other character become snake_case
// (`externalServices` → `external_services`); a name that would collide with an envelope
// attribute of the resource or a name Terraform reserves in resource blocks gets the prefix
// `spec_` (`name` → `spec_name`, `count` → `spec_count`).

export const ENVELOPE_ATTRIBUTES = [
  'id',
  'name',
  'space',
  'uid',
  'generation',
  'revision',
  'form_ref',
  // `conditions` is the envelope's name before state version 1; still reserved so that a Form
  // field of that name keeps the attribute name it had (`spec_conditions`).
  'conditions',
  'conditions_json',
  'ready',
  'outputs_json',
  // The typed outputs of a Form with an outputSchema. Reserved for every Form since state
  // version 2, so that an attribute's name never depends on whether the lock found the Form's
  // package: a Form property `outputs` is `spec_outputs` either way (state-upgrade.ts).
  'outputs',
  'pending_operation',
  'timeouts',
] as const;
export const TERRAFORM_RESERVED = ['count', 'for_each', 'provider', 'depends_on', 'lifecycle', 'connection', 'provisioner'] as const;

/**
 * Mixed-case words that are one word, not an acronym followed by another word: without them
 * `SQLiteDatabase` would split as `sq_lite_database`. Matched case-sensitively at word
 * starts; longer words first (`PostgreSQL` before `SQL`-ending ones).
 */
const COMPOUND_WORDS = [
  'PostgreSQL',
  'GraphQL',
  'MongoDB',
  'DynamoDB',
  'MySQL',
  'NoSQL',
  'SQLite',
  'OAuth',
  'GitHub',
  'GitLab',
  'IPv4',
  'IPv6',
  'WebSocket',
  'JavaScript',
  'TypeScript',
  'macOS',
  'iOS',
];
const COMPOUND = new RegExp(`(${COMPOUND_WORDS.join('|')})(?=[A-Z0-9_]|$)`, 'g');

/**
 * snake_case of a JSON property or Form kind, acronym-aware: `externalServices` →
 * `external_services`, `HTTPRoute` → `http_route`, `SQLiteDatabase` → `sqlite_database`,
 * `IPv6Range` → `ipv6_range`.
 */
export function snakeCase(name: string): string {
  // Compound words become one capitalized token first, so the splitting below keeps them whole.
  const prepared = name.replace(COMPOUND, (word, _w, offset: number) => `${offset > 0 ? '_' : ''}${word[0]!.toUpperCase()}${word.slice(1).toLowerCase()}`);
  let out = prepared
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_')
    .replace(/__+/g, '_');
  if (!/^[a-z_]/.test(out)) out = `_${out}`;
  return out;
}

/** The top-level attribute name of a desired property. */
export function topLevelAttributeName(property: string): string {
  const snake = snakeCase(property);
  const taken: readonly string[] = [...ENVELOPE_ATTRIBUTES, ...TERRAFORM_RESERVED];
  return taken.includes(snake) ? `spec_${snake}` : snake;
}

/** `takoform_<snake kind>`: the default resource type name of a Form. */
export function defaultTypeName(kind: string): string {
  return `takoform_${snakeCase(kind)}`;
}
