// Idempotency records (§10.2): scoped by tenant + principal + space + key, replaying recorded
// refusals, retired with the incarnation they report.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  API,
  RANGE_SEQUENCE_REF,
  TOKEN_A_SECOND_PRINCIPAL,
  errorCode,
  exactQuery,
  resourceDocument,
  resourcePath,
  startTestHost,
  type TestHost,
} from './support/host-harness.js';

const PATH = resourcePath(RANGE_SEQUENCE_REF, 'range-sequence');
let subject: TestHost;

beforeEach(async () => {
  subject = await startTestHost();
});

afterEach(async () => {
  await subject.dispose();
});

async function prepareCreate(spec: unknown, token?: string): Promise<string> {
  const prepared = await subject.call('POST', `${API}/resources/prepare`, {
    body: resourceDocument(RANGE_SEQUENCE_REF, 'range-sequence', spec),
    token,
  });
  return (prepared.json as { review: { prepareDigest: string } }).review.prepareDigest;
}

function createRequest(spec: unknown, prepareDigest: string, key: string, token?: string) {
  return {
    body: { ...resourceDocument(RANGE_SEQUENCE_REF, 'range-sequence', spec), review: { prepareDigest } },
    headers: { 'if-none-match': '*', 'idempotency-key': key },
    token,
  };
}

describe('idempotent apply and delete', () => {
  it('requires a well-formed Idempotency-Key on apply and delete', async () => {
    const digest = await prepareCreate({ lower: 1, upper: 2 });
    const missing = await subject.call('PUT', PATH, { ...createRequest({ lower: 1, upper: 2 }, digest, 'x'), headers: { 'if-none-match': '*' } });
    expect(missing.status).toBe(400);
    const malformed = await subject.call('PUT', PATH, createRequest({ lower: 1, upper: 2 }, digest, 'has space'));
    expect(malformed.status).toBe(400);
    const deleteWithoutKey = await subject.call('DELETE', `${PATH}?${exactQuery(RANGE_SEQUENCE_REF)}`, {
      headers: { 'takoform-expected-generation': '1' },
    });
    expect(deleteWithoutKey.status).toBe(400);
  });

  it('replays a recorded refusal even after the state that caused it changed', async () => {
    const digest = await prepareCreate({ lower: 1, upper: 2 });
    // Refused: the update fence names a resource that does not exist yet.
    const fencedRequest = {
      body: { ...resourceDocument(RANGE_SEQUENCE_REF, 'range-sequence', { lower: 1, upper: 2 }), review: { prepareDigest: digest } },
      headers: { 'takoform-expected-generation': '1', 'idempotency-key': 'early' },
    };
    const refused = await subject.call('PUT', PATH, fencedRequest);
    expect(errorCode(refused)).toBe('resource_not_found');
    expect((await subject.call('PUT', PATH, createRequest({ lower: 1, upper: 2 }, digest, 'create'))).status).toBe(201);
    const replayed = await subject.call('PUT', PATH, fencedRequest);
    expect(replayed.status).toBe(404);
    expect(replayed.text).toBe(refused.text);
  });

  it('scopes keys per principal: another principal with the same key executes on its own', async () => {
    const digest = await prepareCreate({ lower: 1, upper: 2 });
    const first = await subject.call('PUT', PATH, createRequest({ lower: 1, upper: 2 }, digest, 'shared-key'));
    expect(first.status).toBe(201);
    // Same tenant, other principal: the binding is tenant-wide, the replay record is not.
    const second = await subject.call('PUT', PATH, createRequest({ lower: 1, upper: 2 }, digest, 'shared-key', TOKEN_A_SECOND_PRINCIPAL));
    expect(second.status).toBe(412);
    expect(errorCode(second)).toBe('generation_conflict');
  });

  it('scopes keys per space: the same key in another space is a different record', async () => {
    const digest = await prepareCreate({ lower: 1, upper: 2 });
    expect((await subject.call('PUT', PATH, createRequest({ lower: 1, upper: 2 }, digest, 'k'))).status).toBe(201);
    const otherSpace = await subject.call('POST', `${API}/resources/prepare`, {
      body: resourceDocument(RANGE_SEQUENCE_REF, 'range-sequence', { lower: 1, upper: 2 }, 'other'),
    });
    const { review } = otherSpace.json as { review: { prepareDigest: string } };
    const created = await subject.call('PUT', PATH, {
      body: { ...resourceDocument(RANGE_SEQUENCE_REF, 'range-sequence', { lower: 1, upper: 2 }, 'other'), review },
      headers: { 'if-none-match': '*', 'idempotency-key': 'k' },
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ metadata: { space: 'other' } });
  });
});
