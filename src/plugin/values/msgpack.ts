// cty's msgpack encoding of Terraform values (protocol notes §3.2–§3.3), driven by the
// schema type: the same bytes mean different things for different types (a msgpack string
// is a decimal for a `number`, a two-element array is a type+value pair for `dynamic`),
// objects must carry exactly their attributes, and any extension type means "unknown".
//
// The bytes are read and written here too, in one pass guided by the type (docs/design.md,
// "Written by hand"). With a general msgpack library every value took two passes — the library
// built or read a plain JS tree, and a second walk applied the typing rules to it — which cost
// about twice as much CPU per value in a provider launch, where most code still runs cold.
// The output is byte for byte what @msgpack/msgpack writes (the tests check it against that
// library, which stays as an independent reference).
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

// Object attributes are written in sorted order (deterministic bytes, as cty writes them). The
// order is computed once per object type.
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

/** Unknown values are extension items: type 0 plain, type 12 with a refinement map. */
const UNKNOWN_EXT = 0;
const REFINED_UNKNOWN_EXT = 12;
/** Deeper than any schema nests; bounds the recursion on hostile input. */
const MAX_DEPTH = 100;

// ---------- writing ----------

/**
 * A growing byte buffer with msgpack's item heads, each in its smallest form, as
 * @msgpack/msgpack writes them (including its one oddity: with 64-bit integers enabled, a safe
 * integer beyond 32 bits is written as float64, which cty reads as the same number).
 */
class Writer {
  buf = Buffer.allocUnsafe(4096);
  pos = 0;
  reset(): void {
    this.pos = 0;
  }
  room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }
  u8(b: number): void {
    this.room(1);
    this.buf[this.pos++] = b;
  }
  nil(): void {
    this.u8(0xc0);
  }
  bool(v: boolean): void {
    this.u8(v ? 0xc3 : 0xc2);
  }
  float64(v: number): void {
    this.room(9);
    this.buf[this.pos] = 0xcb;
    this.buf.writeDoubleBE(v, this.pos + 1);
    this.pos += 9;
  }
  number(v: number): void {
    if (!Number.isSafeInteger(v)) return this.float64(v);
    this.room(5);
    const b = this.buf;
    if (v >= 0) {
      if (v < 0x80) b[this.pos++] = v;
      else if (v < 0x100) ((b[this.pos] = 0xcc), (b[this.pos + 1] = v), (this.pos += 2));
      else if (v < 0x10000) ((b[this.pos] = 0xcd), b.writeUInt16BE(v, this.pos + 1), (this.pos += 3));
      else if (v < 0x100000000) ((b[this.pos] = 0xce), b.writeUInt32BE(v, this.pos + 1), (this.pos += 5));
      else this.float64(v); // as @msgpack/msgpack with useBigInt64: safe integers above 32 bits go as float64
    } else {
      if (v >= -0x20) b[this.pos++] = 0xe0 | (v + 0x20);
      else if (v >= -0x80) ((b[this.pos] = 0xd0), b.writeInt8(v, this.pos + 1), (this.pos += 2));
      else if (v >= -0x8000) ((b[this.pos] = 0xd1), b.writeInt16BE(v, this.pos + 1), (this.pos += 3));
      else if (v >= -0x80000000) ((b[this.pos] = 0xd2), b.writeInt32BE(v, this.pos + 1), (this.pos += 5));
      else this.float64(v);
    }
  }
  bigint(v: bigint): void {
    this.room(9);
    if (v >= 0n) ((this.buf[this.pos] = 0xcf), this.buf.writeBigUInt64BE(v, this.pos + 1));
    else ((this.buf[this.pos] = 0xd3), this.buf.writeBigInt64BE(v, this.pos + 1));
    this.pos += 9;
  }
  string(s: string): void {
    const n = s.length;
    // ASCII fast path: bytes = chars, written in place after a header sized for n.
    if (n < 0x100) {
      const head = n < 32 ? 1 : 2;
      this.room(head + n);
      const b = this.buf;
      const start = this.pos + head;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        b[start + i] = c;
      }
      if (i === n) {
        if (head === 1) b[this.pos] = 0xa0 | n;
        else ((b[this.pos] = 0xd9), (b[this.pos + 1] = n));
        this.pos = start + n;
        return;
      }
    }
    const len = Buffer.byteLength(s, 'utf8');
    this.strHeader(len);
    this.room(len);
    this.buf.write(s, this.pos, len, 'utf8');
    this.pos += len;
  }
  /**
   * A head that carries a length: in the head byte itself below `fixLimit` (0: no such form),
   * else after `code8` (0: no 8-bit form), `code16` or `code32`, in the smallest that holds it.
   */
  private lengthHead(n: number, fix: number, fixLimit: number, code8: number, code16: number, code32: number): void {
    this.room(5);
    const b = this.buf;
    if (n < fixLimit) b[this.pos++] = fix | n;
    else if (code8 !== 0 && n < 0x100) ((b[this.pos] = code8), (b[this.pos + 1] = n), (this.pos += 2));
    else if (n < 0x10000) ((b[this.pos] = code16), b.writeUInt16BE(n, this.pos + 1), (this.pos += 3));
    else ((b[this.pos] = code32), b.writeUInt32BE(n, this.pos + 1), (this.pos += 5));
  }
  private strHeader(len: number): void {
    this.lengthHead(len, 0xa0, 32, 0xd9, 0xda, 0xdb);
  }
  private raw(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }
  bin(bytes: Uint8Array): void {
    this.lengthHead(bytes.length, 0, 0, 0xc4, 0xc5, 0xc6);
    this.raw(bytes);
  }
  arrayHeader(n: number): void {
    this.lengthHead(n, 0x90, 16, 0, 0xdc, 0xdd);
  }
  mapHeader(n: number): void {
    this.lengthHead(n, 0x80, 16, 0, 0xde, 0xdf);
  }
  ext(type: number, data: Uint8Array): void {
    const len = data.length;
    const fix = len === 1 ? 0xd4 : len === 2 ? 0xd5 : len === 4 ? 0xd6 : len === 8 ? 0xd7 : len === 16 ? 0xd8 : 0;
    if (fix) this.u8(fix);
    else this.lengthHead(len, 0, 0, 0xc7, 0xc8, 0xc9);
    this.room(1);
    this.buf.writeInt8(type, this.pos++);
    this.raw(data);
  }
  take(): Uint8Array {
    return Uint8Array.prototype.slice.call(this.buf, 0, this.pos);
  }
}

