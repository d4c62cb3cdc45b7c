// Artifact transport (wire reference §14): the manifest is built and digested locally
// (RFC 8785), every blob is checked against its declared digest and size before it leaves,
// only the blobs the Host reports missing are uploaded, the committed manifestDigest must
// equal ours, and a failed upload is abandoned so no half-session lingers.
import { createHash, randomBytes } from 'node:crypto';
import { jcsDigest, sha256Digest } from '../common/digest.js';
import { ConfigurationError, HostApiError, HostClientError, ProtocolViolationError } from './errors.js';
import { DIGEST_PATTERN, Reader } from './decode.js';
import { expectEmptyBody, expectStatus, seg, type HostConnection } from './connection.js';
import { readAccepted, type OperationsApi } from './operations-api.js';
import { firstHeader, parseRetryAfter, type StreamedBody } from './transport.js';

export type ArtifactKind = 'WorkerBundle' | 'StaticAssetBundle' | 'MigrationBundle';

export interface ArtifactEntry {
  readonly mediaType: string;
  readonly size: number;
  readonly digest: string;
}

export interface ArtifactManifest {
  readonly apiVersion: 'artifacts.takoform.com/v1alpha1';
  readonly kind: ArtifactKind;
  readonly mainModule?: string;
  readonly modules?: readonly (ArtifactEntry & { readonly name: string })[];
  readonly files?: readonly (ArtifactEntry & { readonly path: string })[];
}

export interface ArtifactFile {
  /** Relative, slash-separated path (the module name for WorkerBundle). */
  readonly path: string;
  readonly mediaType: string;
  readonly bytes: Uint8Array;
}

export interface UploadResult {
  readonly manifestDigest: string;
  readonly manifest: ArtifactManifest;
  readonly uploadedBlobs: number;
}

const UPLOAD_ID = /^up_[A-Za-z0-9][A-Za-z0-9._-]{0,124}$/;

/** Builds a manifest (entries sorted by path) and the blob table for a set of files. */
export function buildManifest(
  kind: ArtifactKind,
  files: readonly ArtifactFile[],
  mainModule?: string,
): { manifest: ArtifactManifest; blobs: Map<string, Uint8Array> } {
  const blobs = new Map<string, Uint8Array>();
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const f of sorted) {
    if (
      f.path === '' ||
      f.path.startsWith('/') ||
      f.path.includes('\\') ||
      f.path.includes('\0') ||
      f.path.split('/').some((p) => p === '' || p === '.' || p === '..')
    ) {
      throw new ConfigurationError(`artifact path ${JSON.stringify(f.path)} must be relative, slash-separated, without . or .. segments`);
    }
    blobs.set(sha256Digest(f.bytes), f.bytes);
  }
  const entries = sorted.map((f) => ({ mediaType: f.mediaType, size: f.bytes.length, digest: sha256Digest(f.bytes) }));
  if (kind === 'WorkerBundle') {
    if (!mainModule) throw new ConfigurationError('a WorkerBundle needs a mainModule');
    return {
      manifest: { apiVersion: 'artifacts.takoform.com/v1alpha1', kind, mainModule, modules: sorted.map((f, i) => ({ name: f.path, ...entries[i]! })) },
      blobs,
    };
  }
  return { manifest: { apiVersion: 'artifacts.takoform.com/v1alpha1', kind, files: sorted.map((f, i) => ({ path: f.path, ...entries[i]! })) }, blobs };
}

export class ArtifactsApi {
  constructor(
    private readonly conn: HostConnection,
    private readonly operations: OperationsApi,
  ) {}

