// The strict I-JSON reader has two paths (src/common/ijson.ts): JSON.parse with checks on its
// result for plain documents, and the character scan for anything else. They must accept and
// refuse exactly the same documents; these cases sit on the lines between them.
import { describe, expect, it } from 'vitest';
import { IJsonError, IJsonTooManyValues, parseIJson } from '../../src/common/ijson.js';

const refused = (text: string, maxDepth?: number, maxValues?: number) => {
  try {
    parseIJson(text, maxDepth, maxValues);
  } catch (e) {
    expect(e).toBeInstanceOf(IJsonError);
    return (e as Error).message;
  }
  throw new Error(`accepted: ${text}`);
};

describe('parseIJson', () => {
  it('reads plain documents as JSON.parse does', () => {
    for (const text of ['{}', '[]', '0', '"x"', 'null', ' {"a":[1,2.5,-3e2,{"b":"c:d\\"e"}],"f":true} ', '{"a:b":1,"c":{"d":":"}}', '1e-400']) {
      expect(parseIJson(text)).toEqual(JSON.parse(text));
      expect(parseIJson(Buffer.from(text, 'utf8'))).toEqual(JSON.parse(text));
    }
  });

  it('refuses duplicate members at any depth, with their offset', () => {
    expect(refused('{"a":1,"a":2}')).toBe('duplicate member "a" at offset 7');
    expect(refused('{"x":{"b":1,"c":{"d":1,"d":1}}}')).toMatch(/^duplicate member "d"/);
    expect(refused('[{"k":1},{"k":1,"k":2}]')).toMatch(/^duplicate member "k"/);
    // The same name in sibling objects is not a duplicate; a colon inside a string is not a member.
    expect(parseIJson('[{"k":1},{"k":2,"a:":":"}]')).toEqual([{ k: 1 }, { k: 2, 'a:': ':' }]);
    expect(refused('{"__proto__":1,"__proto__":2}')).toMatch(/^duplicate member "__proto__"/);
  });

  it('refuses what JSON.parse would turn into something else', () => {
    expect(refused('{"n":1e400}')).toMatch(/is not a finite binary64 value/);
    expect(refused('[-0]')).toMatch(/negative zero/);
    expect(refused('-0.0e1')).toMatch(/negative zero/);
    expect(refused('"\\ud800"')).toMatch(/unpaired surrogate escape/);
    expect(refused('"\\udc00x"')).toMatch(/unpaired surrogate escape/);
    expect(refused('"a\ud800"')).toMatch(/unpaired surrogate/);
    expect(parseIJson('"\\ud83d\\ude00 🙂"')).toBe('😀 🙂');
  });

  it('refuses what JSON.parse refuses, with the scan’s reason', () => {
    expect(refused('{"a":1,}')).toMatch(/expected a member name/);
    expect(refused('{"a":1} x')).toMatch(/trailing data/);
    expect(refused('\ufeff{}')).toMatch(/unexpected character/);
    expect(refused('"a\tb"')).toMatch(/control character/);
    expect(refused('')).toMatch(/unexpected end of input/);
    expect(() => parseIJson(Buffer.from([0x22, 0xc3, 0x28, 0x22]))).toThrow('invalid UTF-8');
  });

  it('keeps the depth and value limits of the scan', () => {
    const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);
    expect(parseIJson(nested(4), 4)).toEqual([[[[]]]]);
    expect(refused(nested(5), 4)).toMatch(/nesting deeper than 4/);
    expect(refused('{"a":{"b":{}}}', 2)).toMatch(/nesting deeper than 2/);
    expect(parseIJson('[1,2,3]', 256, 4)).toEqual([1, 2, 3]);
    let error: unknown;
    try {
      parseIJson('[1,2,3,4]', 256, 4);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(IJsonTooManyValues);
  });

  it('agrees with a duplicate-aware reference on generated documents', () => {
    // A seeded generator of nested objects, some with a member written twice.
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const gen = (depth: number): { text: string; dup: boolean } => {
      const r = rand();
      if (depth > 3 || r < 0.3) return { text: JSON.stringify(rand() < 0.5 ? 'v:"' + Math.floor(rand() * 9) : Math.floor(rand() * 100) - 50), dup: false };
      if (r < 0.5) {
        const items = Array.from({ length: Math.floor(rand() * 4) }, () => gen(depth + 1));
        return { text: `[${items.map((i) => i.text).join(',')}]`, dup: items.some((i) => i.dup) };
      }
      const names = ['a', 'b', 'c:d', 'e"f', 'g'].slice(0, 1 + Math.floor(rand() * 4));
      const members = names.map((n) => ({ n, v: gen(depth + 1) }));
      const twice = rand() < 0.15 && members.length > 0;
      if (twice) members.push({ n: members[0]!.n, v: gen(depth + 1) });
      return { text: `{${members.map((m) => `${JSON.stringify(m.n)}:${m.v.text}`).join(',')}}`, dup: twice || members.some((m) => m.v.dup) };
    };
    let dups = 0;
    for (let i = 0; i < 2000; i++) {
      const { text, dup } = gen(0);
      if (dup) {
        dups++;
        expect(refused(text)).toMatch(/^duplicate member/);
      } else expect(parseIJson(text)).toEqual(JSON.parse(text));
    }
    expect(dups).toBeGreaterThan(100);
  });
});