// One writer per process, its buffer reused: core sends thousands of values per command.
const writer = new Writer();
let writing = false;

export function encodeMsgpack(value: TfValue, type: TfType): Uint8Array {
  // Re-entrant use (an encode inside an encode) gets a writer of its own.
  const w = writing ? new Writer() : writer;
  const outer = !writing;
  writing = true;
  try {
    w.reset();
    write(w, value, type, []);
    return w.take();
  } finally {
    if (outer) writing = false;
  }
}

const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

function write(w: Writer, value: TfValue, type: TfType, path: ValuePathStep[]): void {
  if (value === null) return w.nil();
  if (value instanceof Unknown) return writeUnknown(w, value, type);
  switch (type.kind) {
    case 'string':
      if (typeof value !== 'string') throw new ValueCodecError('string is required', at(path));
      return w.string(value);
    case 'bool':
      if (typeof value !== 'boolean') throw new ValueCodecError('bool is required', at(path));
      return w.bool(value);
    case 'number': {
      if (!(value instanceof TfNumber)) throw new ValueCodecError('number is required', at(path));
      const raw = value.raw;
      if (typeof raw === 'number') return w.number(raw);
      if (typeof raw === 'bigint') return raw >= INT64_MIN && raw <= UINT64_MAX ? w.bigint(raw) : w.string(raw.toString());
      return w.string(raw);
    }
    case 'list':
    case 'set':
    case 'tuple': {
      if (!Array.isArray(value) || (type.kind === 'tuple' && value.length !== type.elements.length)) {
        throw new ValueCodecError(`${type.kind} is required`, at(path));
      }
      w.arrayHeader(value.length);
      for (let i = 0; i < value.length; i++) {
        path.push(i);
        write(w, value[i]!, type.kind === 'tuple' ? type.elements[i]! : type.element, path);
        path.pop();
      }
      return;
    }
    case 'map': {
      if (!isPlainObject(value)) throw new ValueCodecError('map is required', at(path));
      const keys = Object.keys(value).sort();
      w.mapHeader(keys.length);
      for (const k of keys) {
        path.push({ key: k });
        w.string(k);
        write(w, value[k]!, type.element, path);
        path.pop();
      }
      return;
    }
    case 'object': {
      if (!isPlainObject(value)) throw new ValueCodecError('object is required', at(path));
      const attributes = type.attributes;
      for (const k in value) {
        if (!Object.hasOwn(attributes, k)) throw new ValueCodecError(`unexpected attribute ${JSON.stringify(k)}`, at(path));
      }
      const names = attributeNames(attributes);
      w.mapHeader(names.length);
      for (const name of names) {
        path.push(name);
        w.string(name);
        write(w, value[name] ?? null, attributes[name]!, path);
        path.pop();
      }
      return;
    }
    case 'dynamic': {
      if (!(value instanceof TfDynamic)) throw new ValueCodecError('dynamic value needs its concrete type', at(path));
      w.arrayHeader(2);
      w.bin(Buffer.from(JSON.stringify(typeToJson(value.type)), 'utf8'));
      return write(w, value.value, value.type, path);
    }
  }
}

