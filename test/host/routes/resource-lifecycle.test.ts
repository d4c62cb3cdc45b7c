// The worked exchanges of wire reference §21.3-§21.7, driven over real HTTP: create = prepare +
// apply, replay, read, update = fenced prepare + apply, observe, delete, and re-create.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  RANGE_SEQUENCE_PACKAGE_DIGEST,
  RANGE_SEQUENCE_REF,
  errorCode,
  exactQuery,
  resourceDocument,
  resourcePath,
  sequentialUids,
  startTestHost,
  type TestHost,
} from '../support/host-harness.js';

const PATH = resourcePath(RANGE_SEQUENCE_REF, 'range-sequence');
const CREATE_SPEC = { lower: 3, upper: 6 };
const UPDATE_SPEC = { lower: 3, mode: 'fast', upper: 7 };
const CREATE_PREPARE_DIGEST = 'sha256:02c23e57662f164dfca8455f535c462b7a67f2ddea1c06664c010eeba00687e3';
const CREATE_SPEC_DIGEST = 'sha256:cf7e78bf9b9293d6f8ff7cc13ed4c430af7b0277513906804e3a616871784a3c';
const UPDATE_PREPARE_DIGEST = 'sha256:adb7e27e0f42d95c5b5bae9468bbe7635e80079d22e6c527accfcaa82a4639af';
const UPDATE_SPEC_DIGEST = 'sha256:375041f21de50cadfd4ac6d694354a07a95ea0f2e68841beebde8a9cd53eff50';
const FIXED_NOW = new Date('2026-09-07T00:00:00.000Z');

let subject: TestHost;

beforeEach(async () => {
  subject = await startTestHost({ mintUid: sequentialUids(), now: () => FIXED_NOW });
});

afterEach(async () => {
  await subject.dispose();
});

async function prepare(spec: unknown, headers: Record<string, string> = {}) {
  return subject.call('POST', '/apis/forms.takoform.com/v1/resources/prepare', {
    body: resourceDocument(RANGE_SEQUENCE_REF, 'range-sequence', spec),
    headers,
  });
}

function applyBody(spec: unknown, prepareDigest: string, extra: Record<string, unknown> = {}) {
  return { ...resourceDocument(RANGE_SEQUENCE_REF, 'range-sequence', spec), review: { prepareDigest }, ...extra };
}

async function create(key = 'create-range-sequence-0001') {
  const prepared = await prepare(CREATE_SPEC);
  const digest = (prepared.json as { review: { prepareDigest: string } }).review.prepareDigest;
  return subject.call('PUT', PATH, {
    body: applyBody({ lower: 3, mode: 'safe', upper: 6 }, digest),
    headers: { 'if-none-match': '*', 'idempotency-key': key },
  });
}

