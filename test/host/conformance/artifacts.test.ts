// Artifact transport (§14, routes 12-17): content-addressed upload sessions, per-tenant holdings,
// commit with full re-validation, manifest read, blob HEAD, abandon, and ownership of upload ids.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, TOKEN_A_SECOND_PRINCIPAL, TOKEN_B, errorCode, startTestHost, type TestHost } from '../support/host-harness.js';

const PAYLOAD = Buffer.from('-- family-neutral conformance payload\n', 'utf8');
const DIGEST = `sha256:${createHash('sha256').update(PAYLOAD).digest('hex')}`;
const MANIFEST = {
  apiVersion: 'artifacts.takoform.com/v1alpha1',
  kind: 'StaticAssetBundle',
  files: [{ path: 'assets/payload.txt', mediaType: 'application/octet-stream', size: PAYLOAD.length, digest: DIGEST }],
};
let subject: TestHost;

beforeAll(async () => {
  subject = await startTestHost();
});

afterAll(async () => {
  await subject.dispose();
});

const start = (key: string, token?: string, manifest: unknown = MANIFEST) =>
  subject.call('POST', `${API}/artifacts/uploads`, { token, body: { manifest }, headers: { 'idempotency-key': key } });

function putBlob(uploadId: string, bytes: Uint8Array, digest = DIGEST, token?: string) {
  return fetch(new URL(`${API}/artifacts/uploads/${uploadId}/blobs/${digest}`, subject.host.url), {
    method: 'PUT',
    headers: { authorization: `Bearer ${token ?? 'tenant-a-token'}`, 'content-type': 'application/octet-stream' },
    body: bytes,
  });
}

const head = (digest: string, token?: string) => subject.call('HEAD', `${API}/artifacts/blobs/${digest}`, { token });

describe('artifact upload, commit and holdings', () => {
  it('runs the whole flow and answers per tenant', async () => {
    const started = await start('up-1');
    expect(started.status).toBe(201);
    const { uploadId, missingBlobs } = started.json as { uploadId: string; missingBlobs: string[] };
    expect(uploadId).toMatch(/^up_/);
    expect(missingBlobs).toEqual([DIGEST]);
    // The same open session is answered again for the same manifest.
    const again = await start('up-2');
    expect(again.status).toBe(200);
    expect((again.json as { uploadId: string }).uploadId).toBe(uploadId);

    expect(errorCode(await subject.call('POST', `${API}/artifacts/uploads/${uploadId}/commit`, { headers: { 'idempotency-key': 'early' } }))).toBe(
      'artifact_missing',
    );
    expect((await putBlob(uploadId, Buffer.from('tampered'))).status).toBe(400);
    expect((await putBlob(uploadId, PAYLOAD)).status).toBe(201);
    expect((await putBlob(uploadId, PAYLOAD)).status).toBe(204);
    expect((await putBlob(uploadId, PAYLOAD, `sha256:${'1'.repeat(64)}`)).status).toBe(400);
    expect((await putBlob(uploadId, PAYLOAD, DIGEST, TOKEN_A_SECOND_PRINCIPAL)).status).toBe(404);

    const commit = await subject.call('POST', `${API}/artifacts/uploads/${uploadId}/commit`, { headers: { 'idempotency-key': 'commit-1' } });
    expect(commit.status).toBe(201);
    const manifestDigest = (commit.json as { manifestDigest: string }).manifestDigest;
    const canonical = JSON.stringify({
      apiVersion: MANIFEST.apiVersion,
      files: [{ digest: DIGEST, mediaType: 'application/octet-stream', path: 'assets/payload.txt', size: PAYLOAD.length }],
      kind: MANIFEST.kind,
    });
    expect(manifestDigest).toBe(`sha256:${createHash('sha256').update(canonical).digest('hex')}`);
    const recommit = await subject.call('POST', `${API}/artifacts/uploads/${uploadId}/commit`, { headers: { 'idempotency-key': 'commit-2' } });
    expect(recommit.status).toBe(200);

    const read = await subject.call('GET', `${API}/artifacts/${manifestDigest}`);
    expect(read.status).toBe(200);
    expect(read.json).toEqual(MANIFEST);
    expect((await head(DIGEST)).status).toBe(200);

    // Another tenant holds nothing, even though the bytes are stored.
    expect(errorCode(await subject.call('GET', `${API}/artifacts/${manifestDigest}`, { token: TOKEN_B }))).toBe('artifact_missing');
    expect((await head(DIGEST, TOKEN_B)).status).toBe(404);
    const foreign = await start('up-b', TOKEN_B);
    expect((foreign.json as { missingBlobs: string[] }).missingBlobs).toEqual([DIGEST]);
  });

  it('refuses invalid manifests with artifact_invalid, and abandons sessions', async () => {
    const bad = await start('bad', undefined, { ...MANIFEST, files: [{ ...MANIFEST.files[0], path: '../escape' }] });
    expect(bad.status).toBe(400);
    expect(errorCode(bad)).toBe('artifact_invalid');
    const other = { ...MANIFEST, files: [{ ...MANIFEST.files[0], path: 'other.txt' }] };
    const { uploadId } = (await start('abandon-me', undefined, other)).json as { uploadId: string };
    const abandon = await subject.call('DELETE', `${API}/artifacts/uploads/${uploadId}`, { headers: { 'idempotency-key': 'abandon-1' } });
    expect(abandon.status).toBe(204);
    expect((await putBlob(uploadId, PAYLOAD)).status).toBe(400);
    expect(errorCode(await subject.call('DELETE', `${API}/artifacts/uploads/up_unknown`, { headers: { 'idempotency-key': 'abandon-2' } }))).toBe(
      'artifact_missing',
    );
  });
});
