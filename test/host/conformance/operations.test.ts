// Long-running Operations (§13) and the test switches: 202 + Operation via the opt-in header or
// an --async-form, polling with Retry-After, commit-time re-checks (uid_mismatch), cancel,
// ownership by tenant and principal; and the fault switches (code, delay, drop-after-commit),
// which are inert unless the Host was started with them enabled.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, EXTERNAL_FAMILY, TOKEN_A_SECOND_PRINCIPAL, TOKEN_B, call, errorCode, startTestHost, type TestHost } from '../support/host-harness.js';
import { FamilyClient, refOf, resourceOf } from './family-client.js';

const SEQUENCE = refOf('range-sequence');
const ASYNC = { 'takoform-test-async': '1' };
let subject: TestHost;
let client: FamilyClient;

beforeAll(async () => {
  subject = await startTestHost({ packageDirs: [EXTERNAL_FAMILY], enableTestSwitches: true, asyncForms: ['RevisionNote'] });
  client = new FamilyClient(subject);
});

afterAll(async () => {
  await subject.dispose();
});

interface Operation {
  apiVersion: string;
  kind: string;
  id: string;
  done: boolean;
  result?: { resource?: unknown; deleted?: boolean };
  error?: { code: string; retryable: boolean; requestId: string };
}

function operationOf(answer: { json: unknown }): Operation {
  return (answer.json as { operation: Operation }).operation;
}

const poll = (id: string, token?: string) => subject.call('GET', `${API}/operations/${id}`, { token });

