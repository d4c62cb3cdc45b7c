// Definitions this Host cannot yet serve faithfully are refused at install time, never served
// half-way: accepting a relation it does not resolve, or answering without the status.outputs an
// outputSchema requires, would be parsing and ignoring part of the contract. (Unimplemented
// constraint kinds are refused by constraints.ts while the Definition is read.)
import type { FormDefinition } from './form-definition.js';
import { isJsonObject, type JsonValue } from './json-value.js';

// desiredSchema annotations whose Host obligations (§17) arrive with relation support.
const UNSUPPORTED_ANNOTATIONS = [
  'x-takoform-target-formrefs',
  'x-takoform-required-interface',
  'x-takoform-binding',
  'x-takoform-required-entrypoint',
] as const;

/** Why this Host cannot serve `definition`, or undefined when it can. */
export function unservableReason(definition: FormDefinition): string | undefined {
  if (definition.outputSchema !== undefined) {
    return 'it declares an outputSchema, and status.outputs is not implemented by this Host yet';
  }
  const annotation = findAnnotation(definition.desiredSchema);
  if (annotation !== undefined) {
    return `its desiredSchema uses "${annotation}", and relations and bindings are not implemented by this Host yet`;
  }
  return undefined;
}

function findAnnotation(schema: JsonValue): string | undefined {
  if (Array.isArray(schema)) {
    for (const element of schema) {
      const found = findAnnotation(element);
      if (found !== undefined) return found;
    }
  } else if (isJsonObject(schema)) {
    for (const [member, value] of Object.entries(schema)) {
      if ((UNSUPPORTED_ANNOTATIONS as readonly string[]).includes(member)) return member;
      const found = findAnnotation(value);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
