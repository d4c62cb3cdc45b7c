import { describe, expect, it } from 'vitest';
import { decodeMsgpack, encodeMsgpack, ValueCodecError } from '../../../src/plugin/values/msgpack.js';
import { TfNumber } from '../../../src/plugin/values/tf-number.js';
import { T } from '../../../src/plugin/values/tf-type.js';
import { objectValue, TfDynamic, Unknown, UNKNOWN } from '../../../src/plugin/values/tf-value.js';

const hex = (b: Uint8Array) =>
  Buffer.from(b)
    .toString('hex')
    .replace(/(..)(?!$)/g, '$1 ');
const bytes = (h: string) => new Uint8Array(Buffer.from(h.replace(/ /g, ''), 'hex'));

// Golden vectors from shared/spec/terraform-plugin-protocol.md §3.6 (derived from go-cty).
describe('golden vectors', () => {
  it('plain unknown is fixext1 type 0', () => {
    expect(hex(encodeMsgpack(UNKNOWN, T.string))).toBe('d4 00 00');
  });
  it('object with an unknown attribute', () => {
    const type = T.object({ id: T.string, name: T.string });
    const encoded = encodeMsgpack(
      objectValue([
        ['name', 'x'],
        ['id', UNKNOWN],
      ]),
      type,
    );
    expect(hex(encoded)).toBe('82 a2 69 64 d4 00 00 a4 6e 61 6d 65 a1 78');
    const decoded = decodeMsgpack(encoded, type) as Record<string, unknown>;
    expect(decoded.name).toBe('x');
    expect(decoded.id).toBeInstanceOf(Unknown);
  });
  it('string in a dynamic slot', () => {
    const encoded = encodeMsgpack(new TfDynamic(T.string, 'hi'), T.dynamic);
    expect(hex(encoded)).toBe('92 c4 08 22 73 74 72 69 6e 67 22 a2 68 69');
    const decoded = decodeMsgpack(encoded, T.dynamic);
    expect(decoded).toBeInstanceOf(TfDynamic);
    expect((decoded as TfDynamic).value).toBe('hi');
  });
  it('refined unknown string, not null, prefix "ab"', () => {
    const golden = bytes('c7 07 0c 82 01 c2 02 a2 61 62');
    const decoded = decodeMsgpack(golden, T.string) as Unknown;
    expect(decoded).toBeInstanceOf(Unknown);
    expect(decoded.refinements).toEqual({ notNull: true, stringPrefix: 'ab' });
    expect(hex(encodeMsgpack(decoded, T.string))).toBe('c7 07 0c 82 01 c2 02 a2 61 62');
  });
  it('number 0.1 as sent by core is a decimal string and is echoed unchanged', () => {
    const decoded = decodeMsgpack(bytes('a3 30 2e 31'), T.number) as TfNumber;
    expect(decoded.toDecimalString()).toBe('0.1');
    expect(hex(encodeMsgpack(decoded, T.number))).toBe('a3 30 2e 31');
  });
  it('number 1.5 is float64', () => {
    expect(hex(encodeMsgpack(TfNumber.of(1.5), T.number))).toBe('cb 3f f8 00 00 00 00 00 00');
    expect((decodeMsgpack(bytes('cb 3f f8 00 00 00 00 00 00'), T.number) as TfNumber).toNumber()).toBe(1.5);
  });
});

