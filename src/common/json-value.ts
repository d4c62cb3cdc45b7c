// The JSON value model the Host works in. Request bodies reach it only through the strict I-JSON
// reader (src/common/ijson.ts), so every value here is finite, duplicate-free and surrogate-safe.

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | JsonObject;
export interface JsonObject {
  [member: string]: JsonValue;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A deep copy, so materialization and storage never alias the caller's document. */
export function cloneJson<T extends JsonValue>(value: T): T {
  return structuredClone(value);
}

/**
 * Sets a member as an own data property. Plain assignment would treat a member literally named
 * `__proto__` (legal JSON) as a prototype change instead of data.
 */
export function setMember(target: JsonObject, member: string, value: JsonValue): void {
  Object.defineProperty(target, member, { value, enumerable: true, writable: true, configurable: true });
}

export function hasMember(target: JsonObject, member: string): boolean {
  return Object.prototype.hasOwnProperty.call(target, member);
}
