// Refusals before any mutation: raw I-JSON, closed envelopes, the exact desired schema, declared
// constraints, standard services, authentication and tenant isolation.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  API,
  RANGE_COUNTER_DIR,
  RANGE_COUNTER_REF,
  RANGE_COUNTER_V2_DIR,
  RANGE_SEQUENCE_DIR,
  RANGE_SEQUENCE_REF,
  TOKEN_A_SECOND_PRINCIPAL,
  TOKEN_B,
  errorCode,
  exactQuery,
  resourceDocument,
  resourcePath,
  startTestHost,
  type HostAnswer,
  type TestHost,
} from '../support/host-harness.js';

const PREPARE = `${API}/resources/prepare`;
const VALIDATE = `${API}/resources/validate`;

let subject: TestHost;

beforeEach(async () => {
  subject = await startTestHost({
    packageDirs: [RANGE_SEQUENCE_DIR, RANGE_COUNTER_DIR, RANGE_COUNTER_V2_DIR],
    satisfiableStandardServices: ['com.amazonaws.s3'],
  });
});

afterEach(async () => {
  await subject.dispose();
});

function details(answer: HostAnswer): Record<string, unknown> | undefined {
  return (answer.json as { error?: { details?: Record<string, unknown> } }).error?.details;
}

/** prepare + create apply of `spec` for RangeCounter `name`; returns the apply answer. */
async function createCounter(name: string, spec: unknown, token?: string): Promise<HostAnswer> {
  const prepared = await subject.call('POST', PREPARE, { body: resourceDocument(RANGE_COUNTER_REF, name, spec), token });
  if (prepared.status !== 200) return prepared;
  const { review } = prepared.json as { review: { prepareDigest: string } };
  return subject.call('PUT', resourcePath(RANGE_COUNTER_REF, name), {
    body: { ...resourceDocument(RANGE_COUNTER_REF, name, spec), review: { prepareDigest: review.prepareDigest } },
    headers: { 'if-none-match': '*', 'idempotency-key': `create-${name}` },
    token,
  });
}

describe('raw I-JSON refusals (§2.4)', () => {
  const valid = JSON.stringify({
    ...resourceDocument(RANGE_SEQUENCE_REF, 'range-sequence', { lower: 3, upper: 6 }),
    review: { prepareDigest: `sha256:${'a'.repeat(64)}` },
  });
  const cases: [string, string | Uint8Array][] = [
    ['a duplicate member', valid.replace('"lower":3', '"lower":3,"lower":4')],
    ['trailing data', `${valid} {}`],
    ['a non-finite number', valid.replace('"lower":3', '"lower":1e400')],
    ['negative zero', valid.replace('"lower":3', '"lower":-0')],
    ['an unpaired surrogate escape', valid.replace('"demo"', '"\\ud800"')],
    ['invalid UTF-8', Buffer.concat([Buffer.from(valid.slice(0, -1)), Buffer.from([0x2c, 0x22, 0xc3, 0x28, 0x22, 0x3a, 0x31, 0x7d])])],
    ['an unsafe integer', valid.replace('"lower":3', '"lower":9007199254740993')],
  ];

  for (const [label, body] of cases) {
    it(`refuses ${label} with invalid_argument before any mutation`, async () => {
      const answer = await subject.call('PUT', resourcePath(RANGE_SEQUENCE_REF, 'range-sequence'), {
        body,
        headers: { 'if-none-match': '*', 'idempotency-key': 'raw' },
      });
      expect(answer.status).toBe(400);
      expect(errorCode(answer)).toBe('invalid_argument');
      const read = await subject.call('GET', `${resourcePath(RANGE_SEQUENCE_REF, 'range-sequence')}?${exactQuery(RANGE_SEQUENCE_REF)}`);
      expect(read.status).toBe(404);
    });
  }

  it('refuses a body without Content-Type: application/json', async () => {
    const answer = await subject.call('POST', PREPARE, {
      body: resourceDocument(RANGE_SEQUENCE_REF, 'range-sequence', { lower: 3, upper: 6 }),
      headers: { 'content-type': 'text/plain' },
    });
    expect(answer.status).toBe(400);
  });

  it('renders every error as the closed envelope', async () => {
    const answer = await subject.call('POST', PREPARE, { body: '{"a":1,"a":2}' });
    const body = answer.json as { error: Record<string, unknown> };
    expect(Object.keys(body)).toEqual(['error']);
    expect(Object.keys(body.error).sort()).toEqual(['code', 'details', 'message', 'requestId', 'retryable']);
    expect(body.error).toMatchObject({ code: 'invalid_argument', retryable: false, requestId: expect.stringMatching(/^req_/) });
    expect(answer.headers.get('content-type')).toBe('application/json');
  });
});

