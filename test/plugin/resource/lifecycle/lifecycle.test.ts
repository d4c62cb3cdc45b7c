// The one resource lifecycle, fast and without processes: plan / apply / refresh / delete /
// import of both kinds (the typed RangeSequence type and takoform_resource for the same Form)
// against a fake Host that scripts answers and records calls. The real Host and the real CLIs
// are covered by test/e2e and test/reliability; this table pins down each decision of the
// lifecycle itself and that both kinds take the same one.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson, jcsDigest } from '../../../../src/common/digest.js';
import {
  AcceptedOutcomeUnknownError,
  HostApiError,
  type FormRef,
  type JsonObject,
  type MutationOptions,
  type ResourceRequest,
  type ResourceResponse,
} from '../../../../src/host-client/index.js';
import { CreateJournal } from '../../../../src/plugin/resource/create-journal.js';
import { FormResourceType } from '../../../../src/plugin/resource/form-resource-type.js';
import { GenericResourceKind } from '../../../../src/plugin/resource/generic-resource.js';
import { applyChange } from '../../../../src/plugin/resource/lifecycle/apply.js';
import type { HostAccess, LifecycleClient } from '../../../../src/plugin/resource/lifecycle/host-access.js';
import { importResource } from '../../../../src/plugin/resource/lifecycle/import.js';
import { planChange } from '../../../../src/plugin/resource/lifecycle/plan.js';
import { LIFETIME_MS, PreparedBindings } from '../../../../src/plugin/resource/lifecycle/prepared-bindings.js';
import { readResource } from '../../../../src/plugin/resource/lifecycle/read.js';
import type { ResourceKind } from '../../../../src/plugin/resource/resource-kind.js';
import { jsonToDynamic } from '../../../../src/plugin/schema/form-mapping.js';
import { TfNumber } from '../../../../src/plugin/values/tf-number.js';
import { isUnknown, objectValue, UNKNOWN, type TfObject, type TfValue } from '../../../../src/plugin/values/tf-value.js';
import { GENERIC_FORMS } from '../../../support/paths.js';

const dir = path.join(GENERIC_FORMS, 'range-sequence');
const def = JSON.parse(readFileSync(path.join(dir, 'definition.json'), 'utf8'));
const REF: FormRef = JSON.parse(readFileSync(path.join(dir, 'package-index.json'), 'utf8')).formRef;
const typed = new FormResourceType({
  typeName: 'takoform_range_sequence',
  formRef: REF,
  title: def.title,
  operations: def.lifecycleCapabilities,
  immutableFields: [],
  desiredSchema: def.desiredSchema,
});
const generic = new GenericResourceKind((ref) => (ref.schemaDigest === REF.schemaDigest ? typed : undefined));

type Call = { route: string; body?: unknown; options?: MutationOptions };

/** A Host that keeps one resource per name, applies the Form's default, and can be told to fail. */
class FakeHost implements LifecycleClient {
  readonly calls: Call[] = [];
  readonly stored = new Map<string, ResourceResponse>();
  failNext: Partial<Record<'prepare' | 'apply' | 'delete' | 'read', unknown[]>> = {};
  operationDone = true;
  private uid = 0;

  private fail(route: 'prepare' | 'apply' | 'delete' | 'read'): void {
    const next = this.failNext[route]?.shift();
    if (next) throw next;
  }

  readonly resources = {
    prepare: async (request: ResourceRequest, expectedGeneration?: string) => {
      this.calls.push({ route: 'prepare', body: { spec: request.spec, expectedGeneration } });
      this.fail('prepare');
      const spec = { mode: 'safe', ...request.spec };
      return { spec, prepareDigest: `sha256:${'a'.repeat(64)}`, specDigest: jcsDigest(spec) };
    },
    apply: async (request: ResourceRequest, review: { prepareDigest: string; specDigest: string }, fence: { kind: string }, options: MutationOptions = {}) => {
      this.calls.push({ route: 'apply', body: { spec: request.spec, fence: fence.kind, review }, options });
      this.fail('apply');
      const name = request.metadata.name;
      const prior = this.stored.get(name);
      const spec = { mode: 'safe', ...request.spec };
      const generation = prior ? String(Number(prior.metadata.generation) + 1) : '1';
      const resource: ResourceResponse = {
        apiVersion: REF.apiVersion,
        kind: REF.kind,
        form: { formRef: REF },
        metadata: { name, space: request.metadata.space, uid: prior?.metadata.uid ?? `res_${++this.uid}`, generation, revision: generation },
        spec,
        status: {
          observedGeneration: generation,
          conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', lastTransitionTime: '2026-12-01T00:00:00Z' }],
        },
      };
      this.stored.set(name, resource);
      return { outcome: prior ? ('updated' as const) : ('created' as const), resource };
    },
    read: async (address: { name: string }) => {
      this.calls.push({ route: 'read' });
      this.fail('read');
      return this.stored.get(address.name);
    },
    delete: async (address: { name: string }) => {
      this.calls.push({ route: 'delete' });
      this.fail('delete');
      return this.stored.delete(address.name) ? ('deleted' as const) : ('absent' as const);
    },
  };