function isPlainObject(value: TfValue): value is { readonly [k: string]: TfValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof TfNumber) && !(value instanceof TfDynamic);
}

const PLAIN_UNKNOWN = new Uint8Array([0]);

/**
 * Refinement maps have integer keys (core refuses string keys: "non-integer key in map").
 * Refinements on dynamic values are dropped by cty, and an empty refinement map must be written
 * as a plain unknown (fixext1 d4 00 00), never as an empty type-12 payload.
 */
function writeUnknown(w: Writer, value: Unknown, type: TfType): void {
  const r = value.refinements;
  if (type.kind === 'dynamic' || Object.keys(r).length === 0) return w.ext(UNKNOWN_EXT, PLAIN_UNKNOWN);
  const inner = new Writer();
  const entries =
    (r.notNull ? 1 : 0) +
    (r.stringPrefix !== undefined ? 1 : 0) +
    (r.numberLower ? 1 : 0) +
    (r.numberUpper ? 1 : 0) +
    (r.lengthLower !== undefined ? 1 : 0) +
    (r.lengthUpper !== undefined ? 1 : 0);
  inner.mapHeader(entries);
  const bound = (k: number, b: { value: TfNumber; inclusive: boolean }) => {
    inner.number(k);
    inner.arrayHeader(2);
    const raw = b.value.raw;
    if (typeof raw === 'number') inner.number(raw);
    else if (typeof raw === 'bigint') inner.bigint(raw);
    else inner.string(raw);
    inner.bool(b.inclusive);
  };
  if (r.notNull) (inner.number(1), inner.bool(false));
  if (r.stringPrefix !== undefined) (inner.number(2), inner.string(r.stringPrefix));
  if (r.numberLower) bound(3, r.numberLower);
  if (r.numberUpper) bound(4, r.numberUpper);
  if (r.lengthLower !== undefined) (inner.number(5), inner.number(r.lengthLower));
  if (r.lengthUpper !== undefined) (inner.number(6), inner.number(r.lengthUpper));
  w.ext(REFINED_UNKNOWN_EXT, inner.take());
}

// ---------- reading ----------

/** Bytes that are not msgpack at all (reported as "invalid msgpack: ..."). */
class MsgpackFormatError extends Error {}
const EMPTY = new Uint8Array(0);

// The kinds of item head() reads into the reader's fields (no object is made per item).
const NIL = 0;
const BOOL = 1;
const NUM = 2;
const STR = 3;
const BIN = 4;
const ARR = 5;
const MAP = 6;
const EXT = 7;

