// The client's 202 Operation handling, import, support profiles and artifact upload,
// against the real reference Host with the whole external family, an async Form and the
// test switches on.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AcceptedOutcomeUnknownError, buildManifest, HostApiError, HostClient, newAttemptId, resourceRequest } from '../../src/host-client/index.js';
import { startHost, type RunningHost } from '../../src/host/server.js';
import { GENERIC_FORMS } from '../support/paths.js';
import { RANGE_SEQUENCE, TOKEN_A, TOKEN_B } from './support.js';

const RANGE_GAUGE = {
  apiVersion: 'resources.publisher.example',
  kind: 'RangeGauge',
  definitionVersion: '0.1.0',
  schemaDigest: '', // filled from the Host
};

let host: RunningHost;
let client: HostClient;
beforeAll(async () => {
  host = await startHost({
    listen: { host: '127.0.0.1', port: 0 },
    dbPath: path.join(mkdtempSync(path.join(tmpdir(), 'client-ops-')), 'host.db'),
    packageDirs: [GENERIC_FORMS],
    tokens: [
      { token: TOKEN_A, tenant: 'tenant-a', principal: 'alice' },
      { token: TOKEN_B, tenant: 'tenant-b', principal: 'bob' },
    ],
    satisfiableStandardServices: ['com.amazonaws.s3'],
    asyncForms: ['RangeSequence'],
    operationPendingPolls: 2,
    enableTestSwitches: true,
  });
  client = new HostClient({ endpoint: host.url, token: TOKEN_A });
});
afterAll(async () => {
  await client?.close();
  await host?.close();
});

const addr = (name: string) => ({ formRef: RANGE_SEQUENCE, space: 'demo', name });

describe('202 Operations', () => {
  it('follows an accepted create, update and delete to their results', async () => {
    const r = resourceRequest(RANGE_SEQUENCE, 'demo', 'async-one', { lower: 1, upper: 2 });
    const p = await client.resources.prepare(r);
    const created = await client.resources.apply({ ...r, spec: p.spec }, p, { kind: 'create' });
    expect(created.operationId).toMatch(/^op_/);
    expect(created.resource.metadata.generation).toBe('1');
    const uid = created.resource.metadata.uid;

    const r2 = resourceRequest(RANGE_SEQUENCE, 'demo', 'async-one', { lower: 1, upper: 3 });
    const p2 = await client.resources.prepare(r2, '1');
    const updated = await client.resources.apply({ ...r2, spec: p2.spec }, p2, { kind: 'update', expectedGeneration: '1', expectedUid: uid });
    expect(updated.resource.metadata.generation).toBe('2');
    expect(updated.operationId).toMatch(/^op_/);

    expect(await client.resources.delete(addr('async-one'), { expectedGeneration: '2', uid })).toBe('deleted');
    expect(await client.resources.read(addr('async-one'))).toBeUndefined();
  });

  it('reports "accepted, outcome unknown" with the operation id when the wait runs out', async () => {
    const r = resourceRequest(RANGE_SEQUENCE, 'demo', 'async-slow', { lower: 1, upper: 2 });
    const p = await client.resources.prepare(r);
    const attempt = newAttemptId();
    const e = await client.resources.apply({ ...r, spec: p.spec }, p, { kind: 'create' }, { operationTimeoutMs: 100, attempt }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AcceptedOutcomeUnknownError);
    const accepted = e as AcceptedOutcomeUnknownError;
    expect(accepted.operationId).toMatch(/^op_/);
    // Resuming: the operation finishes, and the same attempt (same key) replays, not duplicates.
    let op = await client.operations.get(accepted.operationId);
    for (let i = 0; i < 5 && !op.operation.done; i++) op = await client.operations.get(accepted.operationId);
    expect(op.operation.done).toBe(true);
    const again = await client.resources.apply({ ...r, spec: p.spec }, p, { kind: 'create' }, { attempt });
    expect(again.resource.metadata.generation).toBe('1');
  });

  it('cancels a pending Operation, which then ends as operation_cancelled', async () => {
    const r = resourceRequest(RANGE_SEQUENCE, 'demo', 'async-cancel', { lower: 1, upper: 2 });
    const p = await client.resources.prepare(r);
    const e = (await client.resources
      .apply({ ...r, spec: p.spec }, p, { kind: 'create' }, { operationTimeoutMs: 1 })
      .catch((x: unknown) => x)) as AcceptedOutcomeUnknownError;
    const cancelled = await client.operations.cancel(e.operationId);
    expect(cancelled.done).toBe(true);
    expect(cancelled.error?.code).toBe('operation_cancelled');
    expect(await client.resources.read(addr('async-cancel'))).toBeUndefined();
  });

  it("hides another principal's Operation", async () => {
    const r = resourceRequest(RANGE_SEQUENCE, 'demo', 'async-private', { lower: 1, upper: 2 });
    const p = await client.resources.prepare(r);
    const e = (await client.resources
      .apply({ ...r, spec: p.spec }, p, { kind: 'create' }, { operationTimeoutMs: 1 })
      .catch((x: unknown) => x)) as AcceptedOutcomeUnknownError;
    const other = new HostClient({ endpoint: host.url, token: TOKEN_B });
    const refused = await other.operations.get(e.operationId).catch((x: unknown) => x);
    expect((refused as HostApiError).code).toBe('operation_not_found');
    await other.close();
  });
});

