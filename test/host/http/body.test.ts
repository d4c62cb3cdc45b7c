// The 8 MiB request cap, declared (Content-Length) and streamed (chunked), answered with a
// refusal rather than a reset connection.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_REQUEST_BODY_BYTES } from '../../../src/host/http/body.js';
import { API, TOKEN_A, errorCode, startTestHost, type TestHost } from '../support/host-harness.js';

let subject: TestHost;

beforeAll(async () => {
  subject = await startTestHost({ dbPath: ':memory:' });
});

afterAll(async () => {
  await subject.dispose();
});

/** POSTs `chunks` with chunked transfer encoding; resolves with status and body. */
function postChunked(chunks: Buffer[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(`${API}/resources/validate`, subject.host.url);
    const req = request(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN_A}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    // The Host may close the connection while we are still sending; that is expected.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

describe('request body cap', () => {
  it('refuses a declared body beyond 8 MiB', async () => {
    const answer = await subject.call('POST', `${API}/resources/validate`, {
      body: Buffer.alloc(MAX_REQUEST_BODY_BYTES + 1, 0x20),
    });
    expect(answer.status).toBe(400);
    expect(errorCode(answer)).toBe('invalid_argument');
  });

  it('refuses a streamed body once it passes 8 MiB', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    const answer = await postChunked(Array.from({ length: 9 }, () => chunk));
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'invalid_argument' } });
  });
});
