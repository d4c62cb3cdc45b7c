// Default materialization (wire reference §7.3, ambiguity A15). The reference Host's own
// implementation, shared with the provider, which uses it to predict the Host's materialization
// without a round trip: one implementation, so the two can never disagree. A `default` in the desiredSchema
// is normative: the Host fills it in before validation, digesting, storage and echo, so omitting
// a defaulted member and writing its default are the same desired state. Recursive per the v1
// README: defaults apply inside a present object or array element; an absent optional object
// stays absent. Combinators ($ref, allOf, oneOf, if/then) are not followed: a default under one
// of them cannot be placed without first choosing a branch, and no v1 Definition relies on it.
import { cloneJson, hasMember, isJsonObject, setMember, type JsonObject, type JsonValue } from './json-value.js';

/** Returns a copy of `value` with every applicable default filled in; `value` is not modified. */
export function materializeDefaults<T extends JsonValue>(schema: JsonObject, value: T): T {
  const copy = cloneJson(value);
  fillDefaults(schema, copy);
  return copy;
}

function fillDefaults(schema: JsonValue | undefined, value: JsonValue): void {
  if (!isJsonObject(schema)) return;
  if (isJsonObject(value)) {
    fillObject(schema, value);
  } else if (Array.isArray(value)) {
    fillArray(schema, value);
  }
}

function fillObject(schema: JsonObject, value: JsonObject): void {
  const properties = isJsonObject(schema.properties) ? schema.properties : {};
  for (const [member, memberSchema] of Object.entries(properties)) {
    if (hasMember(value, member)) {
      fillDefaults(memberSchema, value[member]);
    } else if (isJsonObject(memberSchema) && hasMember(memberSchema, 'default')) {
      // The default itself may be an object whose members carry defaults of their own.
      const filled = cloneJson(memberSchema.default);
      fillDefaults(memberSchema, filled);
      setMember(value, member, filled);
    }
  }
  // Typed maps: every member not named in `properties` follows `additionalProperties`.
  if (isJsonObject(schema.additionalProperties)) {
    for (const member of Object.keys(value)) {
      if (!hasMember(properties, member)) fillDefaults(schema.additionalProperties, value[member]);
    }
  }
}

function fillArray(schema: JsonObject, value: JsonValue[]): void {
  const prefixItems = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
  value.forEach((element, index) => {
    fillDefaults(index < prefixItems.length ? prefixItems[index] : schema.items, element);
  });
}