describe('import', () => {
  it('mints by adoption, re-imports the same native object, and refuses a second holder', async () => {
    const forms = await client.forms.list({ space: 'demo', kind: 'RangeGauge', group: 'resources.publisher.example' });
    const gauge = { ...RANGE_GAUGE, schemaDigest: forms[0]!.identity.formRef.schemaDigest };
    const def = await client.forms.definition(gauge, 'demo');
    const required = (def.desiredSchema.required as string[] | undefined) ?? [];
    const spec = Object.fromEntries(required.map((k) => [k, 1]));
    const r = resourceRequest(gauge, 'demo', 'adopted', spec);
    const minted = await client.resources.import(r, 'native-object-1', { kind: 'new' });
    expect(minted.outcome).toBe('created');
    const again = await client.resources.import(r, 'native-object-1', { kind: 'existing', expectedGeneration: '1', uid: minted.resource.metadata.uid });
    expect(again.resource.metadata.uid).toBe(minted.resource.metadata.uid);
    const second = await client.resources
      .import(resourceRequest(gauge, 'demo', 'adopted-twice', spec), 'native-object-1', { kind: 'new' })
      .catch((x: unknown) => x);
    expect((second as HostApiError).code).toBe('import_conflict');
  });
});

describe('support profiles', () => {
  it('reads Interface, Binding and standard-service support', async () => {
    expect((await client.support.interface('publisher.constraintnode', '0.1.0')).kind).toBe('InterfaceSupport');
    expect((await client.support.binding('publisher.constraintlink', '0.1.0')).kind).toBe('BindingSupport');
    expect((await client.support.standardService('com.amazonaws.s3')).satisfiable).toBe(true);
    expect((await client.support.standardService('com.example.future-store')).satisfiable).toBe(false);
    expect(((await client.support.interface('publisher.unknown', '0.1.0').catch((x: unknown) => x)) as HostApiError).status).toBe(404);
  });
});

describe('artifacts', () => {
  const files = [
    { path: 'assets/index.html', mediaType: 'text/html', bytes: Buffer.from('<h1>hi</h1>\n') },
    { path: 'assets/app.css', mediaType: 'text/css', bytes: Buffer.from('h1 { color: teal }\n') },
  ];

  it('uploads only missing blobs, commits, verifies the digest, and reads the manifest back', async () => {
    const { manifest, blobs } = buildManifest('StaticAssetBundle', files);
    const first = await client.artifacts.upload(manifest, blobs);
    expect(first.uploadedBlobs).toBe(2);
    expect(await client.artifacts.hasBlob(manifest.files![0]!.digest)).toBe(true);
    expect(await client.artifacts.readManifest(first.manifestDigest)).toEqual(manifest);

    // The same bytes again: nothing to upload, same digest.
    const second = await client.artifacts.upload(manifest, blobs);
    expect(second.uploadedBlobs).toBe(0);
    expect(second.manifestDigest).toBe(first.manifestDigest);

    // Another tenant does not hold them.
    const other = new HostClient({ endpoint: host.url, token: TOKEN_B });
    expect(await other.artifacts.hasBlob(manifest.files![0]!.digest)).toBe(false);
    expect(await other.artifacts.readManifest(first.manifestDigest)).toBeUndefined();
    await other.close();
  });

  it('refuses bytes that do not match the manifest before sending anything', async () => {
    const { manifest } = buildManifest('StaticAssetBundle', files);
    const wrong = new Map([
      [manifest.files![0]!.digest, Buffer.from('tampered')],
      [manifest.files![1]!.digest, files[1]!.bytes],
    ]);
    await expect(client.artifacts.upload(manifest, wrong)).rejects.toThrow(/do not match/);
  });

  it('refuses unsafe artifact paths', () => {
    expect(() => buildManifest('StaticAssetBundle', [{ path: '../etc/passwd', mediaType: 'text/plain', bytes: Buffer.from('x') }])).toThrow(/relative/);
  });
});
