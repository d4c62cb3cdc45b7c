// Standard-service slots (wire reference §19): arrays in the desiredSchema annotated
// "x-takoform-standard-services": "standards.takoform.com/v1" whose items are sealed
// {name, service: {apiVersion, protocol}, required?}. validate never decides satisfiability;
// prepare and apply refuse a required slot whose protocol this Host cannot satisfy.
import { HostError, invalidArgument } from './errors.js';
import { isStandardServiceProtocol } from './grammar.js';
import { appendPointer, expandPointerPattern } from '../common/json-pointer.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../common/json-value.js';

export const STANDARD_SERVICES_API_VERSION = 'standards.takoform.com/v1';
const SLOT_ANNOTATION = 'x-takoform-standard-services';

export interface StandardServiceSlot {
  /** Pointer to the slot element inside the spec. */
  readonly pointer: string;
  readonly name: string;
  readonly protocol: string;
  readonly required: boolean;
}

/**
 * Pointer patterns ("*" = every array element) of the slot arrays a desiredSchema declares.
 * Computed once per Definition at install time.
 */
export function findSlotArrays(desiredSchema: JsonObject): string[] {
  const found: string[] = [];
  walkSchema(desiredSchema, '', found);
  return found;
}

/** The slots present in a materialized spec. */
export function collectSlots(slotArrays: readonly string[], spec: JsonObject): StandardServiceSlot[] {
  const slots: StandardServiceSlot[] = [];
  for (const pattern of slotArrays) {
    for (const { pointer, value } of expandPointerPattern(spec, pattern)) {
      if (!Array.isArray(value)) continue;
      value.forEach((element, index) => {
        const slot = readSlot(element, appendPointer(pointer, index));
        if (slot !== undefined) slots.push(slot);
      });
    }
  }
  return slots;
}

/**
 * Refuses (before any mutation) a required slot whose protocol is not satisfiable, and two slots
 * sharing a name (slot names share the runtime binding namespace). Pointers are spec-relative;
 * `specPointer` is where the spec sits in the request document.
 */
export function assertSlotsSatisfiable(slots: readonly StandardServiceSlot[], satisfiable: ReadonlySet<string>, specPointer: string): void {
  const names = new Set<string>();
  for (const slot of slots) {
    if (names.has(slot.name)) {
      throw invalidArgument(`standard-service slot name "${slot.name}" is used twice`, `${specPointer}${slot.pointer}/name`);
    }
    names.add(slot.name);
  }
  const unsatisfied = slots.find((slot) => slot.required && !satisfiable.has(slot.protocol));
  if (unsatisfied !== undefined) {
    throw new HostError(
      'unsupported_capability',
      `required standard-service slot "${unsatisfied.name}" needs protocol "${unsatisfied.protocol}", ` +
        'which this Host cannot satisfy for your tenant; mark the slot "required": false or choose another protocol',
      { details: { pointer: `${specPointer}${unsatisfied.pointer}/service/protocol` } },
    );
  }
}

function walkSchema(schema: JsonValue | undefined, pointer: string, found: string[]): void {
  if (!isJsonObject(schema)) return;
  if (schema[SLOT_ANNOTATION] === STANDARD_SERVICES_API_VERSION) found.push(pointer);
  if (isJsonObject(schema.properties)) {
    for (const [member, memberSchema] of Object.entries(schema.properties)) {
      walkSchema(memberSchema, appendPointer(pointer, member), found);
    }
  }
  if (isJsonObject(schema.items)) walkSchema(schema.items, `${pointer}/*`, found);
}

// The schema has already validated the slot shape; anything else is not a slot to judge.
function readSlot(element: JsonValue, pointer: string): StandardServiceSlot | undefined {
  if (!isJsonObject(element) || typeof element.name !== 'string' || !isJsonObject(element.service)) return undefined;
  const protocol = element.service.protocol;
  if (typeof protocol !== 'string' || !isStandardServiceProtocol(protocol)) return undefined;
  return { pointer, name: element.name, protocol, required: element.required !== false };
}
