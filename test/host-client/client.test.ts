// The client against the real reference Host over HTTP: every route it has a Host for,
// every fence outcome, and replay.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostApiError, HostClient, newAttemptId, resourceRequest } from '../../src/host-client/index.js';
import type { RunningHost } from '../../src/host/server.js';
import { RANGE_SEQUENCE, startTestHost, TOKEN_A, TOKEN_B } from './support.js';

let host: RunningHost;
let client: HostClient;
beforeAll(async () => {
  host = await startTestHost();
  client = new HostClient({ endpoint: host.url, token: TOKEN_A });
});
afterAll(async () => {
  await client?.close();
  await host?.close();
});

const req = (name: string, spec: Record<string, number | string>) => resourceRequest(RANGE_SEQUENCE, 'demo', name, spec);
const addr = (name: string) => ({ formRef: RANGE_SEQUENCE, space: 'demo', name });

describe('catalog routes', () => {
  it('discovers the API root once and lists, probes and describes Forms', async () => {
    expect(await client.discover()).toBe('/apis/forms.takoform.com/v1');
    const forms = await client.forms.list({ space: 'demo' });
    expect(forms.map((f) => f.identity.formRef.kind).sort()).toEqual(['RangeCounter', 'RangeSequence']);
    const probe = await client.forms.probe(RANGE_SEQUENCE, 'demo');
    expect(probe?.operations).toContain('update');
    expect(await client.forms.probe({ ...RANGE_SEQUENCE, definitionVersion: '9.9.9' }, 'demo')).toBeUndefined();
    const def = await client.forms.definition(RANGE_SEQUENCE, 'demo');
    expect(def.desiredSchema.required).toEqual(['lower', 'upper']);
  });
  it('reads support profiles', async () => {
    const all = await client.support.forms();
    expect(all.length).toBe(2);
    const one = await client.support.form(RANGE_SEQUENCE);
    expect(one.formRef).toEqual(RANGE_SEQUENCE);
  });
});

