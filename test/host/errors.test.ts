// The Host's error table must equal the frozen v1 route table, code for code (style-examples §6.4).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOST_ERROR_CODES, HOST_ERROR_TABLE, HostError, errorEnvelope, invalidArgument } from '../../src/host/errors.js';

const OPERATIONS = JSON.parse(readFileSync(path.resolve(process.cwd(), '../shared/data/takoform/spec/host-api/operations-v1.json'), 'utf8')) as {
  errorEnvelope: { codes: string[]; automaticallyRetryable: string[]; httpStatusByCode: Record<string, number> };
};

describe('the closed v1 error taxonomy', () => {
  it('has exactly the 24 codes of operations-v1.json with their fixed statuses', () => {
    expect([...HOST_ERROR_CODES].sort()).toEqual([...OPERATIONS.errorEnvelope.codes].sort());
    for (const code of HOST_ERROR_CODES) {
      expect(HOST_ERROR_TABLE[code].httpStatus, code).toBe(OPERATIONS.errorEnvelope.httpStatusByCode[code]);
      expect(HOST_ERROR_TABLE[code].mayRetry, code).toBe(OPERATIONS.errorEnvelope.automaticallyRetryable.includes(code));
    }
  });

  it('never marks a non-retryable code retryable', () => {
    expect(new HostError('generation_conflict', 'stale', { retryable: true }).retryable).toBe(false);
    expect(new HostError('resource_busy', 'busy', { retryable: true }).retryable).toBe(true);
  });

  it('renders the closed envelope with optional members only when present', () => {
    expect(errorEnvelope(new HostError('form_unknown', 'unknown'), 'req_1')).toEqual({
      error: { code: 'form_unknown', message: 'unknown', requestId: 'req_1', retryable: false },
    });
    expect(errorEnvelope(invalidArgument('bad', '/spec/x'), 'req_2')).toEqual({
      error: { code: 'invalid_argument', message: 'bad', requestId: 'req_2', retryable: false, details: { pointer: '/spec/x' } },
    });
    expect(errorEnvelope(new HostError('policy_denied', 'no', { hostCode: 'policy.quota' }), 'req_3').error).toMatchObject({
      hostCode: 'policy.quota',
    });
  });
});
