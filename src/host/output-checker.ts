// status.outputs (wire reference §8.2): present exactly when the recorded Definition declares an
// outputSchema, and valid against it. The reference Host has no backend, so it produces outputs
// itself: `hostAssigned` members are minted once per incarnation (from a per-tenant sequence, so
// they are unique and stable for the uid's lifetime), every other member is derived
// deterministically from the spec (the spec's own member of that name when it fits, else a
// synthetic value built from the member's schema). The result is always validated.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../common/json-value.js';
import type { FormDefinition } from './form-definition.js';
import { pointerTokens } from '../common/json-pointer.js';

export class OutputChecker {
  private readonly validateOutputs: ValidateFunction;
  private readonly properties: Readonly<Record<string, JsonValue>>;
  /** Top-level output members a hostAssigned constraint names. */
  readonly hostAssigned: readonly string[];

  constructor(definition: FormDefinition) {
    const schema = definition.outputSchema ?? {};
    this.validateOutputs = new Ajv2020({ strict: false, allErrors: true }).compile(schema);
    this.properties = isJsonObject(schema.properties) ? schema.properties : {};
    this.hostAssigned = definition.constraints.flatMap((constraint) =>
      constraint.kind === 'hostAssigned' ? (pointerTokens(constraint.output) ?? []).slice(0, 1) : [],
    );
  }

  /** Mints the hostAssigned members for a new incarnation named `name`, from `ordinal` (unique per tenant and Form). */
  mintAssigned(name: string, group: string, ordinal: number): JsonObject {
    const assigned: JsonObject = {};
    for (const member of this.hostAssigned) {
      const schema = this.properties[member];
      const type = isJsonObject(schema) ? schema.type : undefined;
      assigned[member] =
        type === 'integer' || type === 'number' ? ordinal : type === 'string' ? `${name}-${ordinal}.${group}` : synthesize(schema, name, ordinal);
    }
    return assigned;
  }

  /** The outputs of a resource with `spec`, keeping the minted `assigned` members. Throws when none validate. */
  render(spec: JsonObject, name: string, assigned: JsonObject): JsonObject {
    const fromSpec: JsonObject = {};
    const synthetic: JsonObject = {};
    for (const [member, schema] of Object.entries(this.properties)) {
      const minted = assigned[member];
      const made = minted !== undefined ? minted : synthesize(schema, `${name}-${member.toLowerCase()}`, 1);
      synthetic[member] = made;
      fromSpec[member] = minted === undefined && spec[member] !== undefined ? spec[member] : made;
    }
    for (const candidate of [fromSpec, synthetic]) {
      if (this.validateOutputs(candidate)) return candidate;
    }
    throw new Error(`cannot produce outputs valid against the outputSchema: ${JSON.stringify(this.validateOutputs.errors)}`);
  }
}

/** A value of the shape `schema` describes, deterministic in `hint` and `ordinal`. */
function synthesize(schema: JsonValue | undefined, hint: string, ordinal: number): JsonValue {
  if (!isJsonObject(schema)) return hint;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  switch (schema.type) {
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? Math.max(schema.minimum, ordinal) : ordinal;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object': {
      const object: JsonObject = {};
      const properties = isJsonObject(schema.properties) ? schema.properties : {};
      const required = Array.isArray(schema.required) ? schema.required : [];
      for (const member of required) {
        if (typeof member === 'string') object[member] = synthesize(properties[member], `${hint}-${member.toLowerCase()}`, ordinal);
      }
      return object;
    }
    default:
      return hint.replace(/[^a-z0-9.-]/g, '-');
  }
}