  readonly operations = {
    get: async (id: string) => {
      this.calls.push({ route: 'operation', body: id });
      return { operation: { id, done: this.operationDone } as never };
    },
    waitForResult: async (route: string, accepted: { id: string }) => {
      this.calls.push({ route: 'operation-wait', body: accepted.id });
      if (!this.operationDone) throw new AcceptedOutcomeUnknownError(route, accepted.id, undefined, 'still running after 0 s');
      return {};
    },
  };

  routes(): string[] {
    return this.calls.map((c) => c.route);
  }
}

function access(host: FakeHost, overrides: Partial<HostAccess> = {}): HostAccess {
  const cwd = mkdtempSync(path.join(tmpdir(), 'lifecycle-'));
  return {
    client: host,
    defaultSpace: 'demo',
    configUnknown: false,
    journal: CreateJournal.inDataDir('http://127.0.0.1:1', {}, cwd),
    preparedBindings: PreparedBindings.inMemory('http://127.0.0.1:1'),
    checkForm: async () => undefined,
    plannedCreates: new Set<string>(),
    plannedPriors: new Set<string>(),
    plannedReplacements: new Map<string, string>(),
    replaceTriggeredTypes: () => new Set<string>(),
    ...overrides,
  };
}

const n = (v: number) => TfNumber.of(v);

/** A configuration of `kind` for RangeSequence `name` with this spec (values may be UNKNOWN). */
function configOf(kind: ResourceKind, name: string, spec: Record<string, TfValue>): TfObject {
  const attrs = Object.keys((kind.valueType as unknown as { attributes: Record<string, unknown> }).attributes);
  const base: Record<string, TfValue> = Object.fromEntries(attrs.map((a) => [a, null]));
  base.name = name;
  if (kind instanceof GenericResourceKind) {
    Object.assign(base, { api_version: REF.apiVersion, kind: REF.kind, definition_version: REF.definitionVersion, schema_digest: REF.schemaDigest });
    base.spec = Object.values(spec).some((v) => isUnknown(v))
      ? UNKNOWN
      : jsonToDynamic(Object.fromEntries(Object.entries(spec).map(([k, v]) => [k, v instanceof TfNumber ? v.toNumber() : (v as string)])) as JsonObject);
  } else Object.assign(base, spec);
  return objectValue(Object.entries(base));
}

/** What the Host will store for this plan, whichever kind: the materialized spec. */
function plannedSpec(kind: ResourceKind, planned: TfObject): JsonObject | undefined {
  return kind.plannedHostSpec(planned);
}