/** A cursor over the bytes, holding the head of the item last read by head(). */
class Reader {
  pos = 0;
  // The head last read by head(): its kind and whichever field that kind uses.
  k = 0;
  flag = false;
  num: number | bigint = 0;
  str = '';
  n = 0;
  extType = 0;
  data: Uint8Array = EMPTY;
  constructor(
    readonly b: Uint8Array,
    readonly v: DataView,
  ) {}
  setNum(x: number | bigint): void {
    this.k = NUM;
    this.num = x;
  }
  setStr(x: string): void {
    this.k = STR;
    this.str = x;
  }
  setBin(x: Uint8Array): void {
    this.k = BIN;
    this.data = x;
  }
  setCount(k: number, n: number): void {
    this.k = k;
    this.n = n;
  }
  setExt(type: number, data: Uint8Array): void {
    this.k = EXT;
    this.extType = type;
    this.data = data;
  }
  need(n: number): void {
    if (this.pos + n > this.b.length) throw new MsgpackFormatError('insufficient data');
  }
  /** Steps over `n` bytes that must be there; returns where they start. */
  advance(n: number): number {
    this.need(n);
    const at = this.pos;
    this.pos += n;
    return at;
  }
  byte(): number {
    return this.b[this.advance(1)]!;
  }
  u16(): number {
    return this.v.getUint16(this.advance(2));
  }
  u32(): number {
    return this.v.getUint32(this.advance(4));
  }
  text(len: number): string {
    const b = this.b;
    const start = this.advance(len);
    // Short ASCII text (names, ids, most values) is built directly; anything else goes through
    // a strict decoder: invalid UTF-8 is refused, never replaced.
    if (len < 64) {
      let s = '';
      for (let i = start; i < start + len; i++) {
        const c = b[i]!;
        if (c >= 0x80) return decodeUtf8(b.subarray(start, start + len));
        s += String.fromCharCode(c);
      }
      return s;
    }
    return decodeUtf8(b.subarray(start, start + len));
  }
  bytes(len: number): Uint8Array {
    const start = this.advance(len);
    return this.b.slice(start, start + len);
  }
}
const utf8 = new TextDecoder('utf-8', { fatal: true });
function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new MsgpackFormatError('a string is not valid UTF-8');
  }
}

function head(r: Reader): void {
  const c = r.byte();
  if (c < 0x80) return r.setNum(c);
  if (c >= 0xe0) return r.setNum(c - 0x100);
  if (c >= 0xa0 && c <= 0xbf) return r.setStr(r.text(c & 0x1f));
  if (c >= 0x90 && c <= 0x9f) return r.setCount(ARR, c & 0x0f);
  if (c >= 0x80 && c <= 0x8f) return r.setCount(MAP, c & 0x0f);
  const v = r.v;
  switch (c) {
    case 0xc0:
      r.k = NIL;
      return;
    case 0xc2:
    case 0xc3:
      r.k = BOOL;
      r.flag = c === 0xc3;
      return;
    case 0xc4:
      return r.setBin(r.bytes(r.byte()));
    case 0xc5:
      return r.setBin(r.bytes(r.u16()));
    case 0xc6:
      return r.setBin(r.bytes(r.u32()));
    case 0xc7:
    case 0xc8:
    case 0xc9:
      return ext(r, c === 0xc7 ? r.byte() : c === 0xc8 ? r.u16() : r.u32());
    case 0xca:
      return r.setNum(v.getFloat32(r.advance(4)));
    case 0xcb:
      return r.setNum(v.getFloat64(r.advance(8)));
    case 0xcc:
      return r.setNum(r.byte());
    case 0xcd:
      return r.setNum(r.u16());
    case 0xce:
      return r.setNum(r.u32());
    case 0xcf:
      return r.setNum(v.getBigUint64(r.advance(8)));
    case 0xd0:
      return r.setNum(v.getInt8(r.advance(1)));
    case 0xd1:
      return r.setNum(v.getInt16(r.advance(2)));
    case 0xd2:
      return r.setNum(v.getInt32(r.advance(4)));
    case 0xd3:
      return r.setNum(v.getBigInt64(r.advance(8)));
    case 0xd4:
    case 0xd5:
    case 0xd6:
    case 0xd7:
    case 0xd8:
      return ext(r, 1 << (c - 0xd4));
    case 0xd9:
      return r.setStr(r.text(r.byte()));
    case 0xda:
      return r.setStr(r.text(r.u16()));
    case 0xdb:
      return r.setStr(r.text(r.u32()));
    case 0xdc:
      return r.setCount(ARR, r.u16());
    case 0xdd:
      return r.setCount(ARR, r.u32());
    case 0xde:
      return r.setCount(MAP, r.u16());
    case 0xdf:
      return r.setCount(MAP, r.u32());
  }
  throw new MsgpackFormatError(`unrecognized type byte 0x${c.toString(16)}`);
}

