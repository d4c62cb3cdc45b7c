// cty's msgpack encoding of Terraform values (protocol notes §3.2–§3.3), driven by the
// schema type: the same bytes mean different things for different types (a msgpack string
// is a decimal for a `number`, a two-element array is a type+value pair for `dynamic`),
// objects must carry exactly their attributes, and any extension type means "unknown".
// @msgpack/msgpack does the byte-level work; this module owns the typing rules.
import { Decoder, Encoder, ExtData } from '@msgpack/msgpack';
import { TfNumber } from './tf-number.js';
import { typeFromJson, typeToJson, type TfType } from './tf-type.js';
import { TfDynamic, Unknown, UNKNOWN, type Refinements, type TfValue } from './tf-value.js';

/** A step down to a bad value: an attribute name, a list index, or a map key. */
export type ValuePathStep = string | number | { readonly key: string };

export class ValueCodecError extends Error {
  override readonly name = 'ValueCodecError';
  constructor(
    message: string,
    /** Attribute path steps (names, indices, map keys) down to the bad value. */
    readonly path: readonly ValuePathStep[],
  ) {
    super(path.length ? `${formatPath(path)}: ${message}` : message);
  }
}

function formatPath(path: readonly ValuePathStep[]): string {
  return path.map((s) => (typeof s === 'number' ? `[${s}]` : typeof s === 'string' ? `[${JSON.stringify(s)}]` : `[${JSON.stringify(s.key)}]`)).join('');
}

// One decoder and one encoder per process: core sends thousands of values per command, and a
// fresh Decoder/Encoder per value allocates buffers and loses the decoder's key cache. Both
// are safe to share (synchronous; a re-entrant call gets a clone from the library).
const decoder = new Decoder({ useBigInt64: true });
const rawEncoder = new Encoder({ useBigInt64: true, forceFloat32: false, ignoreUndefined: false });

// Object attributes are written in sorted order (deterministic bytes, as cty writes them). The
// order is computed once per object type instead of the encoder sorting every map it writes.
const sortedNames = new WeakMap<object, readonly string[]>();
function attributeNames(attributes: Readonly<Record<string, TfType>>): readonly string[] {
  let names = sortedNames.get(attributes);
  if (!names) {
    names = Object.keys(attributes).sort();
    sortedNames.set(attributes, names);
  }
  return names;
}

// Paths: `path` is one mutable stack, pushed and popped around each step and copied only into
// an error (`at(path)`); a fresh array per value was a large share of decoding and encoding.
const at = (path: readonly ValuePathStep[]): ValuePathStep[] => [...path];

const UNKNOWN_EXT = 0;
const REFINED_UNKNOWN_EXT = 12;

// ---------- decoding ----------

type Raw = unknown;

export function decodeMsgpack(bytes: Uint8Array, type: TfType): TfValue {
  let raw: Raw;
  try {
    raw = decoder.decode(bytes);
  } catch (e) {
    throw new ValueCodecError(`invalid msgpack: ${(e as Error).message}`, []);
  }
  return fromRaw(raw, type, []);
}