describe('closed envelopes and the exact desired schema', () => {
  it('refuses an unknown envelope member with its pointer', async () => {
    const document = resourceDocument(RANGE_SEQUENCE_REF, 'range-sequence', { lower: 3, upper: 6 });
    for (const [body, pointer] of [
      [{ ...document, status: {} }, '/status'],
      [{ ...document, metadata: { ...document.metadata, labels: {} } }, '/metadata/labels'],
      [{ ...document, form: { ...document.form, version: '1' } }, '/form/version'],
      [{ ...document, kind: 'RangeCounter' }, '/kind'],
    ] as const) {
      const answer = await subject.call('POST', PREPARE, { body });
      expect(answer.status, pointer).toBe(400);
      expect(details(answer)?.pointer, pointer).toBe(pointer);
    }
  });

  it('refuses the RangeCounter negative fixture with a pointer to the unexpected member', async () => {
    const fixture = JSON.parse(readFileSync(path.join(RANGE_COUNTER_DIR, 'fixtures/negative-unexpected-property.json'), 'utf8'));
    const answer = await subject.call('POST', PREPARE, { body: resourceDocument(RANGE_COUNTER_REF, 'counter', fixture) });
    expect(answer.status).toBe(400);
    expect(errorCode(answer)).toBe('invalid_argument');
    expect(details(answer)?.pointer).toBe('/spec/unexpected');

    const validated = await subject.call('POST', VALIDATE, { body: resourceDocument(RANGE_COUNTER_REF, 'counter', fixture) });
    expect(validated.status).toBe(200);
    expect(validated.json).toMatchObject({ valid: false, diagnostics: [{ severity: 'error', field: '/unexpected' }] });
  });

  it('refuses an orderedPair violation at prepare and reports it on validate', async () => {
    const answer = await subject.call('POST', PREPARE, {
      body: resourceDocument(RANGE_COUNTER_REF, 'counter', { lower: 3, upper: 2 }),
    });
    expect(answer.status).toBe(400);
    expect(details(answer)?.pointer).toBe('/spec/upper');
    const validated = await subject.call('POST', VALIDATE, {
      body: resourceDocument(RANGE_COUNTER_REF, 'counter', { lower: 3, upper: 2 }),
    });
    expect(validated.json).toMatchObject({ valid: false, diagnostics: [{ field: '/upper' }] });
    const fine = await subject.call('POST', VALIDATE, { body: resourceDocument(RANGE_COUNTER_REF, 'counter', { lower: 1, upper: 2 }) });
    expect(fine.json).toEqual({ valid: true, diagnostics: [] });
  });

  it('answers form_unknown for a FormRef that is not installed exactly', async () => {
    const ref = { ...RANGE_SEQUENCE_REF, schemaDigest: RANGE_COUNTER_REF.schemaDigest };
    const answer = await subject.call('POST', PREPARE, { body: resourceDocument(ref, 'x', { lower: 1, upper: 2 }) });
    expect(answer.status).toBe(404);
    expect(errorCode(answer)).toBe('form_unknown');
  });
});

