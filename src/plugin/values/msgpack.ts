// cty's msgpack encoding of Terraform values (protocol notes §3.2–§3.3), driven by the
// schema type: the same bytes mean different things for different types (a msgpack string
// is a decimal for a `number`, a two-element array is a type+value pair for `dynamic`),
// objects must carry exactly their attributes, and any extension type means "unknown".
// @msgpack/msgpack does the byte-level work; this module owns the typing rules.
import { decode, encode, ExtData } from '@msgpack/msgpack';
import { TfNumber } from './tf-number.js';
import { typeFromJson, typeToJson, type TfType } from './tf-type.js';
import { objectValue, TfDynamic, Unknown, UNKNOWN, type Refinements, type TfValue } from './tf-value.js';

export class ValueCodecError extends Error {
  override readonly name = 'ValueCodecError';
  constructor(
    message: string,
    /** Attribute path steps (names and keys/indices) down to the bad value. */
    readonly path: readonly (string | number)[],
  ) {
    super(path.length ? `${formatPath(path)}: ${message}` : message);
  }
}

function formatPath(path: readonly (string | number)[]): string {
  return path.map((s) => (typeof s === 'number' ? `[${s}]` : `[${JSON.stringify(s)}]`)).join('');
}

const UNKNOWN_EXT = 0;
const REFINED_UNKNOWN_EXT = 12;

// ---------- decoding ----------

type Raw = unknown;

export function decodeMsgpack(bytes: Uint8Array, type: TfType): TfValue {
  let raw: Raw;
  try {
    raw = decode(bytes, { useBigInt64: true });
  } catch (e) {
    throw new ValueCodecError(`invalid msgpack: ${(e as Error).message}`, []);
  }
  return fromRaw(raw, type, []);
}

function fromRaw(raw: Raw, type: TfType, path: (string | number)[]): TfValue {
  if (raw === null || raw === undefined) return null;
  if (raw instanceof ExtData) return unknownFromExt(raw);
  switch (type.kind) {
    case 'string':
      if (typeof raw === 'string') return raw;
      if (raw instanceof Uint8Array) return new TextDecoder().decode(raw);
      throw new ValueCodecError('string is required', path);
    case 'bool':
      if (typeof raw === 'boolean') return raw;
      throw new ValueCodecError('bool is required', path);
    case 'number':
      if (typeof raw === 'number' || typeof raw === 'bigint') return TfNumber.of(raw);
      if (typeof raw === 'string') {
        try {
          return TfNumber.fromDecimal(raw);
        } catch {
          throw new ValueCodecError(`number is required, got ${JSON.stringify(raw)}`, path);
        }
      }
      throw new ValueCodecError('number is required', path);
    case 'list':
    case 'set':
      if (!Array.isArray(raw)) throw new ValueCodecError(`${type.kind} is required`, path);
      return raw.map((item, i) => fromRaw(item, type.element, [...path, i]));
    case 'tuple':
      if (!Array.isArray(raw) || raw.length !== type.elements.length) {
        throw new ValueCodecError(`tuple of ${type.elements.length} elements is required`, path);
      }
      return raw.map((item, i) => fromRaw(item, type.elements[i]!, [...path, i]));
    case 'map': {
      if (!isRawMap(raw)) throw new ValueCodecError('map is required', path);
      return objectValue(Object.entries(raw).map(([k, v]) => [k, fromRaw(v, type.element, [...path, k])] as const));
    }
    case 'object': {
      if (!isRawMap(raw)) throw new ValueCodecError('object is required', path);
      const names = Object.keys(type.attributes);
      const got = Object.keys(raw);
      if (got.length !== names.length || !got.every((k) => k in type.attributes)) {
        throw new ValueCodecError(`an object with ${names.length} attributes is required (${got.length} given)`, path);
      }
      return objectValue(names.map((n) => [n, fromRaw(raw[n], type.attributes[n]!, [...path, n])] as const));
    }
    case 'dynamic': {
      if (!Array.isArray(raw) || raw.length !== 2) throw new ValueCodecError('dynamic value must be [type, value]', path);
      const [typeBytes, inner] = raw as [unknown, unknown];
      const typeText = typeof typeBytes === 'string' ? typeBytes : typeBytes instanceof Uint8Array ? new TextDecoder().decode(typeBytes) : undefined;
      if (typeText === undefined) throw new ValueCodecError('dynamic value type must be bytes', path);
      let innerType: TfType;
      try {
        innerType = typeFromJson(JSON.parse(typeText));
      } catch (e) {
        throw new ValueCodecError(`invalid dynamic type: ${(e as Error).message}`, path);
      }
      return new TfDynamic(innerType, fromRaw(inner, innerType, path));
    }
  }
}

function isRawMap(raw: Raw): raw is Record<string, Raw> {
  return typeof raw === 'object' && raw !== null && !Array.isArray(raw) && !(raw instanceof Uint8Array) && !(raw instanceof ExtData);
}

