// Numbers core may send that no double can hold: comparing and describing them must not
// expand them to their full decimal text (1e400000000 has 400 million digits).
import { describe, expect, it } from 'vitest';
import { TfNumber } from '../../../src/plugin/values/tf-number.js';
import { SpecConversionError, toSpec, mapDesiredSchema } from '../../../src/plugin/schema/form-mapping.js';

describe('TfNumber with extreme exponents', () => {
  it('compares by value without expanding the decimal text', () => {
    const started = performance.now();
    expect(TfNumber.fromDecimal('1e400000000').equals(TfNumber.fromDecimal('10e399999999'))).toBe(true);
    expect(TfNumber.fromDecimal('1e-400000000').equals(TfNumber.of(0))).toBe(false);
    expect(TfNumber.fromDecimal('-0').equals(TfNumber.of(0))).toBe(true);
    expect(TfNumber.of(1.5).equals(TfNumber.fromDecimal('1.50'))).toBe(true);
    expect(TfNumber.of(Infinity).equals(TfNumber.of(0))).toBe(false);
    expect(TfNumber.of(Infinity).equals(TfNumber.of(Infinity))).toBe(true);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('describes them in bounded scientific notation, and ordinary ones as plain decimals', () => {
    expect(TfNumber.fromDecimal('1e400000000').describe()).toBe('1e400000000');
    expect(TfNumber.fromDecimal('-1.25e-400000000').describe()).toBe('-1.25e-400000000');
    expect(TfNumber.fromDecimal('123456789012345678901234567890e400000000').describe()).toBe('1.2345678901234567890…e400000029');
    expect(TfNumber.fromDecimal('12345678901234567891').describe()).toBe('12345678901234567891');
    expect(TfNumber.of(0.1).describe()).toBe('0.1');
  });

  it('refuses them for the Host quickly, with a short message and the attribute path', () => {
    const fields = mapDesiredSchema({ type: 'object', properties: { lower: { type: 'integer' }, ratio: { type: 'number' } } });
    for (const [attr, text] of [
      ['lower', '1e400000000'],
      ['ratio', '1e-400000000'],
      ['lower', '1e-400000000'],
    ] as const) {
      const started = performance.now();
      let error: unknown;
      try {
        toSpec(fields, { [attr]: TfNumber.fromDecimal(text) });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(SpecConversionError);
      expect((error as SpecConversionError).path).toEqual([attr]);
      expect((error as Error).message.length).toBeLessThan(200);
      expect(performance.now() - started).toBeLessThan(500);
    }
  });
});
