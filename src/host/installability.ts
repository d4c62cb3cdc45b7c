// Definitions this Host cannot serve faithfully are refused at install time, never served
// half-way. What is left to refuse: the activation-gating annotation x-takoform-required-entrypoint
// (family-specific, no v1 generic Form uses it), constraints naming relations the desiredSchema
// does not declare, and hostAssigned outputs the outputSchema does not declare.
import { isJsonObject, type JsonValue } from '../common/json-value.js';
import { constraintRelations } from './constraints.js';
import type { FormDefinition } from './form-definition.js';
import { pointerTokens } from '../common/json-pointer.js';
import type { RelationDeclaration } from './relations/relation-declarations.js';

const UNSUPPORTED_ANNOTATIONS = ['x-takoform-required-entrypoint'] as const;

/** Why this Host cannot serve `definition`, or undefined when it can. */
export function unservableReason(definition: FormDefinition, relations: readonly RelationDeclaration[]): string | undefined {
  const annotation = findAnnotation(definition.desiredSchema);
  if (annotation !== undefined) return `its desiredSchema uses "${annotation}", which this Host does not implement`;
  const declared = new Set(relations.map((relation) => relation.relation));
  for (const constraint of definition.constraints) {
    const missing = constraintRelations(constraint).find((pointer) => !declared.has(pointer));
    if (missing !== undefined) return `its ${constraint.kind} constraint names ${missing}, which is not a declared relation`;
    if (constraint.kind === 'hostAssigned') {
      const tokens = pointerTokens(constraint.output) ?? [];
      const properties = definition.outputSchema?.properties;
      if (tokens.length !== 1 || !isJsonObject(properties) || properties[tokens[0]] === undefined) {
        return `its hostAssigned constraint names ${constraint.output}, which is not a top-level outputSchema member`;
      }
    }
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