/** An extension's body: its type byte, then `len` bytes (the length came before the type). */
function ext(r: Reader, len: number): void {
  const type = r.v.getInt8(r.advance(1));
  r.setExt(type, r.bytes(len));
}

/** Reads a map key: a string (cty writes no other kind). */
function key(r: Reader): string {
  head(r);
  if (r.k !== STR) throw new MsgpackFormatError('map key must be a string');
  if (r.str === '__proto__') throw new MsgpackFormatError('the key __proto__ is not allowed');
  return r.str;
}

/** Skips the rest of the item whose head was just read. */
function skip(r: Reader): void {
  const k = r.k;
  const n = r.n;
  if (k === ARR) for (let i = 0; i < n; i++) (head(r), skip(r));
  else if (k === MAP) for (let i = 0; i < 2 * n; i++) (head(r), skip(r));
}

/** The rest of an untyped item whose head was just read (refinement payloads): plain JS. */
function untyped(r: Reader, depth: number): unknown {
  if (depth > MAX_DEPTH) throw new MsgpackFormatError('nesting too deep');
  switch (r.k) {
    case NIL:
      return null;
    case BOOL:
      return r.flag;
    case NUM:
      return r.num;
    case STR:
      return r.str;
    case BIN:
      return r.data;
    case EXT:
      return UNKNOWN;
    case ARR: {
      const n = r.n;
      const out: unknown[] = [];
      for (let i = 0; i < n; i++) (head(r), out.push(untyped(r, depth + 1)));
      return out;
    }
    default: {
      const n = r.n;
      const out = Object.create(null) as Record<string, unknown>;
      for (let i = 0; i < n; i++) {
        head(r);
        const k = r.k === STR ? r.str : r.k === NUM ? String(r.num) : undefined;
        head(r);
        const val = untyped(r, depth + 1);
        if (k !== undefined && k !== '__proto__') out[k] = val;
      }
      return out;
    }
  }
}

