// Query strings. Each route lists the keys it understands; any other key, a repeated key or a
// malformed value is `invalid_argument` (ambiguity A7: refuse, never ignore). '+' decodes to a
// space and a literal '+' travels as %2B, as Go's url.Values and URLSearchParams both write it.
import type { StringGrammar } from '../closed-document.js';
import { invalidArgument } from '../errors.js';

export type QueryParameters = ReadonlyMap<string, string>;

export function parseQuery(rawQuery: string, allowedKeys: readonly string[]): QueryParameters {
  const parameters = new Map<string, string>();
  for (const piece of rawQuery.split('&')) {
    if (piece === '') continue;
    const separator = piece.indexOf('=');
    const key = decodeComponent(separator < 0 ? piece : piece.slice(0, separator));
    const value = separator < 0 ? '' : decodeComponent(piece.slice(separator + 1));
    if (!allowedKeys.includes(key)) {
      const expected = allowedKeys.length === 0 ? 'no query parameters' : `only ${allowedKeys.join(', ')}`;
      throw invalidArgument(`unknown query parameter "${key}"; this route takes ${expected}`, undefined, { parameter: key });
    }
    if (parameters.has(key)) throw invalidArgument(`query parameter "${key}" is repeated`, undefined, { parameter: key });
    parameters.set(key, value);
  }
  return parameters;
}

/** A required parameter: absent or malformed is `invalid_argument`. */
export function requiredQueryValue(query: QueryParameters, key: string, grammar: StringGrammar): string {
  const value = optionalQueryValue(query, key, grammar);
  if (value === undefined) throw invalidArgument(`query parameter "${key}" is required`, undefined, { parameter: key });
  return value;
}

export function optionalQueryValue(query: QueryParameters, key: string, grammar: StringGrammar): string | undefined {
  const value = query.get(key);
  if (value !== undefined && !grammar.test(value)) {
    throw invalidArgument(`query parameter "${key}" must be ${grammar.describe}`, undefined, { parameter: key });
  }
  return value;
}

function decodeComponent(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw invalidArgument('the query string has a malformed percent-encoding (or encodes invalid UTF-8)');
  }
}
