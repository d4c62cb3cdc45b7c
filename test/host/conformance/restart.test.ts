// Restart persistence: stop the Host, start it again on the same database, and read back
// everything: resources with their pins and outputs, reservations and import claims, idempotency
// records, pending Operations, and every error code's fixed status (so replays stay stable).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HOST_ERROR_TABLE, type HostErrorCode } from '../../../src/host/errors.js';
import { API, EXTERNAL_FAMILY, errorCode, startTestHost, testDatabase, type TestHost } from '../support/host-harness.js';
import { FamilyClient, refOf, resourceOf, target } from './family-client.js';

const directory = mkdtempSync(path.join(os.tmpdir(), 'takoform-restart-'));
const options = { dbPath: '', packageDirs: [EXTERNAL_FAMILY], enableTestSwitches: true };

afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

describe('restart on the same database', () => {
  it('keeps resources, pins, outputs, claims, replay records and pending Operations', async () => {
    options.dbPath = await testDatabase(directory);
    let subject: TestHost = await startTestHost(options);
    let client = new FamilyClient(subject);
    await client.apply(refOf('range-counter'), 'kept-counter', { lower: 1, upper: 2 });
    const lease = await client.apply(refOf('counter-lease'), 'kept-lease', { target: target('resources.publisher.example', 'RangeCounter', 'kept-counter') });
    const assigned = await client.apply(refOf('assigned-counter'), 'kept-assigned', { label: 'x' });
    await client.import(refOf('range-sequence'), 'kept-import', { lower: 1, upper: 2 }, 'native-kept');
    const prepared = (await client.prepare(refOf('range-gauge'), 'kept-replay', { lower: 1, upper: 2 })).json as {
      resource: { spec: unknown };
      review: { prepareDigest: string };
    };
    const replayRequest = {
      body: { ...client.body(refOf('range-gauge'), 'kept-replay', prepared.resource.spec), review: { prepareDigest: prepared.review.prepareDigest } },
      headers: { 'if-none-match': '*', 'idempotency-key': 'kept-key' },
    };
    const original = await subject.call('PUT', client.path(refOf('range-gauge'), 'kept-replay'), replayRequest);
    const pending = await client.apply(refOf('range-sequence'), 'kept-async', { lower: 1, upper: 2 }, undefined, { 'takoform-test-async': '1' });
    const operationId = (pending.json as { operation: { id: string } }).operation.id;
    await subject.stop();

    subject = await startTestHost(options);
    client = new FamilyClient(subject);
    try {
      const leaseAgain = await client.read(refOf('counter-lease'), 'kept-lease');
      expect(leaseAgain.text).toBe(lease.text);
      expect((await client.read(refOf('assigned-counter'), 'kept-assigned')).text).toBe(assigned.text);
      // Pins, reservations and claims survived.
      expect(errorCode(await client.delete(refOf('range-counter'), 'kept-counter', '1'))).toBe('dependency_in_use');
      expect(
        errorCode(
          await client.apply(refOf('counter-lease'), 'kept-lease-2', { target: target('resources.publisher.example', 'RangeCounter', 'kept-counter') }),
        ),
      ).toBe('invalid_argument');
      expect(errorCode(await client.import(refOf('range-gauge'), 'kept-import-2', { lower: 1, upper: 2 }, 'native-kept'))).toBe('import_conflict');
      // The replay record answers byte for byte; the pending Operation still commits.
      const replayed = await subject.call('PUT', client.path(refOf('range-gauge'), 'kept-replay'), replayRequest);
      expect(replayed.status).toBe(201);
      expect(replayed.text).toBe(original.text);
      await subject.call('GET', `${API}/operations/${operationId}`);
      const done = await subject.call('GET', `${API}/operations/${operationId}`);
      expect(done.json).toMatchObject({ done: true, result: { resource: { metadata: { name: 'kept-async' } } } });
      expect(resourceOf(await client.read(refOf('range-sequence'), 'kept-async')).metadata.generation).toBe('1');
    } finally {
      await subject.dispose();
    }
  });
});

describe('every error code', () => {
  it('travels with its fixed status and retryable flag (via the code fault switch)', async () => {
    const subject = await startTestHost({ enableTestSwitches: true });
    try {
      for (const [code, spec] of Object.entries(HOST_ERROR_TABLE) as [HostErrorCode, { httpStatus: number; mayRetry: boolean }][]) {
        const answer = await subject.call('GET', `${API}/forms`, { headers: { 'takoform-test-fault': `code=${code}` } });
        expect(answer.status, code).toBe(spec.httpStatus);
        const error = (answer.json as { error: Record<string, unknown> }).error;
        expect(Object.keys(error).sort(), code).toEqual(['code', 'hostCode', 'message', 'requestId', 'retryable']);
        expect(error, code).toMatchObject({ code, retryable: spec.mayRetry });
      }
      expect(Object.keys(HOST_ERROR_TABLE)).toHaveLength(24);
    } finally {
      await subject.dispose();
    }
  });

  it('mints unique request ids', async () => {
    const subject = await startTestHost();
    try {
      const ids = new Set<string>();
      for (let index = 0; index < 20; index++) {
        const answer = await subject.call('GET', `${API}/forms`, { token: 'nobody' });
        ids.add((answer.json as { error: { requestId: string } }).error.requestId);
      }
      expect(ids.size).toBe(20);
    } finally {
      await subject.dispose();
    }
  });
});