describe('create = prepare + apply (§21.3)', () => {
  it('prepare materializes the default and mints the reference prepareDigest', async () => {
    const answer = await prepare(CREATE_SPEC);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.json).toEqual({
      resource: {
        apiVersion: 'resources.publisher.example',
        kind: 'RangeSequence',
        form: { formRef: RANGE_SEQUENCE_REF },
        metadata: { name: 'range-sequence', space: 'demo' },
        spec: { lower: 3, mode: 'safe', upper: 6 },
      },
      review: { prepareDigest: CREATE_PREPARE_DIGEST, specDigest: CREATE_SPEC_DIGEST },
    });
  });

  it('apply creates generation 1 / revision 1 with ETag "1" and the closed resource shape', async () => {
    const answer = await create();
    expect(answer.status).toBe(201);
    expect(answer.headers.get('etag')).toBe('"1"');
    expect(answer.json).toEqual({
      apiVersion: 'resources.publisher.example',
      kind: 'RangeSequence',
      form: { formRef: RANGE_SEQUENCE_REF, packageDigest: RANGE_SEQUENCE_PACKAGE_DIGEST },
      metadata: { name: 'range-sequence', space: 'demo', uid: 'res_range_sequence_1', generation: '1', revision: '1' },
      spec: { lower: 3, mode: 'safe', upper: 6 },
      status: {
        observedGeneration: '1',
        conditions: [{ type: 'Ready', status: 'True', reason: 'Available', lastTransitionTime: '2026-09-07T00:00:00Z' }],
      },
    });
  });

  it('replays the identical PUT byte for byte without creating anything', async () => {
    const prepared = await prepare(CREATE_SPEC);
    const request = {
      body: JSON.stringify(applyBody({ lower: 3, mode: 'safe', upper: 6 }, CREATE_PREPARE_DIGEST)),
      headers: { 'if-none-match': '*', 'idempotency-key': 'create-range-sequence-0001' },
    };
    expect(prepared.status).toBe(200);
    const first = await subject.call('PUT', PATH, request);
    const replay = await subject.call('PUT', PATH, request);
    expect(first.status).toBe(201);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('etag')).toBe('"1"');
    expect(replay.text).toBe(first.text);
  });

  it('refuses the same key with a different body (400) and a second create under a new key (412)', async () => {
    expect((await create('key-1')).status).toBe(201);
    const otherBody = await subject.call('PUT', PATH, {
      body: applyBody({ lower: 3, mode: 'safe', upper: 6 }, CREATE_PREPARE_DIGEST, { expectedGeneration: '1' }),
      headers: { 'if-none-match': '*', 'idempotency-key': 'key-1' },
    });
    expect(otherBody.status).toBe(400);
    expect(errorCode(otherBody)).toBe('invalid_argument');

    const secondCreate = await subject.call('PUT', PATH, {
      body: applyBody({ lower: 3, mode: 'safe', upper: 6 }, CREATE_PREPARE_DIGEST),
      headers: { 'if-none-match': '*', 'idempotency-key': 'key-2' },
    });
    expect(secondCreate.status).toBe(412);
    expect(errorCode(secondCreate)).toBe('generation_conflict');
  });

  it('refuses an apply whose prepareDigest binds another spec, asking to prepare again', async () => {
    const answer = await subject.call('PUT', PATH, {
      body: applyBody({ lower: 3, mode: 'safe', upper: 9 }, CREATE_PREPARE_DIGEST),
      headers: { 'if-none-match': '*', 'idempotency-key': 'substituted' },
    });
    expect(answer.status).toBe(400);
    // The digest was never minted for tenant-a in this Host: unknown, not substituted.
    expect((answer.json as { error: { message: string } }).error.message).toMatch(/prepare again/);

    await prepare(CREATE_SPEC);
    const substituted = await subject.call('PUT', PATH, {
      body: applyBody({ lower: 3, mode: 'safe', upper: 9 }, CREATE_PREPARE_DIGEST),
      headers: { 'if-none-match': '*', 'idempotency-key': 'substituted-2' },
    });
    expect(substituted.status).toBe(400);
    expect(substituted.json).toMatchObject({
      error: { code: 'invalid_argument', details: { pointer: '/review/prepareDigest', differing: ['specDigest'] } },
    });
  });

  it('refuses a create without If-None-Match and a review.specDigest echo that does not match', async () => {
    await prepare(CREATE_SPEC);
    const unfenced = await subject.call('PUT', PATH, {
      body: applyBody({ lower: 3, upper: 6 }, CREATE_PREPARE_DIGEST),
      headers: { 'idempotency-key': 'unfenced' },
    });
    expect(unfenced.status).toBe(400);
    const badEcho = await subject.call('PUT', PATH, {
      body: { ...applyBody({ lower: 3, upper: 6 }, CREATE_PREPARE_DIGEST), review: { prepareDigest: CREATE_PREPARE_DIGEST, specDigest: UPDATE_SPEC_DIGEST } },
      headers: { 'if-none-match': '*', 'idempotency-key': 'bad-echo' },
    });
    expect(badEcho.json).toMatchObject({ error: { code: 'invalid_argument', details: { pointer: '/review/specDigest' } } });
    const created = await subject.call('PUT', PATH, {
      body: { ...applyBody({ lower: 3, upper: 6 }, CREATE_PREPARE_DIGEST), review: { prepareDigest: CREATE_PREPARE_DIGEST, specDigest: CREATE_SPEC_DIGEST } },
      headers: { 'if-none-match': '*', 'idempotency-key': 'good-echo' },
    });
    expect(created.status).toBe(201);
  });
});

