// Recursive default materialization (wire reference §7.3, A15).
import { describe, expect, it } from 'vitest';
import { materializeDefaults } from '../../src/common/json-schema-defaults.js';
import type { JsonObject } from '../../src/common/json-value.js';

const schema: JsonObject = {
  type: 'object',
  properties: {
    mode: { type: 'string', default: 'safe' },
    limits: {
      type: 'object',
      properties: { max: { type: 'integer', default: 10 }, min: { type: 'integer' } },
    },
    withDefaultObject: {
      type: 'object',
      default: {},
      properties: { inner: { type: 'boolean', default: true } },
    },
    slots: {
      type: 'array',
      items: { type: 'object', properties: { required: { type: 'boolean', default: true } } },
    },
    labels: {
      type: 'object',
      additionalProperties: { type: 'object', properties: { weight: { type: 'integer', default: 1 } } },
    },
  },
};

describe('materializeDefaults', () => {
  it('fills top-level defaults and keeps present values, even when equal to the default', () => {
    expect(materializeDefaults(schema, {})).toEqual({ mode: 'safe', withDefaultObject: { inner: true } });
    expect(materializeDefaults(schema, { mode: 'fast' })).toMatchObject({ mode: 'fast' });
  });

  it('recurses into present objects, array items and typed-map members, but not absent objects', () => {
    const spec: JsonObject = { limits: { min: 1 }, slots: [{}, { required: false }], labels: { a: {}, b: { weight: 3 } } };
    expect(materializeDefaults(schema, spec)).toEqual({
      mode: 'safe',
      limits: { min: 1, max: 10 },
      withDefaultObject: { inner: true },
      slots: [{ required: true }, { required: false }],
      labels: { a: { weight: 1 }, b: { weight: 3 } },
    });
    expect(materializeDefaults(schema, {})).not.toHaveProperty('limits');
  });

  it('does not modify its input', () => {
    const spec = { slots: [{}] };
    materializeDefaults(schema, spec);
    expect(spec).toEqual({ slots: [{}] });
  });

  it('fills a member named __proto__ as data, not as a prototype', () => {
    const odd: JsonObject = { type: 'object', properties: { ['__proto__']: { default: { polluted: true } } } };
    const result = materializeDefaults(odd, {});
    expect(Object.keys(result)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
