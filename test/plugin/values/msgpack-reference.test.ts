// The msgpack codec reads and writes bytes itself (src/plugin/values/msgpack.ts says why).
// These tests hold it to an independent implementation, @msgpack/msgpack: for thousands of
// generated values of generated types, our bytes must equal the library's bytes of the same
// tree (sorted object keys, as cty writes them), and our decoding of the library's bytes must
// give the value back. A seeded generator keeps every run the same and every failure
// reproducible.
import { encode, ExtData } from '@msgpack/msgpack';
import { describe, expect, it } from 'vitest';
import { decodeMsgpack, encodeMsgpack, ValueCodecError } from '../../../src/plugin/values/msgpack.js';
import { TfNumber } from '../../../src/plugin/values/tf-number.js';
import { T, typeToJson, type TfType } from '../../../src/plugin/values/tf-type.js';
import { TfDynamic, Unknown, UNKNOWN, type TfValue } from '../../../src/plugin/values/tf-value.js';

/** mulberry32: a small seeded generator. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Case {
  readonly type: TfType;
  readonly value: TfValue;
  /** The same value as the library's plain tree. */
  readonly raw: unknown;
}

const STRINGS = ['', 'a', 'name', 'x'.repeat(31), 'y'.repeat(32), 'z'.repeat(255), 'w'.repeat(256), 'é', 'ü-日本-🙂', 'q'.repeat(70000), '__proto_', 'null'];
const NUMBERS: (number | bigint | string)[] = [
  0,
  1,
  127,
  128,
  255,
  256,
  65535,
  65536,
  2 ** 32 - 1,
  2 ** 32,
  2 ** 53 - 1,
  -1,
  -32,
  -33,
  -128,
  -129,
  -32768,
  -32769,
  -(2 ** 31),
  -(2 ** 31) - 1,
  1.5,
  -0.25,
  1e300,
  2n ** 53n + 1n,
  2n ** 64n - 1n,
  -(2n ** 63n),
  '0.1',
  '12345678901234567890123',
  '-1e-400',
];

function pick<T>(rand: () => number, xs: readonly T[]): T {
  return xs[Math.floor(rand() * xs.length)]!;
}

function randomType(rand: () => number, depth: number): TfType {
  const r = rand();
  if (depth > 3 || r < 0.4) return pick(rand, [T.string, T.number, T.bool]);
  if (r < 0.5) return T.list(randomType(rand, depth + 1));
  if (r < 0.55) return T.set(randomType(rand, depth + 1));
  if (r < 0.65) return T.map(randomType(rand, depth + 1));
  if (r < 0.7) return T.tuple([randomType(rand, depth + 1), randomType(rand, depth + 1)]);
  if (r < 0.75) return T.dynamic;
  const attributes: Record<string, TfType> = {};
  const n = Math.floor(rand() * 18); // across the fixmap/map16 boundary
  for (let i = 0; i < n; i++) attributes[`${pick(rand, ['b', 'a', 'c_d', 'Z'])}${i}`] = randomType(rand, depth + 1);
  return T.object(attributes);
}

function numberRaw(n: number | bigint | string): unknown {
  // What the library is given for a TfNumber: a safe integer or double as is, a bigint in
  // 64 bits as a bigint, anything else as its decimal text.
  if (typeof n === 'bigint') return n >= -(2n ** 63n) && n <= 2n ** 64n - 1n ? n : n.toString();
  return n;
}

function randomCase(rand: () => number, type: TfType, depth = 0): Case {
  const r = rand();
  if (r < 0.08) return { type, value: null, raw: null };
  if (r < 0.13) return { type, value: UNKNOWN, raw: new ExtData(0, new Uint8Array([0])) };
  switch (type.kind) {
    case 'string': {
      const s = pick(rand, STRINGS);
      return { type, value: s, raw: s };
    }
    case 'bool': {
      const b = rand() < 0.5;
      return { type, value: b, raw: b };
    }
    case 'number': {
      const n = pick(rand, NUMBERS);
      const value = typeof n === 'string' ? TfNumber.fromDecimal(n) : TfNumber.of(n);
      return { type, value, raw: numberRaw(value.raw) };
    }
    case 'list':
    case 'set': {
      const n = Math.floor(rand() * (rand() < 0.1 ? 20 : 4)); // across fixarray/array16
      const items = Array.from({ length: n }, () => randomCase(rand, type.element, depth + 1));
      return { type, value: items.map((c) => c.value), raw: items.map((c) => c.raw) };
    }
    case 'tuple': {
      const items = type.elements.map((t) => randomCase(rand, t, depth + 1));
      return { type, value: items.map((c) => c.value), raw: items.map((c) => c.raw) };
    }
    case 'map': {
      const keys = [...new Set(Array.from({ length: Math.floor(rand() * 5) }, () => pick(rand, ['k', 'a', 'é', 'long-'.repeat(9), ''])))].sort();
      const value: Record<string, TfValue> = {};
      const raw: Record<string, unknown> = {};
      for (const k of keys) {
        const c = randomCase(rand, type.element, depth + 1);
        value[k] = c.value;
        raw[k] = c.raw;
      }
      return { type, value, raw };
    }
    case 'object': {
      const value: Record<string, TfValue> = {};
      const raw: Record<string, unknown> = {};
      for (const name of Object.keys(type.attributes).sort()) {
        const c = randomCase(rand, type.attributes[name]!, depth + 1);
        value[name] = c.value;
        raw[name] = c.raw;
      }
      return { type, value, raw };
    }
    case 'dynamic': {
      const inner = randomType(rand, 3);
      const c = randomCase(rand, inner, depth + 1);
      if (c.value instanceof Unknown || c.value === null) return c.value === null ? { type, value: null, raw: null } : { type, value: UNKNOWN, raw: c.raw };
      const typeJson = Buffer.from(JSON.stringify(typeToJson(inner)), 'utf8');
      return { type, value: new TfDynamic(inner, c.value), raw: [new Uint8Array(typeJson), c.raw] };
    }
  }
}