describe('standard-service slots (§19)', () => {
  const slot = (protocol: string, required?: boolean) => ({
    name: 'OBJECTS',
    service: { apiVersion: 'standards.takoform.com/v1', protocol },
    ...(required === undefined ? {} : { required }),
  });

  it('materializes defaults inside present slots and accepts a satisfiable one', async () => {
    const answer = await subject.call('POST', PREPARE, {
      body: resourceDocument(RANGE_COUNTER_REF, 'counter', { lower: 1, upper: 2, externalServices: [slot('com.amazonaws.s3')] }),
    });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      resource: { spec: { lower: 1, mode: 'safe', upper: 2, externalServices: [{ ...slot('com.amazonaws.s3'), required: true }] } },
    });
  });

  it('refuses a required unsatisfiable slot with unsupported_capability (422), not an optional one', async () => {
    const required = await subject.call('POST', PREPARE, {
      body: resourceDocument(RANGE_COUNTER_REF, 'counter', { lower: 1, upper: 2, externalServices: [slot('com.example.future-store')] }),
    });
    expect(required.status).toBe(422);
    expect(errorCode(required)).toBe('unsupported_capability');
    expect(details(required)?.pointer).toBe('/spec/externalServices/0/service/protocol');
    const optional = await subject.call('POST', PREPARE, {
      body: resourceDocument(RANGE_COUNTER_REF, 'counter', {
        lower: 1,
        upper: 2,
        externalServices: [slot('com.example.future-store', false)],
      }),
    });
    expect(optional.status).toBe(200);
  });
});

describe('authentication, tenants and names', () => {
  it('answers 401 without a token or with an unknown one', async () => {
    const anonymous = await subject.call('GET', `${API}/forms`, { token: null });
    expect(anonymous.status).toBe(401);
    expect(errorCode(anonymous)).toBe('unauthenticated');
    const unknown = await subject.call('POST', PREPARE, { token: 'stolen', body: {} });
    expect(unknown.status).toBe(401);
  });

  it('hides a resource from another tenant and lets each tenant own the same name', async () => {
    expect((await createCounter('shared-name', { lower: 1, upper: 2 })).status).toBe(201);
    const target = `${resourcePath(RANGE_COUNTER_REF, 'shared-name')}?${exactQuery(RANGE_COUNTER_REF)}`;
    const foreign = await subject.call('GET', target, { token: TOKEN_B });
    expect(foreign.status).toBe(404);
    expect(errorCode(foreign)).toBe('resource_not_found');
    const foreignDelete = await subject.call('DELETE', target, {
      token: TOKEN_B,
      headers: { 'takoform-expected-generation': '1', 'idempotency-key': 'foreign-delete' },
    });
    expect(foreignDelete.status).toBe(404);
    expect((await createCounter('shared-name', { lower: 5, upper: 6 }, TOKEN_B)).status).toBe(201);
    const own = await subject.call('GET', target);
    expect(own.json).toMatchObject({ spec: { lower: 1, upper: 2 } });
    // Another principal of the same tenant sees the tenant's resources.
    const colleague = await subject.call('GET', target, { token: TOKEN_A_SECOND_PRINCIPAL });
    expect(colleague.status).toBe(200);
  });

  it('keeps names unique across definition versions of one kind', async () => {
    expect((await createCounter('counter', { lower: 1, upper: 2 })).status).toBe(201);
    // RangeCounter 0.2.0 has an empty, closed desiredSchema.
    const v2 = { ...RANGE_COUNTER_REF, definitionVersion: '0.2.0', schemaDigest: readV2Digest() };
    const prepared = await subject.call('POST', PREPARE, { body: resourceDocument(v2, 'counter', {}) });
    expect(prepared.status).toBe(412);
    expect(errorCode(prepared)).toBe('generation_conflict');
    const readUnderV2 = await subject.call('GET', `${resourcePath(v2, 'counter')}?${exactQuery(v2)}`);
    expect(errorCode(readUnderV2)).toBe('resource_not_found');
  });
});

function readV2Digest(): string {
  const index = JSON.parse(readFileSync(path.join(RANGE_COUNTER_V2_DIR, 'package-index.json'), 'utf8'));
  return index.formRef.schemaDigest as string;
}
