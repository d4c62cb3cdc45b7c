// Conformance against the frozen generic corpus (external-family): the whole folder loads, every
// fixture is honoured, relations are pinned by uid, and all ten constraint kinds are enforced.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, EXTERNAL_FAMILY, TOKEN_B, errorCode, startTestHost, type TestHost } from '../support/host-harness.js';
import { FamilyClient, readyOf, refOf, resourceOf, target } from './family-client.js';

const C = 'constraints.publisher.example';
const R = 'resources.publisher.example';
const NODE = refOf('constraint-node');
const MEMBER = refOf('constraint-member');
const SEQUENCE = refOf('range-sequence');
const COUNTER = refOf('range-counter');
const RESERVATION = refOf('counter-reservation');
const LEASE = refOf('counter-lease');
const LEASE_V2 = refOf('counter-lease-v0-2');
const ASSIGNED = refOf('assigned-counter');

let subject: TestHost;
let client: FamilyClient;

beforeAll(async () => {
  subject = await startTestHost({ packageDirs: [EXTERNAL_FAMILY], enableTestSwitches: true, satisfiableStandardServices: ['com.amazonaws.s3'] });
  client = new FamilyClient(subject);
});

afterAll(async () => {
  await subject.dispose();
});

describe('the whole external-family folder', () => {
  it('installs every Form the corpus expects, and the Interface and Binding', async () => {
    const corpus = JSON.parse(readFileSync(path.join(EXTERNAL_FAMILY, '../../generic.json'), 'utf8')) as {
      snapshotInputs: {
        name: string;
        expectedFormRefs: unknown[];
        expectedInterfaces?: { name: string; version: string }[];
        expectedBindings?: { name: string; version: string }[];
      }[];
    };
    const family = corpus.snapshotInputs.find((input) => input.name === 'external-family');
    const forms = (await subject.call('GET', `${API}/forms`)).json as { forms: { identity: { formRef: unknown } }[] };
    expect(forms.forms.map((entry) => entry.identity.formRef)).toEqual(expect.arrayContaining(family?.expectedFormRefs ?? []));
    expect(forms.forms).toHaveLength(family?.expectedFormRefs.length ?? -1);
    for (const expected of family?.expectedInterfaces ?? []) {
      const answer = await subject.call('GET', `${API}/support/interfaces/${expected.name}/${expected.version}`);
      expect(answer.status).toBe(200);
      expect(answer.json).toMatchObject({ apiVersion: 'support.takoform.com/v1', kind: 'InterfaceSupport', interfaceRef: expected });
    }
    for (const expected of family?.expectedBindings ?? []) {
      const answer = await subject.call('GET', `${API}/support/bindings/${expected.name}/${expected.version}`);
      expect(answer.json).toMatchObject({ kind: 'BindingSupport', bindingRef: expected });
    }
    expect(errorCode(await subject.call('GET', `${API}/support/interfaces/publisher.unknown/0.1.0`))).toBe('resource_not_found');
  });

  it('answers standard-service support for any valid protocol, satisfiable or not (route 22)', async () => {
    const s3 = await subject.call('GET', `${API}/support/standard-services/com.amazonaws.s3`);
    expect(s3.json).toEqual({
      apiVersion: 'support.takoform.com/v1',
      kind: 'StandardServiceSupport',
      serviceRef: { apiVersion: 'standards.takoform.com/v1', protocol: 'com.amazonaws.s3' },
      satisfiable: true,
    });
    const future = await subject.call('GET', `${API}/support/standard-services/com.example.future-store`);
    expect((future.json as { satisfiable: boolean }).satisfiable).toBe(false);
    expect(errorCode(await subject.call('GET', `${API}/support/standard-services/s3-compatible`))).toBe('invalid_argument');
  });
});