function fromRaw(raw: Raw, type: TfType, path: ValuePathStep[]): TfValue {
  if (raw === null || raw === undefined) return null;
  if (raw instanceof ExtData) return unknownFromExt(raw);
  switch (type.kind) {
    case 'string':
      if (typeof raw === 'string') return raw;
      if (raw instanceof Uint8Array) return new TextDecoder().decode(raw);
      throw new ValueCodecError('string is required', at(path));
    case 'bool':
      if (typeof raw === 'boolean') return raw;
      throw new ValueCodecError('bool is required', at(path));
    case 'number':
      if (typeof raw === 'number' || typeof raw === 'bigint') return TfNumber.of(raw);
      if (typeof raw === 'string') {
        try {
          return TfNumber.fromDecimal(raw);
        } catch {
          throw new ValueCodecError(`number is required, got ${JSON.stringify(raw)}`, at(path));
        }
      }
      throw new ValueCodecError('number is required', at(path));
    case 'list':
    case 'set':
    case 'tuple': {
      if (type.kind === 'tuple' && (!Array.isArray(raw) || raw.length !== type.elements.length)) {
        throw new ValueCodecError(`tuple of ${type.elements.length} elements is required`, at(path));
      }
      if (!Array.isArray(raw)) throw new ValueCodecError(`${type.kind} is required`, at(path));
      const out = new Array<TfValue>(raw.length);
      for (let i = 0; i < raw.length; i++) {
        path.push(i);
        out[i] = fromRaw(raw[i], type.kind === 'tuple' ? type.elements[i]! : type.element, path);
        path.pop();
      }
      return out;
    }
    case 'map': {
      if (!isRawMap(raw)) throw new ValueCodecError('map is required', at(path));
      const out = Object.create(null) as Record<string, TfValue>;
      for (const k of Object.keys(raw)) {
        // A map element is reached by key, not by attribute name (core's path steps differ).
        path.push({ key: k });
        out[k] = fromRaw(raw[k], type.element, path);
        path.pop();
      }
      return out;
    }
    case 'object': {
      if (!isRawMap(raw)) throw new ValueCodecError('object is required', at(path));
      const attributes = type.attributes;
      const names = attributeNames(attributes);
      const got = Object.keys(raw);
      if (got.length !== names.length || !got.every((k) => Object.hasOwn(attributes, k))) {
        throw new ValueCodecError(`an object with ${names.length} attributes is required (${got.length} given)`, at(path));
      }
      const out = Object.create(null) as Record<string, TfValue>;
      for (const n in attributes) {
        path.push(n);
        out[n] = fromRaw(raw[n], attributes[n]!, path);
        path.pop();
      }
      return out;
    }
    case 'dynamic': {
      if (!Array.isArray(raw) || raw.length !== 2) throw new ValueCodecError('dynamic value must be [type, value]', at(path));
      const [typeBytes, inner] = raw as [unknown, unknown];
      const typeText = typeof typeBytes === 'string' ? typeBytes : typeBytes instanceof Uint8Array ? new TextDecoder().decode(typeBytes) : undefined;
      if (typeText === undefined) throw new ValueCodecError('dynamic value type must be bytes', at(path));
      let innerType: TfType;
      try {
        innerType = typeFromJson(JSON.parse(typeText));
      } catch (e) {
        throw new ValueCodecError(`invalid dynamic type: ${(e as Error).message}`, at(path));
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
    payload = decoder.decode(data);
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
  return rawEncoder.encode(toRaw(value, type, []));
}

const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

function toRaw(value: TfValue, type: TfType, path: ValuePathStep[]): unknown {
  if (value === null) return null;
  if (value instanceof Unknown) return unknownExt(value, type);
  switch (type.kind) {
    case 'string':
      if (typeof value !== 'string') throw new ValueCodecError('string is required', at(path));
      return value;
    case 'bool':
      if (typeof value !== 'boolean') throw new ValueCodecError('bool is required', at(path));
      return value;
    case 'number': {
      if (!(value instanceof TfNumber)) throw new ValueCodecError('number is required', at(path));
      const raw = value.raw;
      if (typeof raw === 'number') return raw; // integers encode as ints, others as float64
      if (typeof raw === 'bigint') return raw >= INT64_MIN && raw <= UINT64_MAX ? raw : raw.toString();
      return raw; // decimal text: core parses a msgpack string as a decimal number
    }
    case 'list':
    case 'set':
    case 'tuple': {
      if (!Array.isArray(value) || (type.kind === 'tuple' && value.length !== type.elements.length)) {
        throw new ValueCodecError(`${type.kind} is required`, at(path));
      }
      const out = new Array<unknown>(value.length);
      for (let i = 0; i < value.length; i++) {
        path.push(i);
        out[i] = toRaw(value[i]!, type.kind === 'tuple' ? type.elements[i]! : type.element, path);
        path.pop();
      }
      return out;
    }
    case 'map': {
      if (!isPlainObject(value)) throw new ValueCodecError('map is required', at(path));
      const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
      for (const k of Object.keys(value).sort()) {
        path.push({ key: k });
        out[k] = toRaw(value[k]!, type.element, path);
        path.pop();
      }
      return out;
    }
    case 'object': {
      if (!isPlainObject(value)) throw new ValueCodecError('object is required', at(path));
      // Exactly one entry per attribute, in sorted order: a missing attribute is written as null.
      const attributes = type.attributes;
      const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
      for (const name of attributeNames(attributes)) {
        path.push(name);
        out[name] = toRaw(value[name] ?? null, attributes[name]!, path);
        path.pop();
      }
      for (const k in value) {
        if (!Object.hasOwn(attributes, k)) throw new ValueCodecError(`unexpected attribute ${JSON.stringify(k)}`, at(path));
      }
      return out;
    }
    case 'dynamic': {
      if (!(value instanceof TfDynamic)) throw new ValueCodecError('dynamic value needs its concrete type', at(path));
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
    parts.push(rawEncoder.encode(v));
  }
  return Buffer.concat(parts);
}

function numberRaw(n: TfNumber): unknown {
  return n.raw;
}