export function decodeMsgpack(bytes: Uint8Array, type: TfType): TfValue {
  const r = new Reader(bytes, new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  let value: TfValue;
  try {
    head(r);
    value = read(r, type, [], 0);
    if (r.pos !== bytes.length) throw new MsgpackFormatError(`${bytes.length - r.pos} bytes of trailing data`);
  } catch (e) {
    if (e instanceof MsgpackFormatError) throw new ValueCodecError(`invalid msgpack: ${e.message}`, []);
    throw e;
  }
  return value;
}

/** The rest of the item whose head was just read, as a value of `type`. */
function read(r: Reader, type: TfType, path: ValuePathStep[], depth: number): TfValue {
  if (depth > MAX_DEPTH) throw new MsgpackFormatError('nesting too deep');
  const k = r.k;
  if (k === NIL) return null;
  if (k === EXT) return unknownFromExt(r.extType, r.data);
  switch (type.kind) {
    case 'string':
      if (k === STR) return r.str;
      if (k === BIN) return new TextDecoder().decode(r.data);
      throw new ValueCodecError('string is required', at(path));
    case 'bool':
      if (k === BOOL) return r.flag;
      throw new ValueCodecError('bool is required', at(path));
    case 'number':
      if (k === NUM) return TfNumber.of(r.num);
      if (k === STR) {
        try {
          return TfNumber.fromDecimal(r.str);
        } catch {
          throw new ValueCodecError(`number is required, got ${JSON.stringify(r.str)}`, at(path));
        }
      }
      throw new ValueCodecError('number is required', at(path));
    case 'list':
    case 'set':
    case 'tuple': {
      const n = r.n;
      if (type.kind === 'tuple' && (k !== ARR || n !== type.elements.length)) {
        throw new ValueCodecError(`tuple of ${type.elements.length} elements is required`, at(path));
      }
      if (k !== ARR) throw new ValueCodecError(`${type.kind} is required`, at(path));
      const out = new Array<TfValue>(n);
      for (let i = 0; i < n; i++) {
        path.push(i);
        head(r);
        out[i] = read(r, type.kind === 'tuple' ? type.elements[i]! : type.element, path, depth + 1);
        path.pop();
      }
      return out;
    }
    case 'map': {
      if (k !== MAP) throw new ValueCodecError('map is required', at(path));
      const n = r.n;
      const out = Object.create(null) as Record<string, TfValue>;
      for (let i = 0; i < n; i++) {
        const name = key(r);
        path.push({ key: name });
        head(r);
        out[name] = read(r, type.element, path, depth + 1);
        path.pop();
      }
      return out;
    }
    case 'object': {
      if (k !== MAP) throw new ValueCodecError('object is required', at(path));
      const n = r.n;
      const attributes = type.attributes;
      const names = attributeNames(attributes);
      const out = Object.create(null) as Record<string, TfValue>;
      let distinct = 0;
      for (let i = 0; i < n; i++) {
        const name = key(r);
        head(r);
        if (!Object.hasOwn(attributes, name)) {
          skip(r); // not an attribute: the count check below refuses the object
          continue;
        }
        if (!(name in out)) distinct++;
        path.push(name);
        out[name] = read(r, attributes[name]!, path, depth + 1);
        path.pop();
      }
      if (distinct !== names.length || n !== names.length) {
        throw new ValueCodecError(`an object with ${names.length} attributes is required (${n} given)`, at(path));
      }
      return out;
    }
    case 'dynamic': {
      if (k !== ARR || r.n !== 2) throw new ValueCodecError('dynamic value must be [type, value]', at(path));
      head(r);
      const typeText = r.k === STR ? r.str : r.k === BIN ? new TextDecoder().decode(r.data) : undefined;
      if (typeText === undefined) throw new ValueCodecError('dynamic value type must be bytes', at(path));
      let innerType: TfType;
      try {
        innerType = typeFromJson(JSON.parse(typeText));
      } catch (e) {
        throw new ValueCodecError(`invalid dynamic type: ${(e as Error).message}`, at(path));
      }
      head(r);
      return new TfDynamic(innerType, read(r, innerType, path, depth + 1));
    }
  }
}

function unknownFromExt(extType: number, data: Uint8Array): Unknown {
  // Every extension type is "unknown"; only type 12 carries refinements worth reading, and
  // a payload of 0 or 1 byte is an unrefined unknown whatever its type code.
  if (extType !== REFINED_UNKNOWN_EXT || data.length <= 1) return UNKNOWN;
  let payload: unknown;
  try {
    const pr = new Reader(data, new DataView(data.buffer, data.byteOffset, data.byteLength));
    head(pr);
    payload = untyped(pr, 0);
  } catch {
    return UNKNOWN;
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload) || payload instanceof Uint8Array || payload === UNKNOWN) return UNKNOWN;
  const map = payload as Record<string, unknown>;
  const r: { -readonly [K in keyof Refinements]: Refinements[K] } = {};
  const get = (k: number): unknown => map[String(k)];
  if (get(1) === false) r.notNull = true;
  if (typeof get(2) === 'string') r.stringPrefix = get(2) as string;
  const bound = (v: unknown) => {
    if (!Array.isArray(v) || v.length !== 2) return undefined;
    const [n, inclusive] = v as [unknown, unknown];
    let num: TfNumber | undefined;
    if (typeof n === 'number' || typeof n === 'bigint') num = TfNumber.of(n);
    else if (typeof n === 'string') {
      try {
        num = TfNumber.fromDecimal(n);
      } catch {
        num = undefined;
      }
    }
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