describe('read, update, observe and delete (§21.4-§21.7)', () => {
  it('reads exactly the created representation with its ETag', async () => {
    const created = await create();
    const read = await subject.call('GET', `${PATH}?${exactQuery(RANGE_SEQUENCE_REF)}`);
    expect(read.status).toBe(200);
    expect(read.headers.get('etag')).toBe('"1"');
    expect(read.text).toBe(created.text);
  });

  it('updates through a fenced prepare and apply to generation 2 (§21.5)', async () => {
    await create();
    const prepared = await prepare(UPDATE_SPEC, { 'takoform-expected-generation': '1' });
    expect(prepared.json).toMatchObject({ review: { prepareDigest: UPDATE_PREPARE_DIGEST, specDigest: UPDATE_SPEC_DIGEST } });
    const updated = await subject.call('PUT', PATH, {
      body: applyBody(UPDATE_SPEC, UPDATE_PREPARE_DIGEST, { expectedUid: 'res_range_sequence_1', expectedGeneration: '1' }),
      headers: { 'takoform-expected-generation': '1', 'if-match': '"1"', 'idempotency-key': 'update-range-sequence-0002' },
    });
    expect(updated.status).toBe(200);
    expect(updated.headers.get('etag')).toBe('"2"');
    expect(updated.json).toMatchObject({
      metadata: { uid: 'res_range_sequence_1', generation: '2', revision: '2' },
      spec: UPDATE_SPEC,
      status: { observedGeneration: '2' },
    });
  });

  it('refuses a stale generation fence (412) and a stale If-Match (412)', async () => {
    await create();
    const stalePrepare = await prepare(UPDATE_SPEC, { 'takoform-expected-generation': '2' });
    expect(stalePrepare.status).toBe(412);
    expect(errorCode(stalePrepare)).toBe('generation_conflict');

    await prepare(UPDATE_SPEC, { 'takoform-expected-generation': '1' });
    const staleApply = await subject.call('PUT', PATH, {
      body: applyBody(UPDATE_SPEC, UPDATE_PREPARE_DIGEST),
      headers: { 'takoform-expected-generation': '2', 'idempotency-key': 'stale-apply' },
    });
    expect(staleApply.status).toBe(412);
    expect(errorCode(staleApply)).toBe('generation_conflict');

    const staleRevision = await subject.call('PUT', PATH, {
      body: applyBody(UPDATE_SPEC, UPDATE_PREPARE_DIGEST),
      headers: { 'takoform-expected-generation': '1', 'if-match': '"7"', 'idempotency-key': 'stale-revision' },
    });
    expect(staleRevision.status).toBe(412);
    expect(errorCode(staleRevision)).toBe('revision_conflict');

    const wrongUid = await subject.call('PUT', PATH, {
      body: applyBody(UPDATE_SPEC, UPDATE_PREPARE_DIGEST, { expectedUid: 'res_someone_else' }),
      headers: { 'takoform-expected-generation': '1', 'idempotency-key': 'wrong-uid' },
    });
    expect(wrongUid.status).toBe(409);
    expect(errorCode(wrongUid)).toBe('uid_mismatch');

    const disagreeing = await subject.call('PUT', PATH, {
      body: applyBody(UPDATE_SPEC, UPDATE_PREPARE_DIGEST, { expectedGeneration: '2' }),
      headers: { 'takoform-expected-generation': '1', 'idempotency-key': 'disagreeing' },
    });
    expect(disagreeing.status).toBe(400);
  });

  it('keeps generation and revision on an identical re-apply, including a default-equivalent spelling', async () => {
    await create();
    const prepared = await prepare({ upper: 6, lower: 3 }, { 'takoform-expected-generation': '1' });
    const digest = (prepared.json as { review: { prepareDigest: string } }).review.prepareDigest;
    const reapplied = await subject.call('PUT', PATH, {
      body: applyBody({ upper: 6, lower: 3 }, digest),
      headers: { 'takoform-expected-generation': '1', 'idempotency-key': 'identical' },
    });
    expect(reapplied.status).toBe(200);
    expect(reapplied.headers.get('etag')).toBe('"1"');
    expect(reapplied.json).toMatchObject({ metadata: { generation: '1', revision: '1' } });
  });

  it('observes under the generation fence and wraps the resource', async () => {
    await create();
    const target = `${PATH}/observe?${exactQuery(RANGE_SEQUENCE_REF)}`;
    const unfenced = await subject.call('POST', target);
    expect(unfenced.status).toBe(400);
    const observed = await subject.call('POST', target, {
      headers: { 'takoform-expected-generation': '1', 'idempotency-key': 'ignored-on-observe' },
    });
    expect(observed.status).toBe(200);
    expect(observed.json).toMatchObject({ resource: { metadata: { generation: '1', revision: '1' } } });
    const stale = await subject.call('POST', target, { headers: { 'takoform-expected-generation': '3' } });
    expect(errorCode(stale)).toBe('generation_conflict');
  });

  it('deletes with 204, then reads 404; re-creating with the old key executes anew under a new uid', async () => {
    const created = await create('create-range-sequence-0001');
    const target = `${PATH}?${exactQuery(RANGE_SEQUENCE_REF)}`;
    const unfenced = await subject.call('DELETE', target, { headers: { 'idempotency-key': 'delete-unfenced' } });
    expect(unfenced.status).toBe(400);
    const deleted = await subject.call('DELETE', target, {
      headers: { 'takoform-expected-generation': '1', 'idempotency-key': 'delete-range-sequence-0003' },
    });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect(deleted.headers.get('content-type')).toBeNull();
    const replayedDelete = await subject.call('DELETE', target, {
      headers: { 'takoform-expected-generation': '1', 'idempotency-key': 'delete-range-sequence-0003' },
    });
    expect(replayedDelete.status).toBe(204);

    const gone = await subject.call('GET', target);
    expect(gone.status).toBe(404);
    expect(errorCode(gone)).toBe('resource_not_found');

    const recreated = await create('create-range-sequence-0001');
    expect(recreated.status).toBe(201);
    expect(recreated.json).toMatchObject({ metadata: { uid: 'res_range_sequence_2', generation: '1' } });
    expect(recreated.text).not.toBe(created.text);
  });

  it('answers resource_not_found for a read under another exact FormRef and form_unknown for an unknown one', async () => {
    await create();
    const unknown = await subject.call('GET', `${PATH}?${exactQuery({ ...RANGE_SEQUENCE_REF, definitionVersion: '9.9.9' })}`);
    expect(unknown.status).toBe(404);
    expect(errorCode(unknown)).toBe('form_unknown');
    const extraKey = await subject.call('GET', `${PATH}?${exactQuery(RANGE_SEQUENCE_REF)}&group=resources.publisher.example`);
    expect(extraKey.status).toBe(400);
    const missingKey = await subject.call('GET', `${PATH}?space=demo&definitionVersion=0.1.0`);
    expect(missingKey.status).toBe(400);
    const otherSpace = await subject.call('GET', `${PATH}?${exactQuery(RANGE_SEQUENCE_REF, 'elsewhere')}`);
    expect(errorCode(otherSpace)).toBe('resource_not_found');
  });
});
