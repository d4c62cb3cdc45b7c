// A strict I-JSON (RFC 7493) reader. JSON.parse silently keeps the last of two duplicate
// members, accepts lone surrogate escapes and turns 1e400 into Infinity; Host API v1 says
// all of those are protocol errors (wire reference §2.4), in requests and in responses.
// So we validate the raw text first and only then hand it to JSON.parse.

export const MAX_JSON_DEPTH = 256;

export class IJsonError extends Error {
  override readonly name = 'IJsonError';
  /** Byte-independent character offset in the text where the problem was found. */
  readonly offset: number;
  constructor(message: string, offset: number) {
    super(`${message} at offset ${offset}`);
    this.offset = offset;
  }
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Decodes UTF-8 strictly (invalid sequences are refused, never replaced). */
export function decodeUtf8Strict(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw new IJsonError('invalid UTF-8', 0);
  }
}

/**
 * Parses `input` as one I-JSON document or throws IJsonError saying what is wrong. `maxValues`
 * bounds the JSON values (objects, arrays, strings, numbers, literals) the document may hold; the
 * scan stops at the first value over it, so a refused document costs no more than an allowed one.
 */
export function parseIJson(input: string | Uint8Array, maxDepth = MAX_JSON_DEPTH, maxValues = Number.POSITIVE_INFINITY): unknown {
  const text = typeof input === 'string' ? input : decodeUtf8Strict(input);
  const parsed = parseIfPlain(text, maxDepth, maxValues);
  if (parsed !== NOT_PLAIN) return parsed;
  // Something to refuse, or to look at closely: the scan says what and where.
  new Validator(text, maxDepth, maxValues).document();
  return JSON.parse(text) as unknown;
}

// ---------- the fast path ----------
//
// Most documents are plain: JSON.parse (native) reads them, and what it would let through —
// a duplicate member, a lone surrogate, a number beyond binary64, negative zero, too deep or
// too many values — is checked on its result and with two native regular expressions over
// the text. Anything unusual goes to the scan below, which refuses it with the offset (or
// accepts it, as for a surrogate pair). Both paths accept exactly the same documents.

const NOT_PLAIN = Symbol('not plain');
/** A string token, or a colon outside strings (one per object member in valid JSON). */
const STRING_OR_COLON = /"(?:[^"\\]|\\.)*"|:/g;
/** Any surrogate, escaped or raw: pairs are fine, but the scan decides. */
const SURROGATE = /\\u[dD][89a-fA-F]|[\uD800-\uDFFF]/;

function parseIfPlain(text: string, maxDepth: number, maxValues: number): unknown {
  if (SURROGATE.test(text)) return NOT_PLAIN;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return NOT_PLAIN;
  }
  const count = { members: 0, values: 0 };
  if (!plainValue(value, 0, maxDepth, maxValues, count)) return NOT_PLAIN;
  // Fewer members parsed than written: two had one name (JSON.parse keeps the last).
  let colons = 0;
  STRING_OR_COLON.lastIndex = 0;
  for (let m = STRING_OR_COLON.exec(text); m; m = STRING_OR_COLON.exec(text)) if (m[0] === ':') colons++;
  return colons === count.members ? value : NOT_PLAIN;
}

/** Checks one parsed value and counts its members and values; false: look closely. */
function plainValue(v: unknown, depth: number, maxDepth: number, maxValues: number, count: { members: number; values: number }): boolean {
  if (++count.values > maxValues) return false;
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0);
  if (typeof v !== 'object' || v === null) return true;
  if (depth + 1 > maxDepth) return false;
  if (Array.isArray(v)) {
    for (const item of v) if (!plainValue(item, depth + 1, maxDepth, maxValues, count)) return false;
    return true;
  }
  const o = v as Record<string, unknown>;
  for (const k in o) {
    count.members++;
    if (!plainValue(o[k], depth + 1, maxDepth, maxValues, count)) return false;
  }
  return true;
}

/** Thrown (as an IJsonError) when a document holds more values than allowed. */
export class IJsonTooManyValues extends IJsonError {
  constructor(
    readonly limit: number,
    offset: number,
  ) {
    super(`more than ${limit} JSON values`, offset);
  }
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

class Validator {
  private pos = 0;
  private values = 0;
  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
    private readonly maxValues: number,
  ) {}

  document(): void {
    this.ws();
    this.value(0);
    this.ws();
    if (this.pos !== this.text.length) this.fail('trailing data after the JSON value');
  }