describe('numbers are lossless', () => {
  it('2^53+1 arrives as uint64 and is written back as the same integer', () => {
    const wire = bytes('cf 00 20 00 00 00 00 00 01');
    const n = decodeMsgpack(wire, T.number) as TfNumber;
    expect(n.toDecimalString()).toBe('9007199254740993');
    expect(hex(encodeMsgpack(n, T.number))).toBe('cf 00 20 00 00 00 00 00 01');
  });
  it('integers beyond 64 bits and huge values stay decimal text', () => {
    const big = '1' + '0'.repeat(400);
    const n = decodeMsgpack(encodeMsgpack(TfNumber.fromDecimal(big), T.number), T.number) as TfNumber;
    expect(n.toDecimalString()).toBe(big);
    const beyond = TfNumber.fromDecimal('12345678901234567891');
    expect((decodeMsgpack(encodeMsgpack(beyond, T.number), T.number) as TfNumber).equals(beyond)).toBe(true);
  });
  it('small integers use the smallest int encoding', () => {
    expect(hex(encodeMsgpack(TfNumber.of(3), T.number))).toBe('03');
    expect(hex(encodeMsgpack(TfNumber.of(-1), T.number))).toBe('ff');
  });
  it('equality compares decimal values, not spellings', () => {
    expect(TfNumber.fromDecimal('1.50').equals(TfNumber.of(1.5))).toBe(true);
    expect(TfNumber.fromDecimal('100').equals(TfNumber.of(100))).toBe(true);
    expect(TfNumber.of(0.1).toDecimalString()).toBe('0.1');
    expect(TfNumber.of(1e21).toDecimalString()).toBe('1' + '0'.repeat(21));
  });
});

describe('unknowns', () => {
  it('any extension type is read as unknown', () => {
    expect(decodeMsgpack(bytes('d4 05 00'), T.string)).toBeInstanceOf(Unknown);
    expect(decodeMsgpack(bytes('c7 00 00'), T.number)).toBeInstanceOf(Unknown);
    expect(decodeMsgpack(bytes('d4 0c 00'), T.bool)).toBeInstanceOf(Unknown);
  });
  it('unknown in a dynamic slot has no type wrapper and drops refinements', () => {
    expect(hex(encodeMsgpack(new Unknown({ notNull: true }), T.dynamic))).toBe('d4 00 00');
  });
  it('number bound refinements are read', () => {
    // {1: false, 3: [0, true]}
    const payload = bytes('82 01 c2 03 92 00 c3');
    const ext = Buffer.concat([Buffer.from([0xc7, payload.length, 0x0c]), Buffer.from(payload)]);
    const u = decodeMsgpack(ext, T.number) as Unknown;
    expect(u.refinements.notNull).toBe(true);
    expect(u.refinements.numberLower?.value.toDecimalString()).toBe('0');
    expect(u.refinements.numberLower?.inclusive).toBe(true);
  });
});

describe('objects and collections', () => {
  const type = T.object({ a: T.string, b: T.list(T.number), c: T.map(T.bool) });
  it('round-trips and writes missing attributes as null', () => {
    const value = objectValue([
      ['a', 'x'],
      ['b', [TfNumber.of(1), TfNumber.of(2)]],
    ]);
    const decoded = decodeMsgpack(encodeMsgpack(value, type), type) as Record<string, unknown>;
    expect(decoded.a).toBe('x');
    expect(decoded.c).toBeNull();
    expect((decoded.b as TfNumber[]).map((n) => n.toNumber())).toEqual([1, 2]);
  });
  it('refuses an object with missing attributes, naming the path', () => {
    const wrong = encodeMsgpack(objectValue([['a', 'x']]), T.object({ a: T.string }));
    expect(() => decodeMsgpack(wrong, type)).toThrow(ValueCodecError);
    expect(() => decodeMsgpack(wrong, type)).toThrow(/an object with 3 attributes is required \(1 given\)/);
  });
  it('refuses a wrong primitive with the attribute path', () => {
    const wrong = encodeMsgpack(
      objectValue([
        ['a', 'x'],
        ['b', ['nope']],
        ['c', null],
      ]),
      T.object({ a: T.string, b: T.list(T.string), c: T.map(T.bool) }),
    );
    expect(() => decodeMsgpack(wrong, type)).toThrow(/\["b"\]\[0\]: number is required/);
  });
  it('refuses a "__proto__" map key with a codec error instead of polluting prototypes', () => {
    // @msgpack/msgpack refuses this key outright; we surface it as a clean codec error.
    const mapType = T.map(T.string);
    expect(() => decodeMsgpack(bytes('81 a9 5f 5f 70 72 6f 74 6f 5f 5f a1 76'), mapType)).toThrow(ValueCodecError);
  });
});
