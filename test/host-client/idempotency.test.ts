import { describe, expect, it } from 'vitest';
import { deriveIdempotencyKey, type IdempotencyInput } from '../../src/host-client/index.js';
import { RANGE_SEQUENCE } from './support.js';

const base: IdempotencyInput = { operation: 'apply', formRef: RANGE_SEQUENCE, space: 'demo', name: 'x', uid: '', expectedGeneration: '', body: '{"a":1}' };

describe('derived idempotency keys', () => {
  it('are deterministic, visible ASCII and at most 255 characters', () => {
    const k = deriveIdempotencyKey(base);
    expect(deriveIdempotencyKey({ ...base })).toBe(k);
    expect(k).toMatch(/^[\x21-\x7e]{1,255}$/);
  });
  it('differ for another incarnation, generation, body, name, space or Form', () => {
    const k = deriveIdempotencyKey(base);
    for (const change of [{ uid: 'res_1' }, { expectedGeneration: '2' }, { body: '{"a":2}' }, { name: 'y' }, { space: 'other' }, { formRef: { ...RANGE_SEQUENCE, definitionVersion: '0.2.0' } }, { operation: 'delete' as const }]) {
      expect(deriveIdempotencyKey({ ...base, ...change })).not.toBe(k);
    }
  });
});
