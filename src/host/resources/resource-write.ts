// The one write path shared by apply and import (and their async commits): resolve and pin the
// relations, judge every stateful constraint, then store the incarnation with its status and
// outputs, its pins and its reservations, and re-render the sources that pin its address. All of
// it runs inside the caller's transaction, so it commits whole or not at all.
import { jcsDigest } from '../../common/digest.js';
import { isJsonObject, type JsonObject } from '../../common/json-value.js';
import type { InstalledForm } from '../catalog.js';
import { HostError } from '../errors.js';
import { formRefKey } from '../form-ref.js';
import type { HostContext } from '../host-context.js';
import type { DesiredSpecCheck } from '../spec-validation.js';
import type { RelationPin, ResourceAddress, StoreTransaction, StoredResource } from '../store/store.js';
import { FIRST_COUNTER, nextCounter } from './counters.js';
import { refreshDependents } from './dependents.js';
import { resolveRelations } from './relation-resolution.js';
import { readyStatus, renderResource } from './resource-representation.js';
import { checkPinnedConstraints, reserveUniqueness, type ConstraintSubject } from './resolved-constraints.js';

export interface WritePlan {
  readonly form: InstalledForm;
  readonly admitted: DesiredSpecCheck;
  readonly address: ResourceAddress;
  /** The incarnation holding the name; undefined for a create. */
  readonly current: StoredResource | undefined;
}

/** Resolves the relations and checks every stateful constraint, writing nothing. */
export async function checkWrite(host: HostContext, tx: StoreTransaction, plan: WritePlan): Promise<RelationPin[]> {
  const pins = await resolveRelations(host, tx, {
    form: plan.form,
    spec: plan.admitted.spec,
    tenant: plan.address.tenant,
    space: plan.address.space,
  });
  const subject = constraintSubject(plan, pins);
  await checkPinnedConstraints(tx, subject);
  await reserveUniqueness(tx, subject, plan.current?.uid, false);
  return pins;
}

/** Stores the resource (create or update) with its pins and reservations. */
export async function commitWrite(
  host: HostContext,
  tx: StoreTransaction,
  plan: WritePlan,
  pins: readonly RelationPin[],
): Promise<{ resource: StoredResource; created: boolean }> {
  const resource = plan.current === undefined ? await created(host, tx, plan) : updatedResource(host, plan.current, plan.form, plan.admitted);
  if (plan.current === undefined) {
    await tx.insertResource(resource);
  } else if (resource !== plan.current) {
    await tx.updateResource(resource);
  }
  await tx.replaceRelations(resource.uid, pins);
  await reserveUniqueness(tx, { ...constraintSubject(plan, pins), uid: resource.uid }, resource.uid, true);
  if (plan.current === undefined) await refreshDependents(host, tx, plan.address);
  return { resource, created: plan.current === undefined };
}

async function created(host: HostContext, tx: StoreTransaction, plan: WritePlan): Promise<StoredResource> {
  const { form, admitted, address } = plan;
  let outputs: JsonObject | undefined;
  if (form.outputs !== undefined) {
    // One ordinal per new incarnation, per tenant and exact Form: unique, and stable because it
    // is stored in status.outputs and carried over by every later write of this uid.
    const ordinal = form.outputs.hostAssigned.length > 0 ? await tx.nextSequence(address.tenant, `hostAssigned|${formRefKey(form.formRef)}`) : 1;
    outputs = renderOutputs(form, admitted.spec, address.name, form.outputs.mintAssigned(address.name, address.group, ordinal));
  }
  return {
    address,
    formRef: form.formRef,
    packageDigest: form.packageDigest,
    uid: host.mintUid(address),
    generation: FIRST_COUNTER,
    revision: FIRST_COUNTER,
    spec: admitted.spec,
    specDigest: admitted.specDigest,
    status: readyStatus(FIRST_COUNTER, host.now(), outputs),
  };
}

/**
 * Generation moves only when the materialized spec changes; revision moves whenever the rendered
 * representation changes (wire reference §8.3). A re-apply re-pins relations and clears a relation
 * condition (status back to Ready=True). An identical re-apply of a healthy resource returns
 * `current` itself.
 */
export function updatedResource(host: HostContext, current: StoredResource, form: InstalledForm, admitted: DesiredSpecCheck): StoredResource {
  const specChanged = admitted.specDigest !== current.specDigest;
  const generation = specChanged ? nextCounter(current.generation) : current.generation;
  let outputs: JsonObject | undefined;
  if (form.outputs !== undefined) {
    const previous = isJsonObject(current.status.outputs) ? current.status.outputs : {};
    const assigned: JsonObject = {};
    for (const member of form.outputs.hostAssigned) if (previous[member] !== undefined) assigned[member] = previous[member];
    outputs = renderOutputs(form, admitted.spec, current.address.name, assigned);
  }
  const candidate: StoredResource = {
    ...current,
    packageDigest: form.packageDigest,
    generation,
    spec: admitted.spec,
    specDigest: admitted.specDigest,
    status: readyStatus(generation, host.now(), outputs, current.status),
  };
  if (representationDigest(candidate) === representationDigest(current)) return current;
  return { ...candidate, revision: nextCounter(current.revision) };
}

function renderOutputs(form: InstalledForm, spec: JsonObject, name: string, assigned: JsonObject): JsonObject {
  try {
    return form.outputs?.render(spec, name, assigned) ?? {};
  } catch (error) {
    throw new HostError('internal_error', `the Host could not produce valid outputs: ${(error as Error).message}`);
  }
}

function constraintSubject(plan: WritePlan, pins: readonly RelationPin[]): ConstraintSubject {
  return { form: plan.form, tenant: plan.address.tenant, spec: plan.admitted.spec, pins, uid: plan.current?.uid };
}

function representationDigest(resource: StoredResource): string {
  return jcsDigest(renderResource({ ...resource, revision: FIRST_COUNTER }));
}