  private fail(message: string): never {
    throw new IJsonError(message, this.pos);
  }

  private ws(): void {
    const t = this.text;
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) this.pos++;
      else break;
    }
  }

  private value(depth: number): void {
    this.values += 1;
    if (this.values > this.maxValues) throw new IJsonTooManyValues(this.maxValues, this.pos);
    const c = this.text[this.pos];
    if (c === '{') return this.object(depth + 1);
    if (c === '[') return this.array(depth + 1);
    if (c === '"') {
      this.string();
      return;
    }
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
    for (const word of ['true', 'false', 'null']) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return;
      }
    }
    this.fail(c === undefined ? 'unexpected end of input' : `unexpected character ${JSON.stringify(c)}`);
  }

  private object(depth: number): void {
    if (depth > this.maxDepth) this.fail(`nesting deeper than ${this.maxDepth}`);
    this.pos++;
    const names = new Set<string>();
    this.ws();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return;
    }
    for (;;) {
      this.ws();
      if (this.text[this.pos] !== '"') this.fail('expected a member name');
      const start = this.pos;
      const name = this.string();
      if (names.has(name)) {
        this.pos = start;
        this.fail(`duplicate member ${JSON.stringify(name)}`);
      }
      names.add(name);
      this.ws();
      if (this.text[this.pos] !== ':') this.fail('expected ":"');
      this.pos++;
      this.ws();
      this.value(depth);
      this.ws();
      const c = this.text[this.pos];
      this.pos++;
      if (c === '}') return;
      if (c !== ',') {
        this.pos--;
        this.fail('expected "," or "}"');
      }
    }
  }

  private array(depth: number): void {
    if (depth > this.maxDepth) this.fail(`nesting deeper than ${this.maxDepth}`);
    this.pos++;
    this.ws();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return;
    }
    for (;;) {
      this.ws();
      this.value(depth);
      this.ws();
      const c = this.text[this.pos];
      this.pos++;
      if (c === ']') return;
      if (c !== ',') {
        this.pos--;
        this.fail('expected "," or "]"');
      }
    }
  }

  /** Validates a string token and returns its decoded value (needed for duplicate checks). */
  private string(): string {
    const t = this.text;
    const start = this.pos;
    this.pos++;
    let simple = true;
    for (;;) {
      if (this.pos >= t.length) this.fail('unterminated string');
      const code = t.charCodeAt(this.pos);
      if (code === 0x22) break;
      if (code < 0x20) this.fail('control character in string');
      if (code === 0x5c) {
        simple = false;
        const e = t[this.pos + 1];
        if (e === 'u') {
          const hex = t.slice(this.pos + 2, this.pos + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('invalid \\u escape');
          const unit = parseInt(hex, 16);
          if (unit >= 0xd800 && unit <= 0xdbff) {
            const next = t.slice(this.pos + 6, this.pos + 12);
            const low = /^\\u[0-9a-fA-F]{4}$/.test(next) ? parseInt(next.slice(2), 16) : -1;
            if (low < 0xdc00 || low > 0xdfff) this.fail('unpaired surrogate escape');
            this.pos += 12;
            continue;
          }
          if (unit >= 0xdc00 && unit <= 0xdfff) this.fail('unpaired surrogate escape');
          this.pos += 6;
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) this.fail('invalid escape');
        this.pos += 2;
        continue;
      }
      // Raw lone surrogates cannot come from strict UTF-8, but can from a JS string.
      if (code >= 0xd800 && code <= 0xdbff) {
        const low = t.charCodeAt(this.pos + 1);
        if (!(low >= 0xdc00 && low <= 0xdfff)) this.fail('unpaired surrogate');
        this.pos += 2;
        continue;
      }
      if (code >= 0xdc00 && code <= 0xdfff) this.fail('unpaired surrogate');
      this.pos++;
    }
    this.pos++;
    const raw = t.slice(start, this.pos);
    return simple ? raw.slice(1, -1) : (JSON.parse(raw) as string);
  }

  private number(): void {
    // Sticky, on the whole text: no copy of the rest of the document per number.
    NUMBER.lastIndex = this.pos;
    const m = NUMBER.exec(this.text);
    if (!m) this.fail('invalid number');
    const n = Number(m[0]);
    if (!Number.isFinite(n)) this.fail(`number ${m[0]} is not a finite binary64 value`);
    if (Object.is(n, -0)) this.fail('negative zero is not allowed');
    this.pos += m[0].length;
  }
}