describe('asynchronous mutations (§13)', () => {
  it('answers 202 + pending Operation, keeps it pending for one poll with Retry-After, then commits', async () => {
    const accepted = await client.apply(SEQUENCE, 'async-seq', { lower: 1, upper: 2 }, undefined, ASYNC);
    expect(accepted.status).toBe(202);
    expect(accepted.headers.get('retry-after')).toBe('1');
    const operation = operationOf(accepted);
    expect(operation).toEqual({ apiVersion: 'operations.takoform.com/v1alpha1', kind: 'Operation', id: operation.id, done: false });
    expect(operation.id).toMatch(/^op_[A-Za-z0-9][A-Za-z0-9._-]{0,124}$/);
    expect((await client.read(SEQUENCE, 'async-seq')).status).toBe(404);

    const pending = await poll(operation.id);
    expect(pending.json).toEqual(operation);
    expect(pending.headers.get('retry-after')).toBe('1');
    const done = await poll(operation.id);
    const terminal = done.json as Operation;
    expect(terminal).toMatchObject({ id: operation.id, done: true, result: { resource: { metadata: { generation: '1', revision: '1' } } } });
    expect(terminal).not.toHaveProperty('error');
    expect((await client.read(SEQUENCE, 'async-seq')).status).toBe(200);
    // A terminal record replays byte for byte.
    expect((await poll(operation.id)).text).toBe(done.text);
  });

  it('binds Operations to tenant and principal: anyone else gets operation_not_found', async () => {
    const accepted = await client.apply(SEQUENCE, 'owned', { lower: 1, upper: 2 }, undefined, ASYNC);
    const { id } = operationOf(accepted);
    expect(errorCode(await poll(id, TOKEN_B))).toBe('operation_not_found');
    expect(errorCode(await poll(id, TOKEN_A_SECOND_PRINCIPAL))).toBe('operation_not_found');
    expect(errorCode(await poll('op_never_issued'))).toBe('operation_not_found');
  });

  it('answers refusals directly instead of accepting them', async () => {
    const refused = await subject.call('PUT', client.path(SEQUENCE, 'refused'), {
      body: { ...client.body(SEQUENCE, 'refused', { lower: 1, mode: 'safe', upper: 2 }), review: { prepareDigest: `sha256:${'0'.repeat(64)}` } },
      headers: { 'if-none-match': '*', 'idempotency-key': 'refused-key', ...ASYNC },
    });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ error: { code: 'invalid_argument', details: { pointer: '/review/prepareDigest' } } });
  });

  it('re-decides at commit: an update accepted against one incarnation ends in uid_mismatch when the name was re-created', async () => {
    await client.apply(SEQUENCE, 'swap', { lower: 1, upper: 2 });
    const accepted = await client.apply(SEQUENCE, 'swap', { lower: 1, upper: 3 }, '1', ASYNC);
    expect(accepted.status).toBe(202);
    expect((await client.delete(SEQUENCE, 'swap', '1')).status).toBe(204);
    await client.apply(SEQUENCE, 'swap', { lower: 1, upper: 2 });
    const { id } = operationOf(accepted);
    await poll(id);
    const terminal = (await poll(id)).json as Operation;
    expect(terminal).toMatchObject({ done: true, error: { code: 'uid_mismatch', retryable: false } });
  });

  it('cancels a pending Operation (terminal operation_cancelled) and replays a terminal one', async () => {
    const accepted = await client.apply(SEQUENCE, 'cancelled', { lower: 1, upper: 2 }, undefined, ASYNC);
    const { id } = operationOf(accepted);
    const cancel = (key: string) => subject.call('POST', `${API}/operations/${id}/cancel`, { headers: { 'idempotency-key': key } });
    const cancelled = await cancel('cancel-1');
    expect(cancelled.status).toBe(200);
    expect(cancelled.json).toMatchObject({ id, done: true, error: { code: 'operation_cancelled', retryable: false } });
    expect((await cancel('cancel-2')).text).toBe(cancelled.text);
    expect((await poll(id)).text).toBe(cancelled.text);
    expect((await client.read(SEQUENCE, 'cancelled')).status).toBe(404);
    expect(errorCode(await subject.call('POST', `${API}/operations/${id}/cancel`))).toBe('invalid_argument');
  });

  it('defers every mutation of an --async-form Form, deletes included ({"deleted": true})', async () => {
    const note = refOf('revision-note');
    const created = operationOf(await client.apply(note, 'note', { note: 'hello' }));
    await poll(created.id);
    const resource = ((await poll(created.id)).json as Operation).result?.resource as { metadata: { generation: string } };
    expect(resource.metadata.generation).toBe('1');
    const deleted = await client.delete(note, 'note', '1');
    expect(deleted.status).toBe(202);
    const { id } = operationOf(deleted);
    await poll(id);
    expect((await poll(id)).json).toMatchObject({ done: true, result: { deleted: true } });
  });

  it('retires a 202 create record with the incarnation its Operation produced (§10.2), like a direct answer', async () => {
    // Regression (kill soak): the replayed 202 used to point at the Operation of a deleted
    // incarnation, so a resumed create reported a uid the Host no longer had.
    const prepared = (await client.prepare(SEQUENCE, 'retired-async', { lower: 1, upper: 2 })).json as {
      resource: { spec: unknown };
      review: { prepareDigest: string };
    };
    const request = {
      body: { ...client.body(SEQUENCE, 'retired-async', prepared.resource.spec), review: { prepareDigest: prepared.review.prepareDigest } },
      headers: { 'idempotency-key': 'retired-async-create', 'if-none-match': '*', ...ASYNC },
    };
    const first = operationOf(await subject.call('PUT', client.path(SEQUENCE, 'retired-async'), request));
    await poll(first.id);
    const uid = (((await poll(first.id)).json as Operation).result?.resource as { metadata: { uid: string } }).metadata.uid;
    // While the incarnation lives, the same request replays the same Operation.
    expect(operationOf(await subject.call('PUT', client.path(SEQUENCE, 'retired-async'), request)).id).toBe(first.id);
    expect((await client.delete(SEQUENCE, 'retired-async', '1')).status).toBe(204);
    // Once it is gone, the same request executes anew: a new Operation and a new incarnation.
    const again = operationOf(await subject.call('PUT', client.path(SEQUENCE, 'retired-async'), request));
    expect(again.id).not.toBe(first.id);
    await poll(again.id);
    const recreated = (((await poll(again.id)).json as Operation).result?.resource as { metadata: { uid: string } }).metadata.uid;
    expect(recreated).not.toBe(uid);
  });
});

