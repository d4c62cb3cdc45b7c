// Readers for closed JSON objects (wire reference §2.4 rule 7): an unknown member, a missing
// required member or a value of the wrong type is `invalid_argument` naming the member's JSON
// Pointer, before anything is decoded further. A `null` is never accepted where a value is due.
import { invalidArgument } from './errors.js';
import { appendPointer } from '../common/json-pointer.js';
import { hasMember, isJsonObject, type JsonObject, type JsonValue } from '../common/json-value.js';

/** A grammar a string member must satisfy, with the phrase used when it does not. */
export interface StringGrammar {
  readonly test: (value: string) => boolean;
  readonly describe: string;
}

export function expectObject(value: JsonValue | undefined, pointer: string): JsonObject {
  if (!isJsonObject(value)) throw invalidArgument(`${describe(pointer)} must be a JSON object`, pointer);
  return value;
}

/** Refuses unknown members first (they say the most about a mismatched client), then missing ones. */
export function expectMembers(object: JsonObject, pointer: string, required: readonly string[], optional: readonly string[] = []): void {
  for (const member of Object.keys(object)) {
    if (!required.includes(member) && !optional.includes(member)) {
      throw invalidArgument(`${describe(pointer)} has unknown member "${member}"`, appendPointer(pointer, member));
    }
  }
  for (const member of required) {
    if (!hasMember(object, member)) {
      throw invalidArgument(`${describe(pointer)} is missing required member "${member}"`, appendPointer(pointer, member));
    }
  }
}

export function expectString(object: JsonObject, member: string, pointer: string, grammar?: StringGrammar): string {
  const at = appendPointer(pointer, member);
  const value = object[member];
  if (typeof value !== 'string') throw invalidArgument(`${at} must be a string`, at);
  if (grammar !== undefined && !grammar.test(value)) throw invalidArgument(`${at} must be ${grammar.describe}`, at);
  return value;
}

export function optionalString(object: JsonObject, member: string, pointer: string, grammar?: StringGrammar): string | undefined {
  return hasMember(object, member) ? expectString(object, member, pointer, grammar) : undefined;
}

function describe(pointer: string): string {
  return pointer === '' ? 'the request body' : pointer;
}