describe.each([
  ['typed', typed as ResourceKind],
  ['generic', generic as ResourceKind],
])('the lifecycle of the %s kind', (_label, kind) => {
  it('plans a create through prepare: the Host default shows, the binding goes to apply', async () => {
    const host = new FakeHost();
    const config = configOf(kind, 'a', { lower: n(1), upper: n(2) });
    const plan = await planChange(kind, access(host), null, config, config, {});
    expect(plan.diagnostics).toEqual([]);
    expect(host.routes()).toEqual(['prepare']);
    expect(plannedSpec(kind, plan.planned!)).toEqual({ lower: 1, upper: 2, mode: 'safe' });
    expect(isUnknown(plan.planned!.uid!)).toBe(true);
    expect(plan.private.binding?.specDigest).toBe(jcsDigest({ lower: 1, upper: 2, mode: 'safe' }));
  });

  it('plans what depends on unknown values as unknown, without asking the Host', async () => {
    const host = new FakeHost();
    const config = configOf(kind, 'a', { lower: n(1), upper: UNKNOWN });
    const plan = await planChange(kind, access(host), null, config, config, {});
    expect(host.routes()).toEqual([]);
    expect(plan.diagnostics).toEqual([]);
    expect(plannedSpec(kind, plan.planned!)).toBeUndefined();
    expect(isUnknown(plan.planned!.uid!)).toBe(true);
  });

  it('applies a create with a fresh attempt, journaled, and records the Host resource', async () => {
    const host = new FakeHost();
    const hostAccess = access(host);
    const config = configOf(kind, 'a', { lower: n(1), upper: n(2) });
    const plan = await planChange(kind, hostAccess, null, config, config, {});
    const applied = await applyChange(kind, hostAccess, null, plan.planned, plan.private);
    expect(applied.diagnostics).toEqual([]);
    expect(host.routes()).toEqual(['prepare', 'apply']); // the plan's binding is used, no second prepare
    const attempt = host.calls[1]!.options!.attempt!;
    expect(attempt).toMatch(/^[0-9a-f]{32}$/);
    expect(applied.state!.uid).toBe('res_1');
    expect(kind.hostSpecOf(applied.state!)).toEqual({ lower: 1, upper: 2, mode: 'safe' });
    // And then the plan is clean: no Host call at all.
    const again = await planChange(kind, hostAccess, applied.state, config, config, applied.private);
    expect(again.planned).toEqual(applied.state);
    expect(host.routes()).toEqual(['prepare', 'apply']);
  });

  it('refuses a create of a held name with "Resource already exists on the Host" and the import id', async () => {
    const host = new FakeHost();
    const config = configOf(kind, 'a', { lower: n(1), upper: n(2) });
    const plan = await planChange(kind, access(host), null, config, config, {});
    await host.resources.apply(
      { apiVersion: REF.apiVersion, kind: REF.kind, form: { formRef: REF }, metadata: { name: 'a', space: 'demo' }, spec: { lower: 5, upper: 6 } },
      plan.private.binding!,
      { kind: 'create' },
    );
    host.failNext.apply = [new HostApiError('apply', 'generation_conflict', 412, false, 'req_1', 'name taken')];
    const applied = await applyChange(kind, access(host), null, plan.planned, plan.private);
    expect(applied.state).toBeNull();
    expect(applied.diagnostics[0]!.summary).toBe('Resource already exists on the Host');
    expect(applied.diagnostics[0]!.detail).toContain(`id = "${kind.importId(REF, 'demo', 'a')}"`);
  });

  it('records an accepted create whose end was not seen, and follows its Operation on refresh', async () => {
    const host = new FakeHost();
    const hostAccess = access(host);
    const config = configOf(kind, 'a', { lower: n(1), upper: n(2) });
    const plan = await planChange(kind, hostAccess, null, config, config, {});
    host.failNext.apply = [new AcceptedOutcomeUnknownError('apply', 'op_1', 'res_9', 'timed out')];
    const applied = await applyChange(kind, hostAccess, null, plan.planned, plan.private);
    expect(applied.state!.pending_operation).toBe('op_1');
    expect(applied.state!.uid).toBe('res_9');
    expect(applied.diagnostics[0]!.summary).toBe('Host still working on the change');
    // While the Operation runs the state stays; when it is done the resource is read.
    host.operationDone = false;
    const waiting = await readResource(kind, hostAccess, applied.state!, applied.private);
    expect(waiting.state).toBe(applied.state);
    host.operationDone = true;
    host.stored.set('a', {
      ...(
        await host.resources.apply(
          { apiVersion: REF.apiVersion, kind: REF.kind, form: { formRef: REF }, metadata: { name: 'a', space: 'demo' }, spec: { lower: 1, upper: 2 } },
          plan.private.binding!,
          { kind: 'create' },
        )
      ).resource,
      metadata: { name: 'a', space: 'demo', uid: 'res_9', generation: '1', revision: '1' },
    });
    const done = await readResource(kind, hostAccess, applied.state!, applied.private);
    expect(done.state!.pending_operation).toBeNull();
    expect(done.state!.uid).toBe('res_9');
  });

  it('waits for a dependent going away in the same run, then deletes', async () => {
    const host = new FakeHost();
    const hostAccess = access(host);
    const config = configOf(kind, 'a', { lower: n(1), upper: n(2) });
    const plan = await planChange(kind, hostAccess, null, config, config, {});
    const created = await applyChange(kind, hostAccess, null, plan.planned, plan.private);
    host.failNext.delete = [new HostApiError('delete', 'dependency_in_use', 409, false, 'req_2', 'in use')];
    const deleted = await applyChange(kind, hostAccess, created.state, null, {});
    expect(deleted.diagnostics).toEqual([]);
    expect(deleted.state).toBeNull();
    expect(host.routes().filter((r) => r === 'delete')).toHaveLength(2);
    // A resource already gone is deleted too.
    expect((await applyChange(kind, hostAccess, created.state, null, {})).state).toBeNull();
  });

  it('refuses at plan when the Form is not available, naming it', async () => {
    const host = new FakeHost();
    const config = configOf(kind, 'a', { lower: n(1), upper: n(2) });
    const probe = { severity: 'error' as const, summary: 'Form not available on the Host', detail: 'x' };
    const plan = await planChange(kind, access(host, { checkForm: async () => probe }), null, config, config, {});
    expect(plan.diagnostics).toEqual([probe]);
    expect(host.routes()).toEqual([]);
  });

  it('keeps the state and says so when the name now belongs to another incarnation', async () => {
    const host = new FakeHost();
    const hostAccess = access(host);
    const config = configOf(kind, 'a', { lower: n(1), upper: n(2) });
    const plan = await planChange(kind, hostAccess, null, config, config, {});
    const created = await applyChange(kind, hostAccess, null, plan.planned, plan.private);
    host.stored.set('a', { ...host.stored.get('a')!, metadata: { ...host.stored.get('a')!.metadata, uid: 'res_other' } });
    const read = await readResource(kind, hostAccess, created.state!, created.private);
    expect(read.state).toBe(created.state);
    expect(read.diagnostics[0]!.summary).toBe('Resource was replaced outside this configuration');
  });

  it('imports by its import id, and refuses one it cannot read', async () => {
    const host = new FakeHost();
    const hostAccess = access(host);
    const config = configOf(kind, 'a', { lower: n(1), upper: n(2) });
    const plan = await planChange(kind, hostAccess, null, config, config, {});
    await applyChange(kind, hostAccess, null, plan.planned, plan.private);
    const imported = await importResource(kind, hostAccess, kind.importId(REF, 'demo', 'a'));
    expect(imported.state!.uid).toBe('res_1');
    expect(canonicalJson(kind.hostSpecOf(imported.state!))).toBe(canonicalJson({ lower: 1, mode: 'safe', upper: 2 }));
    expect((await importResource(kind, hostAccess, 'not/an/id/at/all/x/y')).diagnostics[0]!.summary).toBe('Invalid import ID');
  });
});

