// Artifact transport (wire reference §14, routes 12-17). Upload sessions belong to the tenant and
// principal that started them (anyone else: artifact_missing). Bytes are stored once per digest,
// but holdings are per tenant: a tenant holds a blob by uploading it and a manifest by committing
// it, and missingBlobs, manifest reads and blob HEADs answer only from the caller's holdings.
import { canonicalJson, jcsDigest, sha256Digest } from '../../common/digest.js';
import type { JsonValue } from '../../common/json-value.js';
import { expectMembers, expectObject } from '../closed-document.js';
import { HostError, invalidArgument } from '../errors.js';
import { isDigest } from '../grammar.js';
import type { HostContext } from '../host-context.js';
import { jsonResponse, noContentResponse, type HostResponse } from '../http/response.js';
import { pathParameter, requireCaller, type RouteRequest } from '../http/route-request.js';
import { executeIdempotently } from '../idempotency.js';
import { readManifest } from '../artifacts/artifact-manifest.js';
import type { StoreTransaction, UploadSession } from '../store/store.js';

const UPLOAD_ID = /^up_[A-Za-z0-9][A-Za-z0-9._-]{0,124}$/;

export function handleUploadStart(host: HostContext, request: RouteRequest): Promise<HostResponse> {
  const caller = requireCaller(request);
  return executeIdempotently(host, request, '', async (tx) => {
    const body = expectObject(request.body, '');
    expectMembers(body, '', ['manifest']);
    const entries = readManifest(body.manifest);
    const manifest = canonicalJson(body.manifest);
    const manifestDigest = jcsDigest(body.manifest);
    const existing = await tx.findOpenUpload(caller.tenant, caller.principal, manifestDigest);
    const session: UploadSession = existing ?? {
      id: host.mintHandle('up'),
      tenant: caller.tenant,
      principal: caller.principal,
      manifestDigest,
      manifest,
      state: 'open',
    };
    if (existing === undefined) await tx.saveUpload(session);
    const missingBlobs: string[] = [];
    for (const digest of new Set(entries.map((entry) => entry.digest))) {
      if (!(await tx.holdsBlob(caller.tenant, digest))) missingBlobs.push(digest);
    }
    return { response: jsonResponse(existing === undefined ? 201 : 200, { uploadId: session.id, missingBlobs }) };
  });
}

export async function handleBlobUpload(host: HostContext, request: RouteRequest): Promise<HostResponse> {
  const digest = blobDigest(request);
  const contentType = request.headers['content-type'];
  if (contentType !== undefined && contentType.split(';')[0].trim().toLowerCase() !== 'application/octet-stream') {
    throw invalidArgument('blob bytes must be sent as Content-Type: application/octet-stream');
  }
  return host.store.transaction(
    async (tx) => {
      const session = await ownedUpload(tx, request);
      if (session.state !== 'open') throw invalidArgument(`upload ${session.id} is ${session.state}; start a new upload`);
      const entry = readManifest(JSON.parse(session.manifest) as JsonValue).find((candidate) => candidate.digest === digest);
      if (entry === undefined) throw new HostError('artifact_invalid', `the manifest of upload ${session.id} declares no blob ${digest}`);
      const tenant = requireCaller(request).tenant;
      if (await tx.holdsBlob(tenant, digest)) return noContentResponse();
      if (sha256Digest(request.rawBody) !== digest) throw new HostError('artifact_invalid', `the bytes do not hash to ${digest}`);
      if (request.rawBody.length !== entry.size)
        throw new HostError('artifact_invalid', `the blob is ${request.rawBody.length} bytes; the manifest says ${entry.size}`);
      await tx.saveBlob(digest, request.rawBody);
      await tx.grantBlob(tenant, digest);
      return { status: 201, body: new Uint8Array(0) };
    },
    { queue: requireCaller(request).tenant },
  );
}

export function handleUploadCommit(host: HostContext, request: RouteRequest): Promise<HostResponse> {
  return executeIdempotently(host, request, '', async (tx) => {
    const session = await ownedUpload(tx, request);
    if (session.state === 'abandoned') throw new HostError('artifact_missing', `upload ${session.id} was abandoned`);
    if (session.state === 'committed') return { response: jsonResponse(200, { manifestDigest: session.manifestDigest }) };
    // Full re-validation: the manifest rules, then every blob held by the tenant.
    const entries = readManifest(JSON.parse(session.manifest) as JsonValue);
    for (const entry of entries) {
      if (!(await tx.holdsBlob(session.tenant, entry.digest))) {
        throw new HostError('artifact_missing', `blob ${entry.digest} (${entry.path}) has not been uploaded`);
      }
    }
    await tx.saveUpload({ ...session, state: 'committed' });
    await tx.grantManifest(session.tenant, session.manifestDigest, session.manifest);
    return { response: jsonResponse(201, { manifestDigest: session.manifestDigest }) };
  });
}

export async function handleManifestRead(host: HostContext, request: RouteRequest): Promise<HostResponse> {
  const digest = pathParameter(request, 'manifestDigest');
  const tenant = requireCaller(request).tenant;
  const manifest = await host.store.transaction((tx) => tx.findManifest(tenant, digest));
  if (manifest === undefined) throw new HostError('artifact_missing', 'your tenant holds no committed manifest with this digest');
  return { status: 200, body: Buffer.from(manifest, 'utf8') };
}

export async function handleBlobHead(host: HostContext, request: RouteRequest): Promise<HostResponse> {
  const digest = blobDigest(request);
  const tenant = requireCaller(request).tenant;
  const held = await host.store.transaction((tx) => tx.holdsBlob(tenant, digest));
  if (!held) throw new HostError('artifact_missing', 'your tenant holds no blob with this digest');
  return { status: 200, body: new Uint8Array(0) };
}

export function handleUploadAbandon(host: HostContext, request: RouteRequest): Promise<HostResponse> {
  return executeIdempotently(host, request, '', async (tx) => {
    const session = await ownedUpload(tx, request);
    // Abandoning never removes bytes: the tenant's holdings (and anyone else's) stay.
    if (session.state === 'open') await tx.saveUpload({ ...session, state: 'abandoned' });
    return { response: noContentResponse() };
  });
}

async function ownedUpload(tx: StoreTransaction, request: RouteRequest): Promise<UploadSession> {
  const caller = requireCaller(request);
  const id = pathParameter(request, 'uploadId');
  const session = UPLOAD_ID.test(id) ? await tx.findUpload(id) : undefined;
  if (session === undefined || session.tenant !== caller.tenant || session.principal !== caller.principal) {
    throw new HostError('artifact_missing', 'no upload of yours has this id');
  }
  return session;
}

function blobDigest(request: RouteRequest): string {
  const digest = pathParameter(request, 'blobDigest');
  if (!isDigest(digest)) throw invalidArgument('the blob path segment must be sha256:<64 lowercase hex>');
  return digest;
}