describe('package fixtures', () => {
  for (const folder of ['range-counter']) {
    const definition = JSON.parse(readFileSync(path.join(EXTERNAL_FAMILY, folder, 'definition.json'), 'utf8')) as {
      conformanceFixtures?: { name: string; desiredPath: string }[];
      negativeConformanceFixtures?: { name: string; inputPath: string }[];
    };
    for (const fixture of definition.conformanceFixtures ?? []) {
      it(`${folder}: positive fixture ${fixture.name} validates and creates`, async () => {
        const spec: unknown = JSON.parse(readFileSync(path.join(EXTERNAL_FAMILY, folder, fixture.desiredPath), 'utf8'));
        const validated = await subject.call('POST', `${API}/resources/validate`, { body: client.body(refOf(folder), 'fixture', spec) });
        expect(validated.json).toEqual({ valid: true, diagnostics: [] });
        expect((await client.apply(refOf(folder), `pos-${fixture.name}`, spec)).status).toBe(201);
      });
    }
    for (const fixture of definition.negativeConformanceFixtures ?? []) {
      it(`${folder}: negative fixture ${fixture.name} is refused with a pointer before mutation`, async () => {
        const spec: unknown = JSON.parse(readFileSync(path.join(EXTERNAL_FAMILY, folder, fixture.inputPath), 'utf8'));
        const validated = await subject.call('POST', `${API}/resources/validate`, { body: client.body(refOf(folder), 'fixture', spec) });
        expect((validated.json as { valid: boolean }).valid).toBe(false);
        const refused = await client.apply(refOf(folder), `neg-${fixture.name}`, spec);
        expect(refused.status).toBe(400);
        expect(refused.json).toMatchObject({ error: { code: 'invalid_argument', details: { pointer: expect.stringMatching(/^\/spec\//) } } });
        expect((await client.read(refOf(folder), `neg-${fixture.name}`)).status).toBe(404);
      });
    }
  }
});

describe('relations (§17) and derived readiness', () => {
  it('pins by uid, refuses deleting a pinned target, and renders DependencyMissing / ExternalChange until re-applied', async () => {
    const missing = await client.apply(RESERVATION, 'res-a', { target: target(R, 'RangeSequence', 'seq-a') });
    expect(missing.json).toMatchObject({ error: { code: 'resource_not_found', details: { pointer: '/spec/target' } } });
    const sequence = resourceOf(await client.apply(SEQUENCE, 'seq-a', { lower: 1, upper: 2 }));
    const created = await client.apply(RESERVATION, 'res-a', { target: target(R, 'RangeSequence', 'seq-a') });
    expect(created.status).toBe(201);
    const source = resourceOf(created);

    const blocked = await client.delete(SEQUENCE, 'seq-a', sequence.metadata.generation);
    expect(blocked.status).toBe(409);
    expect(errorCode(blocked)).toBe('dependency_in_use');

    // Removed behind the Host's back (test switch): the source is no longer Ready.
    const removed = await subject.call('POST', '/_takoform-test/v1/remove', { body: { apiVersion: R, kind: 'RangeSequence', name: 'seq-a', space: 'demo' } });
    expect(removed.status).toBe(204);
    const gone = await client.read(RESERVATION, 'res-a');
    expect(readyOf(gone)).toMatchObject({ status: 'False', reason: 'DependencyMissing' });
    expect(resourceOf(gone).metadata).toMatchObject({ generation: '1', revision: '2' });
    expect(gone.headers.get('etag')).toBe('"2"');

    // Re-created under a new uid: ExternalChange, still not re-bound.
    await client.apply(SEQUENCE, 'seq-a', { lower: 1, upper: 2 });
    const replaced = await client.read(RESERVATION, 'res-a');
    expect(readyOf(replaced)).toMatchObject({ status: 'False', reason: 'ExternalChange' });
    expect(resourceOf(replaced).metadata).toMatchObject({ generation: '1', revision: '3' });

    // An identical re-apply re-pins: Ready again, generation unchanged, revision moves.
    const repaired = await client.apply(RESERVATION, 'res-a', { target: target(R, 'RangeSequence', 'seq-a') }, '1');
    expect(repaired.status).toBe(200);
    expect(readyOf(repaired)).toMatchObject({ status: 'True', reason: 'Available' });
    expect(resourceOf(repaired).metadata).toMatchObject({ uid: source.metadata.uid, generation: '1', revision: '4' });
  });

  it('refuses a target outside the exact target FormRefs or without the required Interface', async () => {
    await client.apply(refOf('range-counter-v0-2'), 'counter-v2', {});
    const wrongRef = await client.apply(LEASE, 'lease-wrong', { target: target(R, 'RangeCounter', 'counter-v2') });
    expect(wrongRef.json).toMatchObject({ error: { code: 'invalid_argument', details: { pointer: '/spec/target' } } });
  });

  it('never resolves a relation into another tenant', async () => {
    await client.apply(SEQUENCE, 'seq-tenant', { lower: 1, upper: 2 });
    const other = new FamilyClient(subject, TOKEN_B);
    const answer = await other.apply(RESERVATION, 'res-tenant', { target: target(R, 'RangeSequence', 'seq-tenant') });
    expect(errorCode(answer)).toBe('resource_not_found');
  });
});

describe('the ten constraint kinds (§18)', () => {
  it('exclusive: one live holder per target and exact Form; other Forms do not conflict; deletion frees it', async () => {
    await client.apply(COUNTER, 'ctr-x', { lower: 1, upper: 2 });
    const first = resourceOf(await client.apply(LEASE, 'lease-1', { target: target(R, 'RangeCounter', 'ctr-x') }));
    const second = await client.apply(LEASE, 'lease-2', { target: target(R, 'RangeCounter', 'ctr-x') });
    expect(second.json).toMatchObject({ error: { code: 'invalid_argument', details: { pointer: '/spec/target' } } });
    expect((await client.apply(LEASE_V2, 'lease-v2', { target: target(R, 'RangeCounter', 'ctr-x') })).status).toBe(201);
    expect((await client.delete(LEASE, 'lease-1', first.metadata.generation)).status).toBe(204);
    expect((await client.apply(LEASE, 'lease-2', { target: target(R, 'RangeCounter', 'ctr-x') })).status).toBe(201);
  });

  it('claim: one claimant per tenant across spaces; another tenant may hold the same value', async () => {
    const ticket = refOf('constraint-claim-primary');
    expect((await client.apply(ticket, 'ticket-1', { claim: 'blue' })).status).toBe(201);
    const otherSpace = new FamilyClient(subject, undefined, 'other-space');
    const clash = await otherSpace.apply(ticket, 'ticket-2', { claim: 'blue' });
    expect(clash.json).toMatchObject({ error: { code: 'invalid_argument', details: { pointer: '/spec/claim' } } });
    expect((await new FamilyClient(subject, TOKEN_B).apply(ticket, 'ticket-1', { claim: 'blue' })).status).toBe(201);
    // A different Form claiming the same value does not conflict.
    expect((await client.apply(refOf('constraint-claim-alternate'), 'lease-blue', { alias: 'blue' })).status).toBe(201);
  });

  it('sum, orderedPair and uniqueBy: refused with a pointer, reported by validate as diagnostics', async () => {
    const weighted = refOf('constraint-sum');
    expect((await client.apply(weighted, 'weights-ok', { weights: [{ weight: 60 }, { weight: 40 }] })).status).toBe(201);
    const badSum = await client.apply(weighted, 'weights-bad', { weights: [{ weight: 60 }, { weight: 30 }] });
    expect(badSum.json).toMatchObject({ error: { code: 'invalid_argument', details: { pointer: '/spec/weights' } } });
    const structural = refOf('constraint-structural');
    const rows = [
      { key: 'a', value: 1 },
      { key: 'a', value: 2 },
    ];
    const badRows = await client.apply(structural, 'rows-bad', { lower: 1, upper: 2, rows });
    expect(badRows.json).toMatchObject({ error: { code: 'invalid_argument', details: { pointer: '/spec/rows/1/key' } } });
    const badOrder = await client.apply(structural, 'order-bad', { lower: 3, upper: 2, rows: [{ key: 'a', value: 1 }] });
    expect(badOrder.json).toMatchObject({ error: { code: 'invalid_argument', details: { pointer: '/spec/upper' } } });
    const validated = await subject.call('POST', `${API}/resources/validate`, { body: client.body(structural, 'x', { lower: 3, upper: 2, rows }) });
    expect((validated.json as { diagnostics: { field: string }[] }).diagnostics.map((entry) => entry.field).sort()).toEqual(['/rows/1/key', '/upper']);
  });

  it('distinctPair, uniquePair and acyclic over ConstraintNode relations', async () => {
    const node = (name: string, next?: string) => client.apply(NODE, name, next === undefined ? {} : { next: target(C, 'ConstraintNode', next) });
    await node('n1');
    await node('n2');
    const distinct = refOf('constraint-distinct-pair');
    const same = await client.apply(distinct, 'dp-bad', { left: target(C, 'ConstraintNode', 'n1'), right: target(C, 'ConstraintNode', 'n1') });
    expect(same.json).toMatchObject({ error: { code: 'invalid_argument', details: { pointer: '/spec/right' } } });
    expect((await client.apply(distinct, 'dp-ok', { left: target(C, 'ConstraintNode', 'n1') })).status).toBe(201);

    const pair = refOf('constraint-unique-pair');
    const spec = { left: target(C, 'ConstraintNode', 'n1'), right: target(C, 'ConstraintNode', 'n2') };
    expect((await client.apply(pair, 'up-1', spec)).status).toBe(201);
    expect(errorCode(await client.apply(pair, 'up-2', spec))).toBe('invalid_argument');
    expect((await client.apply(pair, 'up-reverse', { left: spec.right, right: spec.left })).status).toBe(201);
    expect((await client.apply(refOf('constraint-unique-pair-second'), 'up-v2', spec)).status).toBe(201);

    // n3 -> n1; then n1 -> n3 would close a cycle; n1 -> n1 too.
    expect((await node('n3', 'n1')).status).toBe(201);
    const cycle = await client.apply(NODE, 'n1', { next: target(C, 'ConstraintNode', 'n3') }, '1');
    expect(cycle.json).toMatchObject({ error: { code: 'invalid_argument', details: { pointer: '/spec/next' } } });
    expect(errorCode(await client.apply(NODE, 'n2', { next: target(C, 'ConstraintNode', 'n2') }, '1'))).toBe('invalid_argument');
  });

  it('sameResolvedTarget: every member must reach the anchor through /through', async () => {
    await client.apply(NODE, 'anchor-a', {});
    await client.apply(NODE, 'anchor-b', {});
    await client.apply(MEMBER, 'member-a', { through: target(C, 'ConstraintNode', 'anchor-a') });
    await client.apply(MEMBER, 'member-b', { through: target(C, 'ConstraintNode', 'anchor-b') });
    const holder = refOf('constraint-same-target');
    const ok = await client.apply(holder, 'same-ok', { anchor: target(C, 'ConstraintNode', 'anchor-a'), members: [target(C, 'ConstraintMember', 'member-a')] });
    expect(ok.status).toBe(201);
    const bad = await client.apply(holder, 'same-bad', {
      anchor: target(C, 'ConstraintNode', 'anchor-a'),
      members: [target(C, 'ConstraintMember', 'member-a'), target(C, 'ConstraintMember', 'member-b')],
    });
    expect(bad.json).toMatchObject({ error: { code: 'invalid_argument', details: { pointer: '/spec/members/1' } } });
  });

  it('hostAssigned: outputs minted, valid, stable for the uid, never substituted by desired state', async () => {
    const created = resourceOf(await client.apply(ASSIGNED, 'assigned', { label: 'one' }));
    const outputs = created.status.outputs as { assignedName: string; ordinal: number };
    expect(outputs.assignedName).toMatch(/^[a-z0-9.-]+$/);
    expect(outputs.ordinal).toBeGreaterThanOrEqual(1);
    const updated = resourceOf(await client.apply(ASSIGNED, 'assigned', { label: 'two' }, '1'));
    expect(updated.status.outputs).toEqual(outputs);
    expect(updated.metadata.generation).toBe('2');
    const other = resourceOf(await client.apply(ASSIGNED, 'assigned-2', { label: 'one' }));
    expect(other.status.outputs).not.toEqual(outputs);
    const substitute = await client.apply(ASSIGNED, 'assigned-3', { label: 'x', assignedName: 'mine' });
    expect(substitute.json).toMatchObject({ error: { code: 'invalid_argument', details: { pointer: '/spec/assignedName' } } });
    // status.outputs is omitted, not {}, for a Form without an outputSchema.
    const plain = resourceOf(await client.apply(SEQUENCE, 'no-outputs', { lower: 1, upper: 1 }));
    expect(plain.status).not.toHaveProperty('outputs');
  });
});

describe('import (§12.3)', () => {
  it('mints by adoption (201), adopts in place (200), and holds nativeId claims per tenant across spaces and kinds', async () => {
    const minted = await client.import(SEQUENCE, 'imp-a', { lower: 1, upper: 5 }, 'native-1');
    expect(minted.status).toBe(201);
    expect(minted.headers.get('etag')).toBe('"1"');
    expect(minted.text).not.toContain('native-1');
    const inPlace = await client.import(SEQUENCE, 'imp-a', { lower: 1, upper: 6 }, 'native-1', '1');
    expect(inPlace.status).toBe(200);
    expect(resourceOf(inPlace).metadata).toMatchObject({ uid: resourceOf(minted).metadata.uid, generation: '2' });

    expect(errorCode(await client.import(SEQUENCE, 'imp-a', { lower: 1, upper: 6 }, 'native-2', '2'))).toBe('import_conflict');
    expect(errorCode(await new FamilyClient(subject, undefined, 'elsewhere').import(COUNTER, 'imp-b', { lower: 1, upper: 2 }, 'native-1'))).toBe(
      'import_conflict',
    );
    expect((await new FamilyClient(subject, TOKEN_B).import(SEQUENCE, 'imp-a', { lower: 1, upper: 5 }, 'native-1')).status).toBe(201);
    expect(errorCode(await client.import(SEQUENCE, 'imp-a', { lower: 1, upper: 6 }, 'native-1', '1'))).toBe('generation_conflict');
    expect(errorCode(await client.import(SEQUENCE, 'imp-a', { lower: 1, upper: 6 }, 'native-1'))).toBe('generation_conflict');
    expect(errorCode(await client.import(SEQUENCE, 'imp-missing', { lower: 1, upper: 6 }, 'native-9', '1'))).toBe('resource_not_found');

    // Deleting the holder releases the claim.
    expect((await client.delete(SEQUENCE, 'imp-a', '2')).status).toBe(204);
    expect((await client.import(COUNTER, 'imp-c', { lower: 1, upper: 2 }, 'native-1')).status).toBe(201);
  });
});