describe('a Form without update', () => {
  // Both kinds change such a resource only by replacement: the typed type through its
  // replace attributes, takoform_resource through the catalog's operations for its Form.
  const noUpdate = new FormResourceType({
    typeName: 'takoform_range_sequence',
    formRef: REF,
    title: def.title,
    operations: ['create', 'read', 'delete'],
    immutableFields: [],
    desiredSchema: def.desiredSchema,
  });
  const genericNoUpdate = new GenericResourceKind(() => noUpdate);
  it.each([
    ['typed', noUpdate as ResourceKind, 'upper'],
    ['generic', genericNoUpdate as ResourceKind, 'spec'],
  ])('%s: a changed spec plans a replacement, without asking the Host', async (_label, kind, attribute) => {
    const host = new FakeHost();
    const hostAccess = access(host);
    const before = configOf(kind, 'a', { lower: n(1), upper: n(2) });
    const plan = await planChange(kind, hostAccess, null, before, before, {});
    const created = await applyChange(kind, hostAccess, null, plan.planned, plan.private);
    const after = configOf(kind, 'a', { lower: n(1), upper: n(3) });
    const calls = host.calls.length;
    const change = await planChange(kind, hostAccess, created.state, after, after, created.private);
    expect(change.diagnostics).toEqual([]);
    expect(change.requiresReplace).toEqual([[attribute]]);
    expect(host.calls.length).toBe(calls);
  });
});

