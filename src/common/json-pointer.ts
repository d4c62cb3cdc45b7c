// RFC 6901 JSON Pointers: every refusal and diagnostic names the field at fault with one, and
// Definitions address spec members (constraints, standard-service slots) with them.
import { hasMember, isJsonObject, type JsonValue } from './json-value.js';

/** The pointer to `token` inside the value at `base` ("" is the document root). */
export function appendPointer(base: string, token: string | number): string {
  return `${base}/${String(token).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/** Splits a pointer into unescaped reference tokens; undefined when it is not a valid pointer. */
export function pointerTokens(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (!pointer.startsWith('/') || /~(?![01])/.test(pointer)) return undefined;
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The value a pointer addresses, or undefined when any step is missing. */
export function resolvePointer(document: JsonValue, pointer: string): JsonValue | undefined {
  const tokens = pointerTokens(pointer);
  if (tokens === undefined) return undefined;
  let current: JsonValue = document;
  for (const token of tokens) {
    if (Array.isArray(current)) {
      if (!/^(?:0|[1-9][0-9]*)$/.test(token)) return undefined;
      const index = Number(token);
      if (index >= current.length) return undefined;
      current = current[index];
    } else if (isJsonObject(current)) {
      if (!hasMember(current, token)) return undefined;
      current = current[token];
    } else {
      return undefined;
    }
  }
  return current;
}

/** Every value a pointer pattern addresses, "*" standing for each element of an array. */
export function expandPointerPattern(value: JsonValue, pattern: string): { pointer: string; value: JsonValue }[] {
  const tokens = pointerTokens(pattern) ?? [];
  const found: { pointer: string; value: JsonValue }[] = [];
  const step = (current: JsonValue, at: string, index: number): void => {
    if (index === tokens.length) {
      found.push({ pointer: at, value: current });
      return;
    }
    const token = tokens[index];
    if (token === '*' && Array.isArray(current)) {
      current.forEach((element, position) => step(element, appendPointer(at, position), index + 1));
    } else if (isJsonObject(current) && hasMember(current, token)) {
      step(current[token], appendPointer(at, token), index + 1);
    }
  };
  step(value, '', 0);
  return found;
}
