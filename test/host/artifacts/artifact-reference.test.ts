// The Host resolves a bundle-shaped revision's artifact reference (operations-v1.json
// `artifactReference`) before any mutation: on apply, on import, and again when an accepted
// Operation commits. Uncommitted and foreign digests are one answer (artifact_missing 404); a
// manifest of another kind, or stored bytes that no longer decode, is artifact_invalid 400.
// Committed manifests and their blobs stay readable while a resource references them.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FamilyClient } from '../conformance/family-client.js';
import { API, TEST_STORE, TOKEN_B, errorCode, startTestHost, type HostAnswer, type TestHost } from '../support/host-harness.js';

const FIXTURES = path.resolve(process.cwd(), 'test/fixtures/bundle-forms');
const PACKAGES = ['worker-bundle', 'static-asset-bundle', 'sqlite-migration-set'].map((d) => path.join(FIXTURES, d));
type Ref = { apiVersion: string; kind: string; definitionVersion: string; schemaDigest: string };
const [WORKER, SITE] = PACKAGES.map((d) => JSON.parse(readFileSync(path.join(d, 'package-index.json'), 'utf8')).formRef as Ref) as [Ref, Ref];
const sha256 = (b: Uint8Array): string => `sha256:${createHash('sha256').update(b).digest('hex')}`;
const MODULE = Buffer.from('export default {};\n');
const PAGE = Buffer.from('<p>hello</p>\n');
const WORKER_MANIFEST = {
  apiVersion: 'artifacts.takoform.com/v1alpha1',
  kind: 'WorkerBundle',
  mainModule: 'index.js',
  modules: [{ name: 'index.js', mediaType: 'application/javascript+module', size: MODULE.length, digest: sha256(MODULE) }],
};
const SITE_MANIFEST = {
  apiVersion: 'artifacts.takoform.com/v1alpha1',
  kind: 'StaticAssetBundle',
  files: [{ path: 'index.html', mediaType: 'text/html', size: PAGE.length, digest: sha256(PAGE) }],
};

let subject: TestHost;
let client: FamilyClient;

beforeAll(async () => {
  subject = await startTestHost({ packageDirs: PACKAGES, enableTestSwitches: true });
  client = new FamilyClient(subject);
});
afterAll(async () => {
  await subject.dispose();
});

let keys = 0;
const key = (): Record<string, string> => ({ 'idempotency-key': `artifact-reference-${++keys}` });

/** Uploads and commits a manifest with its bytes; returns the committed digest. */
async function commit(manifest: object, blobs: Uint8Array[], token?: string): Promise<string> {
  const started = await subject.call('POST', `${API}/artifacts/uploads`, { token, body: { manifest }, headers: key() });
  const { uploadId, missingBlobs } = started.json as { uploadId: string; missingBlobs: string[] };
  for (const bytes of blobs) {
    if (!missingBlobs.includes(sha256(bytes))) continue;
    const put = await fetch(new URL(`${API}/artifacts/uploads/${uploadId}/blobs/${sha256(bytes)}`, subject.host.url), {
      method: 'PUT',
      headers: { authorization: `Bearer ${token ?? 'tenant-a-token'}`, 'content-type': 'application/octet-stream' },
      body: bytes,
    });
    expect(put.status).toBe(201);
  }
  const committed = await subject.call('POST', `${API}/artifacts/uploads/${uploadId}/commit`, { token, headers: key() });
  expect(committed.status).toBe(201);
  return (committed.json as { manifestDigest: string }).manifestDigest;
}

const messageOf = (a: HostAnswer): string => (a.json as { error: { message: string } }).error.message;
const pointerOf = (a: HostAnswer): unknown => (a.json as { error: { details?: { pointer?: string } } }).error.details?.pointer;