// The apply-time re-plan runs in another provider process than the plan: what the plan's
// prepare answered reaches it through the data directory (or, from Terraform 1.16, through the
// planned private data core hands over), so a create costs prepare + apply, and never more
// than the Host reviewed.
describe.each([
  ['typed', typed as ResourceKind],
  ['generic', generic as ResourceKind],
])('the apply-time re-plan of the %s kind', (_label, kind) => {
  const endpoint = 'http://127.0.0.1:1';
  /** One provider process of one working directory: a fresh PreparedBindings, as after a launch. */
  const processIn = (cwd: string, host: FakeHost, now: () => number = Date.now) => {
    const bindings = PreparedBindings.inDataDir(endpoint, {}, cwd);
    if (now !== Date.now) Object.assign(bindings, { now });
    return access(host, { preparedBindings: bindings });
  };
  const config = () => configOf(kind, 'a', { lower: n(1), upper: n(2) });
  /** A plan process that exits normally, then the apply walk's process re-planning the same change. */
  const planThenReplan = async (host: FakeHost) => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'replan-'));
    const planWalk = processIn(cwd, host);
    const first = await planChange(kind, planWalk, null, config(), config(), {});
    planWalk.preparedBindings.closeNormally();
    const applyWalk = processIn(cwd, host);
    const replan = await planChange(kind, applyWalk, null, config(), config(), {});
    return { cwd, first, applyWalk, replan };
  };

  it("reuses the plan's prepare answer: a create is one prepare and one apply", async () => {
    const host = new FakeHost();
    const { cwd, first, applyWalk, replan } = await planThenReplan(host);
    expect(replan.planned).toEqual(first.planned);
    expect(replan.private.binding).toEqual(first.private.binding);
    const applied = await applyChange(kind, applyWalk, null, replan.planned, replan.private);
    expect(applied.diagnostics).toEqual([]);
    expect(host.routes()).toEqual(['prepare', 'apply']);
    // The answer is spent: the next run's plan prepares again.
    applyWalk.preparedBindings.closeNormally();
    await planChange(kind, processIn(cwd, host), null, config(), config(), {});
    expect(host.routes()).toEqual(['prepare', 'apply', 'prepare']);
  });

  it('uses the planned private data core hands to the re-plan (Terraform 1.16), e.g. of a saved plan on another machine', async () => {
    const host = new FakeHost();
    const first = await planChange(kind, processIn(mkdtempSync(path.join(tmpdir(), 'replan-')), host), null, config(), config(), {});
    const elsewhere = processIn(mkdtempSync(path.join(tmpdir(), 'replan-')), host);
    const replan = await planChange(kind, elsewhere, null, config(), config(), {}, first.private);
    expect(replan.planned).toEqual(first.planned);
    await applyChange(kind, elsewhere, null, replan.planned, replan.private);
    expect(host.routes()).toEqual(['prepare', 'apply']);
  });

  it('prepares again for another spec, and after the answer expired', async () => {
    const host = new FakeHost();
    const cwd = mkdtempSync(path.join(tmpdir(), 'replan-'));
    const planWalk = processIn(cwd, host);
    await planChange(kind, planWalk, null, config(), config(), {});
    planWalk.preparedBindings.closeNormally();
    const other = configOf(kind, 'a', { lower: n(1), upper: n(3) });
    await planChange(kind, processIn(cwd, host), null, other, other, {});
    expect(host.routes()).toEqual(['prepare', 'prepare']);
    const later = processIn(cwd, host, () => Date.now() + LIFETIME_MS + 1);
    await planChange(kind, later, null, config(), config(), {});
    expect(host.routes()).toEqual(['prepare', 'prepare', 'prepare']);
  });

  it('prepares again when the Host refuses the kept binding, and applies only what the plan showed', async () => {
    const refusal = () =>
      new HostApiError(
        'apply',
        'invalid_argument',
        400,
        false,
        'req_9',
        'review.prepareDigest is unknown or has expired; prepare again',
        undefined,
        '/review/prepareDigest',
      );
    const host = new FakeHost();
    const { first: plan, applyWalk, replan } = await planThenReplan(host);
    host.failNext.apply = [refusal()];
    const applied = await applyChange(kind, applyWalk, null, replan.planned, replan.private);
    expect(applied.diagnostics).toEqual([]);
    expect(host.routes()).toEqual(['prepare', 'apply', 'prepare', 'apply']);
    expect(kind.hostSpecOf(applied.state!)).toEqual(plannedSpec(kind, plan.planned!));

    // The Host now materializes something else than the plan showed: refused, nothing applied.
    const other = new FakeHost();
    const planned = await planChange(kind, access(other), null, config(), config(), {});
    other.failNext.apply = [refusal()];
    const prepare = other.resources.prepare;
    Object.assign(other.resources, {
      prepare: async (request: ResourceRequest, g?: string) => ({ ...(await prepare(request, g)), spec: { ...request.spec, mode: 'fast' } }),
    });
    const stale = await applyChange(kind, access(other), null, planned.planned, planned.private);
    expect(stale.diagnostics.map((d) => d.summary)).toEqual(['Changed on the Host since plan']);
    expect(other.routes()).toEqual(['prepare', 'apply', 'prepare']);
    expect(other.stored.size).toBe(0);

    // A Host that keeps refusing: one fresh prepare, then the refusal is the answer (no loop).
    const stubborn = new FakeHost();
    const plan2 = await planChange(kind, access(stubborn), null, config(), config(), {});
    stubborn.failNext.apply = [refusal(), refusal()];
    const refused = await applyChange(kind, access(stubborn), null, plan2.planned, plan2.private);
    expect(refused.diagnostics).toHaveLength(1);
    expect(refused.diagnostics[0]!.severity).toBe('error');
    // (the read is the refused create's check for a name held by someone else)
    expect(stubborn.routes()).toEqual(['prepare', 'apply', 'prepare', 'apply', 'read']);
  });
});
