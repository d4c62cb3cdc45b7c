import { describe, expect, it } from 'vitest';
import { deriveIdempotencyKey, newAttemptId, type IdempotencyInput } from '../../src/host-client/index.js';
import { RANGE_SEQUENCE } from './support.js';

const base: IdempotencyInput = {
  operation: 'apply',
  formRef: RANGE_SEQUENCE,
  space: 'demo',
  name: 'x',
  uid: '',
  expectedGeneration: '',
  body: '{"a":1}',
  attempt: newAttemptId(),
};

describe('idempotency keys, one per attempt', () => {
  it('are deterministic for one attempt, visible ASCII and at most 255 characters', () => {
    const k = deriveIdempotencyKey(base);
    expect(deriveIdempotencyKey({ ...base })).toBe(k);
    expect(k).toMatch(/^[\x21-\x7e]{1,255}$/);
  });
  it('differ for another attempt, incarnation, generation, body, name, space or Form', () => {
    const k = deriveIdempotencyKey(base);
    for (const change of [
      { attempt: newAttemptId() },
      { uid: 'res_1' },
      { expectedGeneration: '2' },
      { body: '{"a":2}' },
      { name: 'y' },
      { space: 'other' },
      { formRef: { ...RANGE_SEQUENCE, definitionVersion: '0.2.0' } },
      { operation: 'delete' as const },
    ]) {
      expect(deriveIdempotencyKey({ ...base, ...change })).not.toBe(k);
    }
  });
});

describe('attempt ids', () => {
  it('are fresh 128-bit hex strings, and a key refuses anything else', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newAttemptId()));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(() => deriveIdempotencyKey({ ...base, attempt: '' })).toThrow(/attempt id/);
    expect(() => deriveIdempotencyKey({ ...base, attempt: 'x'.repeat(32) })).toThrow(/attempt id/);
  });
});