describe('artifact references on apply and import', () => {
  it('refuses an uncommitted and a foreign digest with one and the same answer, before creating anything', async () => {
    const uncommitted = `sha256:${'1'.repeat(64)}`;
    const never = await client.apply(WORKER, 'never', { manifestDigest: uncommitted });
    const foreignDigest = await commit(WORKER_MANIFEST, [MODULE], TOKEN_B);
    const foreign = await client.apply(WORKER, 'foreign', { manifestDigest: foreignDigest });
    for (const answer of [never, foreign]) {
      expect(answer.status).toBe(404);
      expect(errorCode(answer)).toBe('artifact_missing');
      expect(pointerOf(answer)).toBe('/spec/manifestDigest');
    }
    // Identical apart from the digest named: nothing tells tenant A that tenant B holds it.
    expect(messageOf(foreign).replace(foreignDigest, 'D')).toBe(messageOf(never).replace(uncommitted, 'D'));
    expect((await client.read(WORKER, 'never')).status).toBe(404);
    expect((await client.read(WORKER, 'foreign')).status).toBe(404);
  });

  it('refuses a manifest of another kind as artifact_invalid and accepts the right one', async () => {
    const site = await commit(SITE_MANIFEST, [PAGE]);
    const wrong = await client.apply(WORKER, 'wrong-kind', { manifestDigest: site });
    expect(wrong.status).toBe(400);
    expect(errorCode(wrong)).toBe('artifact_invalid');
    expect(messageOf(wrong)).toMatch(/is a StaticAssetBundle; a WorkerBundle needs a WorkerBundle/);
    expect((await client.read(WORKER, 'wrong-kind')).status).toBe(404);
    expect((await client.apply(SITE, 'site', { manifestDigest: site })).status).toBe(201);
  });

  it('resolves the reference on import too', async () => {
    const answer = await client.import(WORKER, 'imported', { manifestDigest: `sha256:${'2'.repeat(64)}` }, 'native-1');
    expect(errorCode(answer)).toBe('artifact_missing');
    const digest = await commit(WORKER_MANIFEST, [MODULE]);
    expect((await client.import(WORKER, 'imported', { manifestDigest: digest }, 'native-1')).status).toBe(201);
  });

  it('keeps a referenced manifest and its blobs readable after another session of it is abandoned', async () => {
    const digest = await commit(SITE_MANIFEST, [PAGE]);
    const again = await subject.call('POST', `${API}/artifacts/uploads`, { body: { manifest: SITE_MANIFEST }, headers: key() });
    const { uploadId } = again.json as { uploadId: string };
    expect((await subject.call('DELETE', `${API}/artifacts/uploads/${uploadId}`, { headers: key() })).status).toBe(204);
    expect((await subject.call('GET', `${API}/artifacts/${digest}`)).status).toBe(200);
    expect((await subject.call('HEAD', `${API}/artifacts/blobs/${sha256(PAGE)}`)).status).toBe(200);
  });
});

describe('artifact references of asynchronous applies', () => {
  const ASYNC = { 'takoform-test-async': '1' };

  it('refuses an uncommitted digest before accepting (no Operation)', async () => {
    const answer = await client.apply(WORKER, 'async-missing', { manifestDigest: `sha256:${'3'.repeat(64)}` }, undefined, ASYNC);
    expect(answer.status).toBe(404);
    expect(errorCode(answer)).toBe('artifact_missing');
  });

  it.skipIf(TEST_STORE !== 'sqlite')('resolves again at commit: a stored manifest that no longer decodes fails the Operation', async () => {
    const module = Buffer.from('export default { async: true };\n');
    const manifest = { ...WORKER_MANIFEST, modules: [{ ...WORKER_MANIFEST.modules[0]!, size: module.length, digest: sha256(module) }] };
    const digest = await commit(manifest, [module]);
    const accepted = await client.apply(WORKER, 'async-bundle', { manifestDigest: digest }, undefined, ASYNC);
    expect(accepted.status).toBe(202);
    const id = (accepted.json as { operation: { id: string } }).operation.id;
    // Damage the stored manifest between accept and commit (what a broken store would hold).
    const db = new Database(subject.dbPath);
    db.prepare('UPDATE manifest_holdings SET manifest = ? WHERE manifest_digest = ?').run('{"not": "a manifest"', digest);
    db.close();
    let operation: { done: boolean; error?: { code: string } } = { done: false };
    for (let i = 0; i < 10 && !operation.done; i++) operation = (await subject.call('GET', `${API}/operations/${id}`)).json as typeof operation;
    expect(operation).toMatchObject({ done: true, error: { code: 'artifact_invalid' } });
    expect((await client.read(WORKER, 'async-bundle')).status).toBe(404);
  });
});

describe('manifest rules at upload and commit', () => {
  it.each(['.env', 'ünïcode.html', 'a b.html', 'x'.repeat(241)])('refuses the path %j, which the manifest schema forbids', async (bad) => {
    const manifest = { ...SITE_MANIFEST, files: [{ ...SITE_MANIFEST.files[0]!, path: bad }] };
    const answer = await subject.call('POST', `${API}/artifacts/uploads`, { body: { manifest }, headers: key() });
    expect(errorCode(answer)).toBe('artifact_invalid');
    expect(messageOf(answer)).toMatch(/files\[0\]\.path is not an artifact path/);
  });

  it('refuses a MigrationBundle file that is not application/sql, naming the file', async () => {
    const sql = Buffer.from('SELECT 1;\n');
    const manifest = {
      apiVersion: 'artifacts.takoform.com/v1alpha1',
      kind: 'MigrationBundle',
      files: [{ path: '0001.sql', mediaType: 'text/plain', size: sql.length, digest: sha256(sql) }],
    };
    const answer = await subject.call('POST', `${API}/artifacts/uploads`, { body: { manifest }, headers: key() });
    expect(answer.status).toBe(400);
    expect(errorCode(answer)).toBe('artifact_invalid');
    expect(messageOf(answer)).toMatch(/0001\.sql has media type text\/plain; a MigrationBundle carries only application\/sql/);
  });
});