describe('resource lifecycle and fences', () => {
  it('validates without mutating', async () => {
    const ok = await client.resources.validate(req('v1', { lower: 1, upper: 2 }));
    expect(ok.valid).toBe(true);
    const bad = await client.resources.validate(req('v1', { lower: 1, upper: 2, extra: 1 }));
    expect(bad.valid).toBe(false);
    expect(await client.resources.read(addr('v1'))).toBeUndefined();
  });

  it('prepares with the Host materialized spec and binding of the worked exchange', async () => {
    const prepared = await client.resources.prepare(req('range-sequence', { lower: 3, upper: 6 }));
    expect(prepared.spec).toEqual({ lower: 3, mode: 'safe', upper: 6 });
    expect(prepared.specDigest).toBe('sha256:cf7e78bf9b9293d6f8ff7cc13ed4c430af7b0277513906804e3a616871784a3c');
  });

  it('creates, replays, updates with fences, observes and deletes', async () => {
    const r1 = req('life', { lower: 1, upper: 2 });
    const p1 = await client.resources.prepare(r1);
    const created = await client.resources.apply({ ...r1, spec: p1.spec }, p1, { kind: 'create' });
    expect(created.outcome).toBe('created');
    expect(created.resource.metadata.generation).toBe('1');

    // Another create of the same name and spec is another attempt: refused, never replayed.
    const second = (await client.resources.apply({ ...r1, spec: p1.spec }, p1, { kind: 'create' }).catch((e: unknown) => e)) as HostApiError;
    expect(second).toBeInstanceOf(HostApiError);
    expect(second.code).toBe('generation_conflict');

    // A create of a taken name is a generation conflict.
    const other = await client.resources.prepare(req('life', { lower: 1, upper: 5 })).catch((e: unknown) => e);
    expect(other).toBeInstanceOf(HostApiError);

    const uid = created.resource.metadata.uid;
    const r2 = req('life', { lower: 1, upper: 3 });
    const p2 = await client.resources.prepare(r2, '1');
    const updated = await client.resources.apply({ ...r2, spec: p2.spec }, p2, {
      kind: 'update',
      expectedGeneration: '1',
      expectedUid: uid,
      ifMatchRevision: '1',
    });
    expect(updated.outcome).toBe('updated');
    expect(updated.resource.metadata.generation).toBe('2');

    // Stale generation, stale revision and a wrong incarnation are all refused.
    const stale = await client.resources
      .apply({ ...r2, spec: p2.spec }, p2, { kind: 'update', expectedGeneration: '1', expectedUid: uid, ifMatchRevision: '9' })
      .catch((e: unknown) => e);
    expect((stale as HostApiError).code).toMatch(/generation_conflict|revision_conflict|invalid_argument/);
    const r3 = req('life', { lower: 0, upper: 3 });
    const p3 = await client.resources.prepare(r3, '2');
    const wrongUid = await client.resources
      .apply({ ...r3, spec: p3.spec }, p3, { kind: 'update', expectedGeneration: '2', expectedUid: 'res_other', ifMatchRevision: '2' })
      .catch((e: unknown) => e);
    expect((wrongUid as HostApiError).code).toBe('uid_mismatch');
    const wrongRev = await client.resources
      .apply({ ...r3, spec: p3.spec }, p3, { kind: 'update', expectedGeneration: '2', expectedUid: uid, ifMatchRevision: '1' })
      .catch((e: unknown) => e);
    expect((wrongRev as HostApiError).code).toBe('revision_conflict');

    const observed = await client.resources.observe(addr('life'), '2');
    expect(observed.metadata.uid).toBe(uid);
    const staleObserve = await client.resources.observe(addr('life'), '1').catch((e: unknown) => e);
    expect((staleObserve as HostApiError).code).toBe('generation_conflict');

    const staleDelete = await client.resources.delete(addr('life'), { expectedGeneration: '1', uid }).catch((e: unknown) => e);
    expect((staleDelete as HostApiError).code).toBe('generation_conflict');
    expect(await client.resources.delete(addr('life'), { expectedGeneration: '2', uid })).toBe('deleted');
    expect(await client.resources.read(addr('life'))).toBeUndefined();
    // Another delete of the gone resource — same fences, another attempt — is "already gone".
    expect(await client.resources.delete(addr('life'), { expectedGeneration: '2', uid })).toBe('absent');
    expect(await client.resources.delete(addr('life'), { expectedGeneration: '3', uid })).toBe('absent');
  });

  it('replays a resumed attempt to its own caller only: same attempt id, same uid; another attempt is refused', async () => {
    const r = req('owned-once', { lower: 1, upper: 2 });
    const p = await client.resources.prepare(r);
    const attempt = newAttemptId();
    const created = await client.resources.apply({ ...r, spec: p.spec }, p, { kind: 'create' }, { attempt });
    const resumed = await client.resources.apply({ ...r, spec: p.spec }, p, { kind: 'create' }, { attempt });
    expect(resumed.resource).toEqual(created.resource);
    const other = (await client.resources.apply({ ...r, spec: p.spec }, p, { kind: 'create' }).catch((e: unknown) => e)) as HostApiError;
    expect(other.code).toBe('generation_conflict');
    // Two owners updating the same uid and generation with the same body: one wins, the
    // other is fenced out instead of being handed the winner's recorded answer.
    const r2 = req('owned-once', { lower: 1, upper: 7 });
    const p2 = await client.resources.prepare(r2, '1');
    const fence = { kind: 'update' as const, expectedGeneration: '1', expectedUid: created.resource.metadata.uid };
    const won = await client.resources.apply({ ...r2, spec: p2.spec }, p2, fence);
    expect(won.resource.metadata.generation).toBe('2');
    const lost = (await client.resources.apply({ ...r2, spec: p2.spec }, p2, fence).catch((e: unknown) => e)) as HostApiError;
    expect(lost.code).toBe('generation_conflict');
  });

  it('does not let a replayed old refusal block a request that would now succeed', async () => {
    const first = req('reused', { lower: 1, upper: 2 });
    const second = req('reused', { lower: 1, upper: 9 });
    // Create bindings are deterministic (no uid or generation to pin), so this one stays valid.
    const p2 = await client.resources.prepare(second);
    const p1 = await client.resources.prepare(first);
    const created = await client.resources.apply({ ...first, spec: p1.spec }, p1, { kind: 'create' });
    // A create of the taken name is refused; the Host records that refusal under its key.
    const attempt = newAttemptId();
    const refused = (await client.resources.apply({ ...second, spec: p2.spec }, p2, { kind: 'create' }, { attempt }).catch((e: unknown) => e)) as HostApiError;
    expect(refused.code).toBe('generation_conflict');
    await client.resources.delete(addr('reused'), { expectedGeneration: '1', uid: created.resource.metadata.uid });
    // The very same attempt resumed (same key) must now be judged afresh, not replayed.
    const again = await client.resources.apply({ ...second, spec: p2.spec }, p2, { kind: 'create' }, { attempt });
    expect(again.outcome).toBe('created');
    expect(again.resource.spec.upper).toBe(9);
  });

  it('never shows another tenant the resource', async () => {
    const r = req('tenant-a-only', { lower: 1, upper: 2 });
    const p = await client.resources.prepare(r);
    await client.resources.apply({ ...r, spec: p.spec }, p, { kind: 'create' });
    const b = new HostClient({ endpoint: host.url, token: TOKEN_B });
    expect(await b.resources.read(addr('tenant-a-only'))).toBeUndefined();
    await b.close();
  });

  it('maps a refusal to a typed error with code, status, request id and pointer', async () => {
    const e = (await client.resources.prepare(req('bad', { lower: 1, upper: 'x' })).catch((x: unknown) => x)) as HostApiError;
    expect(e).toBeInstanceOf(HostApiError);
    expect(e.code).toBe('invalid_argument');
    expect(e.status).toBe(400);
    expect(e.retryable).toBe(false);
    expect(e.requestId).toMatch(/^req_/);
    expect(e.pointer).toBe('/spec/upper');
    expect(e.message).not.toContain(TOKEN_A);
  });
});
