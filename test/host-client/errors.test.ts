// The client's error vocabulary must equal the frozen v1 route table, code for code, as the
// Host's does (test/host/errors.test.ts): the same 24 codes, the same fixed statuses, and
// exactly the codes the table allows to be retried automatically.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, RETRYABLE_CODES, type HostErrorCode } from '../../src/host-client/index.js';

const OPERATIONS = JSON.parse(readFileSync(path.resolve(process.cwd(), '../shared/data/takoform/spec/host-api/operations-v1.json'), 'utf8')) as {
  errorEnvelope: { codes: string[]; automaticallyRetryable: string[]; httpStatusByCode: Record<string, number> };
};

describe("the client's closed v1 error taxonomy", () => {
  const codes = Object.keys(ERROR_CODES) as HostErrorCode[];
  it('has exactly the codes of operations-v1.json with their fixed statuses', () => {
    expect([...codes].sort()).toEqual([...OPERATIONS.errorEnvelope.codes].sort());
    for (const code of codes) expect(ERROR_CODES[code], code).toBe(OPERATIONS.errorEnvelope.httpStatusByCode[code]);
  });
  it('retries exactly the codes the table marks automatically retryable', () => {
    expect([...RETRYABLE_CODES].sort()).toEqual([...OPERATIONS.errorEnvelope.automaticallyRetryable].sort());
  });
});
