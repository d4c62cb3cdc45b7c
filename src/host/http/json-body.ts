// Turns request bytes into a JSON value, refusing everything wire reference §2.4 refuses, before
// any typed decoding: wrong Content-Type, invalid UTF-8, duplicate members, lone surrogates,
// non-finite numbers, negative zero, trailing data, nesting beyond 256. Integers beyond
// ±(2^53-1) are refused too: they are not interoperable and JCS digests of them would differ
// between implementations.
//
// Fairness: the work one request costs grows with the number of values in its body (I-JSON scan,
// JSON.parse, schema validation, default materialization, canonical digests all walk every value),
// and all of it runs on the one event loop every tenant shares. An 8 MiB body of 4 million
// numbers held the loop for seconds. So a body may hold at most MAX_REQUEST_JSON_VALUES values
// (and nest at most 256 deep), checked during the raw scan, before anything else walks it. The
// default leaves room for the largest artifact manifest (16384 files of 5 values each, §14.1).
import { IJsonError, IJsonTooManyValues, parseIJson, MAX_JSON_DEPTH } from '../../common/ijson.js';
import { invalidArgument } from '../errors.js';
import { appendPointer } from '../../common/json-pointer.js';
import { isJsonObject, type JsonValue } from '../../common/json-value.js';

/** Values one request body may hold by default (--max-json-values). */
export const MAX_REQUEST_JSON_VALUES = 100_000;

/** Parses a required JSON body. */
export function parseJsonBody(bytes: Uint8Array, contentType: string | undefined, maxValues = MAX_REQUEST_JSON_VALUES): JsonValue {
  if (bytes.length === 0) throw invalidArgument('this route needs a JSON request body');
  if (!isJsonMediaType(contentType)) {
    throw invalidArgument('a request body must be sent with Content-Type: application/json');
  }
  let value: JsonValue;
  try {
    value = parseIJson(bytes, MAX_JSON_DEPTH, maxValues) as JsonValue;
  } catch (error) {
    if (error instanceof IJsonTooManyValues) {
      throw invalidArgument(
        `the request body holds more than ${error.limit} JSON values, the most this Host accepts in one request; split the request or shrink the document`,
        undefined,
        { offset: error.offset, limit: error.limit },
      );
    }
    if (error instanceof IJsonError) {
      throw invalidArgument(`the request body is not valid I-JSON: ${error.message}`, undefined, { offset: error.offset });
    }
    throw error;
  }
  refuseUnsafeIntegers(value);
  return value;
}

/** Routes without a request body refuse any bytes rather than ignore them. */
export function expectEmptyBody(bytes: Uint8Array): void {
  if (bytes.length > 0) throw invalidArgument('this route takes no request body');
}

/** application/json, optionally with parameters; a charset, if given, must be UTF-8 (ambiguity A18). */
function isJsonMediaType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const [mediaType, ...parameters] = contentType.split(';').map((part) => part.trim().toLowerCase());
  if (mediaType !== 'application/json') return false;
  return parameters.every((parameter) => !parameter.startsWith('charset=') || /^charset="?utf-8"?$/.test(parameter));
}

function refuseUnsafeIntegers(value: JsonValue): void {
  // The path is kept as tokens and turned into a pointer only for the refusal: building a
  // pointer string for every value of a large body was a large share of its cost.
  const path: (string | number)[] = [];
  const walk = (node: JsonValue): void => {
    if (typeof node === 'number') {
      if (Number.isInteger(node) && !Number.isSafeInteger(node)) {
        const pointer = path.reduce<string>((base, token) => appendPointer(base, token), '');
        throw invalidArgument(`${pointer || 'the body'} is an integer beyond ±(2^53-1), which is not interoperable`, pointer);
      }
    } else if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index++) {
        path.push(index);
        walk(node[index]!);
        path.pop();
      }
    } else if (isJsonObject(node)) {
      for (const member of Object.keys(node)) {
        path.push(member);
        walk(node[member]!);
        path.pop();
      }
    }
  };
  walk(value);
}
