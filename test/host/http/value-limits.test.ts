// Bounded work per request: a body may hold at most --max-json-values JSON values (default
// 100000). The 8 MiB body of 4 million numbers that used to hold the event loop for seconds is
// refused during the raw scan, with invalid_argument naming the limit, and the Host keeps
// answering everyone else meanwhile.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IJsonTooManyValues, parseIJson } from '../../../src/common/ijson.js';
import { MAX_REQUEST_JSON_VALUES } from '../../../src/host/http/json-body.js';
import { API, RANGE_SEQUENCE_REF, TOKEN_B, resourceDocument, startTestHost, type TestHost } from '../support/host-harness.js';

let subject: TestHost;

beforeAll(async () => {
  subject = await startTestHost({ dbPath: ':memory:' });
});

afterAll(async () => {
  await subject.dispose();
});

/** A validate body whose spec carries `count` extra numbers (the document then holds count + 16 values). */
function validateBody(count: number): string {
  return JSON.stringify(resourceDocument(RANGE_SEQUENCE_REF, 'big', { lower: 1, upper: 2, extra: new Array<number>(count).fill(0) }));
}

describe('JSON value limit', () => {
  it('counts every value and stops the scan at the first one over the limit', () => {
    expect(parseIJson('[1,[2,{"a":3}],"x"]', 256, 7)).toEqual([1, [2, { a: 3 }], 'x']);
    expect(() => parseIJson('[1,[2,{"a":3}],"x"]', 256, 6)).toThrow(IJsonTooManyValues);
    // The offset is where the scan stopped: far before the end of a huge document.
    const huge = `[${'0,'.repeat(1_000_000)}0]`;
    try {
      parseIJson(huge, 256, 1000);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(IJsonTooManyValues);
      expect((error as IJsonTooManyValues).offset).toBeLessThan(3000);
    }
  });

  it('refuses a body of 4 million numbers with invalid_argument naming the limit', async () => {
    const body = validateBody(4_000_000);
    expect(body.length).toBeLessThan(8 * 1024 * 1024);
    const answer = await subject.call('POST', `${API}/resources/validate`, { body });
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({
      error: { code: 'invalid_argument', retryable: false, details: { limit: MAX_REQUEST_JSON_VALUES } },
    });
    expect((answer.json as { error: { message: string } }).error.message).toMatch(/more than 100000 JSON values/);
  });

  it('accepts a body right at the limit', async () => {
    const answer = await subject.call('POST', `${API}/resources/validate`, { body: validateBody(MAX_REQUEST_JSON_VALUES - 16) });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ valid: false, diagnostics: [{ field: '/extra' }] });
    expect((await subject.call('POST', `${API}/resources/validate`, { body: validateBody(MAX_REQUEST_JSON_VALUES - 15) })).status).toBe(400);
  });

  it('leaves room for the largest artifact manifest (16384 files)', async () => {
    const digest = `sha256:${'a'.repeat(64)}`;
    const files = Array.from({ length: 16384 }, (_, index) => ({ path: `assets/f${index}.txt`, mediaType: 'text/plain', size: 1, digest }));
    const manifest = { apiVersion: 'artifacts.takoform.com/v1alpha1', kind: 'StaticAssetBundle', files };
    const answer = await subject.call('POST', `${API}/artifacts/uploads`, { body: { manifest }, headers: { 'idempotency-key': 'largest-manifest' } });
    expect(answer.text).not.toMatch(/JSON values/);
  });

  it('keeps answering another tenant while one sends such bodies', async () => {
    const body = validateBody(4_000_000);
    const flood = Array.from({ length: 6 }, () => subject.call('POST', `${API}/resources/validate`, { body }));
    const discovery = await subject.call('GET', '/.well-known/takoform/v1', { token: TOKEN_B });
    expect(discovery.status).toBe(200);
    expect((await Promise.all(flood)).map((answer) => answer.status)).toEqual([400, 400, 400, 400, 400, 400]);
  });
});