describe('fault switches', () => {
  it('answers a chosen error code with its fixed status and retryable flag', async () => {
    const answer = await subject.call('GET', `${API}/forms`, { headers: { 'takoform-test-fault': 'code=backend_unavailable' } });
    expect(answer.status).toBe(503);
    expect(answer.json).toMatchObject({ error: { code: 'backend_unavailable', retryable: true } });
    const notRetryable = await subject.call('GET', `${API}/forms`, { headers: { 'takoform-test-fault': 'code=internal_error' } });
    expect(notRetryable.json).toMatchObject({ error: { code: 'internal_error', retryable: false } });
    expect(errorCode(await subject.call('GET', `${API}/forms`, { headers: { 'takoform-test-fault': 'explode' } }))).toBe('invalid_argument');
  });

  it('drops the connection after committing; the retry with the same key replays the committed answer', async () => {
    const prepared = (await client.prepare(SEQUENCE, 'dropped', { lower: 1, upper: 2 })).json as {
      resource: { spec: unknown };
      review: { prepareDigest: string };
    };
    const request = {
      body: { ...client.body(SEQUENCE, 'dropped', prepared.resource.spec), review: { prepareDigest: prepared.review.prepareDigest } },
      headers: { 'if-none-match': '*', 'idempotency-key': 'drop-key' },
    };
    await expect(
      subject.call('PUT', client.path(SEQUENCE, 'dropped'), { ...request, headers: { ...request.headers, 'takoform-test-fault': 'drop-after-commit' } }),
    ).rejects.toThrow();
    const retried = await subject.call('PUT', client.path(SEQUENCE, 'dropped'), request);
    expect(retried.status).toBe(201);
    expect(resourceOf(retried).metadata.revision).toBe('1');
  });

  it('flips a resource Ready status through the admin route; observe reports it; a re-apply heals it', async () => {
    await client.apply(SEQUENCE, 'flipped', { lower: 1, upper: 2 });
    const flip = await subject.call('POST', '/_takoform-test/v1/flip-ready', {
      body: { apiVersion: SEQUENCE.apiVersion, kind: SEQUENCE.kind, name: 'flipped', space: 'demo', ready: 'False' },
    });
    expect(flip.status).toBe(200);
    const observed = await subject.call(
      'POST',
      `${client.path(SEQUENCE, 'flipped')}/observe?${new URLSearchParams({ space: 'demo', definitionVersion: SEQUENCE.definitionVersion, schemaDigest: SEQUENCE.schemaDigest })}`,
      {
        headers: { 'takoform-expected-generation': '1' },
      },
    );
    const resource = (
      observed.json as {
        resource: { metadata: { revision: string; generation: string }; status: { conditions: { type: string; status: string; reason: string }[] } };
      }
    ).resource;
    expect(resource.metadata).toMatchObject({ generation: '1', revision: '2' });
    expect(resource.status.conditions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'Ready', status: 'False', reason: 'ExternalChange' }),
        expect.objectContaining({ type: 'Drifted', status: 'True', reason: 'ExternalChange' }),
      ]),
    );
    const healed = await client.apply(SEQUENCE, 'flipped', { lower: 1, upper: 2 }, '1');
    expect(resourceOf(healed).status.conditions).toEqual([expect.objectContaining({ type: 'Ready', status: 'True', reason: 'Available' })]);
  });

  it('are inert without --enable-test-switches', async () => {
    const plain = await startTestHost();
    try {
      const answer = await call(plain.host.url, 'GET', `${API}/forms`, { headers: { 'takoform-test-fault': 'code=backend_unavailable' } });
      expect(answer.status).toBe(200);
      const admin = await call(plain.host.url, 'POST', '/_takoform-test/v1/remove', { body: {} });
      expect(errorCode(admin)).toBe('resource_not_found');
      const direct = await new FamilyClient(plain).apply(refOf('range-sequence'), 'not-async', { lower: 1, upper: 2 }, undefined, ASYNC);
      expect(direct.status).toBe(201);
    } finally {
      await plain.dispose();
    }
  });
});