/** Values compared by meaning: numbers by their raw form, unknowns as unknown. */
function comparable(v: TfValue): unknown {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (v instanceof Unknown) return '<unknown>';
  if (v instanceof TfNumber) return { number: String(v.raw) };
  if (v instanceof TfDynamic) return { dynamic: typeToJson(v.type), value: comparable(v.value) };
  if (Array.isArray(v)) return v.map(comparable);
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, comparable(x as TfValue)]));
}

const library = (raw: unknown) => Buffer.from(encode(raw, { useBigInt64: true, forceFloat32: false, ignoreUndefined: false }));

describe('msgpack codec against @msgpack/msgpack', () => {
  it('writes the same bytes as the library and reads the library’s bytes back, for 3000 generated values', () => {
    const rand = generator(20261201);
    for (let i = 0; i < 3000; i++) {
      const type = randomType(rand, 0);
      const c = randomCase(rand, type);
      const ours = Buffer.from(encodeMsgpack(c.value, type));
      const theirs = library(c.raw);
      if (!ours.equals(theirs)) {
        let at = 0;
        while (ours[at] === theirs[at]) at++;
        const window = (b: Buffer) => b.subarray(Math.max(0, at - 16), at + 16).toString('hex');
        throw new Error(`case ${i}: bytes differ at ${at} of ${theirs.length}\nours   …${window(ours)}\ntheirs …${window(theirs)}`);
      }
      expect(comparable(decodeMsgpack(theirs, type)), `case ${i}`).toEqual(comparable(c.value));
    }
  });

  it('refuses malformed bytes with a codec error, never another exception', () => {
    const type = T.object({ a: T.string, b: T.list(T.number), c: T.map(T.bool) });
    const good = Buffer.from(encodeMsgpack({ a: 'x', b: [TfNumber.of(1)], c: { k: true } }, type));
    const rand = generator(7);
    const cases: Buffer[] = [Buffer.alloc(0), Buffer.from([0xc1]), Buffer.from([0x91]), Buffer.from('a3c3a9', 'hex'), Buffer.from('a2ffff', 'hex')];
    for (let n = 1; n < good.length; n++) cases.push(good.subarray(0, n)); // every truncation
    cases.push(Buffer.concat([good, Buffer.from([0xc0])])); // trailing data
    for (let i = 0; i < 500; i++) {
      const b = Buffer.from(good);
      b[Math.floor(rand() * b.length)] = Math.floor(rand() * 256);
      cases.push(b);
    }
    for (const b of cases) {
      try {
        decodeMsgpack(b, type);
      } catch (e) {
        if (!(e instanceof ValueCodecError)) throw new Error(`${b.toString('hex')}: ${String(e)}`);
      }
    }
    expect(() => decodeMsgpack(Buffer.from('a2ffff', 'hex'), T.string)).toThrow('invalid msgpack: a string is not valid UTF-8');
    expect(() => decodeMsgpack(Buffer.concat([good, Buffer.from([0xc0])]), type)).toThrow('invalid msgpack: 1 bytes of trailing data');
    expect(() => decodeMsgpack(good.subarray(0, 5), type)).toThrow(/^invalid msgpack: insufficient data$/);
  });

  it('refuses an object with a duplicate or a foreign attribute, naming the object', () => {
    const type = T.object({ a: T.string, b: T.string });
    const dup = Buffer.from('83a161a178a161a179a162a17a', 'hex'); // {a:x, a:y, b:z}
    expect(() => decodeMsgpack(dup, type)).toThrow('an object with 2 attributes is required (3 given)');
    const foreign = library({ a: 'x', c: 'y' });
    expect(() => decodeMsgpack(foreign, type)).toThrow('an object with 2 attributes is required (2 given)');
  });
});