function unknownFromExt(ext: ExtData): Unknown {
  // Every extension type is "unknown"; only type 12 carries refinements worth reading, and
  // a payload of 0 or 1 byte is an unrefined unknown whatever its type code.
  const data = ext.data instanceof Uint8Array ? ext.data : undefined;
  if (ext.type !== REFINED_UNKNOWN_EXT || !data || data.length <= 1) return UNKNOWN;
  let payload: unknown;
  try {
    payload = decode(data, { useBigInt64: true });
  } catch {
    return UNKNOWN;
  }
  if (!isRawMap(payload)) return UNKNOWN;
  const r: { -readonly [K in keyof Refinements]: Refinements[K] } = {};
  const get = (k: number): unknown => payload[String(k)];
  if (get(1) === false) r.notNull = true;
  if (typeof get(2) === 'string') r.stringPrefix = get(2) as string;
  const bound = (v: unknown) => {
    if (!Array.isArray(v) || v.length !== 2) return undefined;
    const [n, inclusive] = v as [unknown, unknown];
    const num = typeof n === 'number' || typeof n === 'bigint' ? TfNumber.of(n) : typeof n === 'string' ? safeDecimal(n) : undefined;
    return num && typeof inclusive === 'boolean' ? { value: num, inclusive } : undefined;
  };
  const lower = bound(get(3));
  const upper = bound(get(4));
  if (lower) r.numberLower = lower;
  if (upper) r.numberUpper = upper;
  if (typeof get(5) === 'number') r.lengthLower = get(5) as number;
  if (typeof get(6) === 'number') r.lengthUpper = get(6) as number;
  return Object.keys(r).length ? new Unknown(r) : UNKNOWN;
}

function safeDecimal(text: string): TfNumber | undefined {
  try {
    return TfNumber.fromDecimal(text);
  } catch {
    return undefined;
  }
}

// ---------- encoding ----------

export function encodeMsgpack(value: TfValue, type: TfType): Uint8Array {
  return encode(toRaw(value, type, []), { useBigInt64: true, forceFloat32: false, sortKeys: true, ignoreUndefined: false });
}

const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

function toRaw(value: TfValue, type: TfType, path: (string | number)[]): unknown {
  if (value === null) return null;
  if (value instanceof Unknown) return unknownExt(value, type);
  switch (type.kind) {
    case 'string':
      if (typeof value !== 'string') throw new ValueCodecError('string is required', path);
      return value;
    case 'bool':
      if (typeof value !== 'boolean') throw new ValueCodecError('bool is required', path);
      return value;
    case 'number': {
      if (!(value instanceof TfNumber)) throw new ValueCodecError('number is required', path);
      const raw = value.raw;
      if (typeof raw === 'number') return raw; // integers encode as ints, others as float64
      if (typeof raw === 'bigint') return raw >= INT64_MIN && raw <= UINT64_MAX ? raw : raw.toString();
      return raw; // decimal text: core parses a msgpack string as a decimal number
    }
    case 'list':
    case 'set':
      if (!Array.isArray(value)) throw new ValueCodecError(`${type.kind} is required`, path);
      return value.map((v, i) => toRaw(v, type.element, [...path, i]));
    case 'tuple':
      if (!Array.isArray(value) || value.length !== type.elements.length) throw new ValueCodecError('tuple is required', path);
      return value.map((v, i) => toRaw(v, type.elements[i]!, [...path, i]));
    case 'map': {
      if (!isPlainObject(value)) throw new ValueCodecError('map is required', path);
      const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
      for (const [k, v] of Object.entries(value)) out[k] = toRaw(v, type.element, [...path, k]);
      return out;
    }
    case 'object': {
      if (!isPlainObject(value)) throw new ValueCodecError('object is required', path);
      // Exactly one entry per attribute: a missing attribute is written as null.
      const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
      for (const [name, attrType] of Object.entries(type.attributes)) {
        out[name] = toRaw(value[name] ?? null, attrType, [...path, name]);
      }
      for (const k of Object.keys(value)) {
        if (!(k in type.attributes)) throw new ValueCodecError(`unexpected attribute ${JSON.stringify(k)}`, path);
      }
      return out;
    }
    case 'dynamic': {
      if (!(value instanceof TfDynamic)) throw new ValueCodecError('dynamic value needs its concrete type', path);
      const typeBytes = new TextEncoder().encode(JSON.stringify(typeToJson(value.type)));
      return [typeBytes, toRaw(value.value, value.type, path)];
    }
  }
}

function isPlainObject(value: TfValue): value is { readonly [k: string]: TfValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof TfNumber) && !(value instanceof TfDynamic);
}

function unknownExt(value: Unknown, type: TfType): ExtData {
  const r = value.refinements;
  // Refinements on dynamic values are dropped by cty; an empty refinement map must be
  // written as a plain unknown (fixext1 d4 00 00), never as an empty type-12 payload.
  if (type.kind === 'dynamic' || Object.keys(r).length === 0) return new ExtData(UNKNOWN_EXT, new Uint8Array([0]));
  return new ExtData(REFINED_UNKNOWN_EXT, encodeRefinements(r));
}

/**
 * Refinement maps must have integer keys; encoding a JS object would give string keys,
 * which core rejects ("non-integer key in map"), so the map header is written by hand.
 */
function encodeRefinements(r: Refinements): Uint8Array {
  const entries: [number, unknown][] = [];
  if (r.notNull) entries.push([1, false]);
  if (r.stringPrefix !== undefined) entries.push([2, r.stringPrefix]);
  if (r.numberLower) entries.push([3, [numberRaw(r.numberLower.value), r.numberLower.inclusive]]);
  if (r.numberUpper) entries.push([4, [numberRaw(r.numberUpper.value), r.numberUpper.inclusive]]);
  if (r.lengthLower !== undefined) entries.push([5, r.lengthLower]);
  if (r.lengthUpper !== undefined) entries.push([6, r.lengthUpper]);
  const parts: Uint8Array[] = [new Uint8Array([0x80 | entries.length])];
  for (const [k, v] of entries) {
    parts.push(new Uint8Array([k])); // positive fixint
    parts.push(encode(v, { useBigInt64: true }));
  }
  return Buffer.concat(parts);
}

function numberRaw(n: TfNumber): unknown {
  return n.raw;
}