  /**
   * Uploads the blobs the Host lacks and commits the manifest; returns its digest. A blob is bytes
   * in memory (checked against its digest here) or a stream opened per attempt (its size is
   * checked here; its digest by the Host, which refuses bytes that do not hash to it).
   */
  async upload(manifest: ArtifactManifest, blobs: ReadonlyMap<string, Uint8Array | StreamedBody>): Promise<UploadResult> {
    const declared = [...(manifest.modules ?? []), ...(manifest.files ?? [])];
    for (const entry of declared) {
      const blob = blobs.get(entry.digest);
      if (!blob) throw new ConfigurationError(`no bytes for manifest entry ${entry.digest}`);
      const matches = blob instanceof Uint8Array ? sha256Digest(blob) === entry.digest && blob.length === entry.size : blob.size === entry.size;
      if (!matches) throw new ConfigurationError(`bytes for ${entry.digest} do not match the declared digest and size`);
    }
    const manifestDigest = jcsDigest(manifest);
    const api = await this.conn.api();

    // A fresh nonce per upload run: a re-run gets a fresh missingBlobs answer.
    const startKey = `takoform-upload-${createHash('sha256')
      .update(manifestDigest + randomBytes(16).toString('hex'))
      .digest('hex')}`;
    const startRoute = 'artifact-upload-start';
    const started = await this.conn.transport.send({
      route: startRoute,
      method: 'POST',
      path: `${api}/artifacts/uploads`,
      headers: { 'idempotency-key': startKey },
      body: JSON.stringify({ manifest }),
      safeToRetry: true,
    });
    expectStatus(startRoute, started, [200, 201]);
    const r = new Reader(startRoute);
    const session = r.object(started.body, 'upload session', ['uploadId', 'missingBlobs']);
    const uploadId = r.string(session.uploadId, 'uploadId', UPLOAD_ID);
    const missing = (Array.isArray(session.missingBlobs) ? (session.missingBlobs as unknown[]) : r.fail('missingBlobs must be an array')).map((d, i) =>
      r.string(d, `missingBlobs[${i}]`, DIGEST_PATTERN),
    );
    if (new Set(missing).size !== missing.length) r.fail('missingBlobs repeats a digest');
    for (const d of missing) if (!blobs.has(d) || !declared.some((e) => e.digest === d)) r.fail(`missingBlobs names ${d}, which the manifest does not declare`);

    try {
      for (const digest of missing) {
        const route = 'artifact-blob-upload';
        const res = await this.conn.transport.send({
          route,
          method: 'PUT',
          path: `${api}/artifacts/uploads/${seg(uploadId)}/blobs/${digest}`,
          rawBody: blobs.get(digest)!,
          safeToRetry: true,
        });
        expectStatus(route, res, [201, 204]);
        expectEmptyBody(route, res);
      }
      const commitRoute = 'artifact-commit';
      const commitKey = `takoform-commit-${createHash('sha256').update(uploadId).digest('hex')}`;
      const committed = await this.conn.transport.send({
        route: commitRoute,
        method: 'POST',
        path: `${api}/artifacts/uploads/${seg(uploadId)}/commit`,
        headers: { 'idempotency-key': commitKey },
        safeToRetry: true,
      });
      expectStatus(commitRoute, committed, [200, 201, 202]);
      let body: unknown = committed.body;
      if (committed.status === 202) {
        body = await this.operations.waitForResult(
          commitRoute,
          readAccepted(commitRoute, committed.body),
          parseRetryAfter(firstHeader(committed.headers['retry-after'])),
          undefined,
        );
      }
      const cr = new Reader(commitRoute);
      const got = cr.string(cr.object(body, 'commit result', ['manifestDigest']).manifestDigest, 'manifestDigest', DIGEST_PATTERN);
      if (got !== manifestDigest) cr.fail(`committed manifestDigest ${got} differs from the local JCS digest ${manifestDigest}`);
      return { manifestDigest, manifest, uploadedBlobs: missing.length };
    } catch (e) {
      await this.abandon(uploadId).catch(() => undefined);
      throw e;
    }
  }

  /** DELETE {api}/artifacts/uploads/{uploadId}. */
  async abandon(uploadId: string): Promise<void> {
    const route = 'artifact-upload-abandon';
    const api = await this.conn.api();
    const key = `takoform-abandon-${createHash('sha256').update(uploadId).digest('hex')}`;
    const res = await this.conn.transport.send({
      route,
      method: 'DELETE',
      path: `${api}/artifacts/uploads/${seg(uploadId)}`,
      headers: { 'idempotency-key': key },
      safeToRetry: true,
    });
    expectStatus(route, res, [204]);
  }

  /** GET {api}/artifacts/{manifestDigest}: the committed manifest, verified by digest. */
  async readManifest(manifestDigest: string): Promise<ArtifactManifest | undefined> {
    const route = 'artifact-manifest-read';
    const api = await this.conn.api();
    try {
      const res = await this.conn.transport.send({ route, method: 'GET', path: `${api}/artifacts/${manifestDigest}`, safeToRetry: true });
      expectStatus(route, res, [200]);
      if (jcsDigest(res.body) !== manifestDigest) throw new ProtocolViolationError(route, 'the manifest does not hash to the requested digest');
      return res.body as ArtifactManifest;
    } catch (e) {
      if (e instanceof HostApiError && e.code === 'artifact_missing') return undefined;
      throw e;
    }
  }

  /** HEAD {api}/artifacts/blobs/{sha256}: whether the caller's tenant holds the blob. */
  async hasBlob(digest: string): Promise<boolean> {
    const route = 'artifact-blob-head';
    const api = await this.conn.api();
    try {
      const res = await this.conn.transport.send({ route, method: 'HEAD', path: `${api}/artifacts/blobs/${digest}`, safeToRetry: true });
      expectStatus(route, res, [200]);
      return true;
    } catch (e) {
      if (e instanceof HostApiError && (e.code === 'artifact_missing' || e.status === 404)) return false;
      if (e instanceof HostClientError && /HTTP 404/.test(e.message)) return false;
      throw e;
    }
  }
}
