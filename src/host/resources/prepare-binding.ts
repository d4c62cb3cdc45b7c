// The review binding a prepare mints and an apply spends (wire reference §11.2). The digest
// binds the materialized specDigest, the exact FormRef (packageDigest excluded), the resource
// address, the tenant, the target's current uid and generation (or the create markers) and the
// Host's plan. This is the v1beta1 reference-host construction, so the worked exchanges of the
// wire reference reproduce exactly. Apply recomputes the payload from the state it is about to
// change and compares it with the one stored under the presented digest.
import { canonicalJson, jcsDigest } from '../../common/digest.js';
import { invalidArgument } from '../errors.js';
import type { FormRef } from '../form-ref.js';
import { isJsonObject } from '../../common/json-value.js';
import type { PrepareBinding, StoreTransaction, StoredResource } from '../store/store.js';

export const REFERENCE_HOST_PLAN = 'deterministic-reference-host-plan';
/** What a binding pins when the target does not exist yet. */
export const CREATE_MARKER_UID = '';
export const CREATE_MARKER_GENERATION = '0';

const REVIEW_POINTER = '/review/prepareDigest';

export interface PrepareBindingPayload {
  readonly plan: string;
  readonly specDigest: string;
  readonly group: string;
  readonly kind: string;
  readonly definitionVersion: string;
  readonly schemaDigest: string;
  readonly name: string;
  readonly tenant: string;
  readonly space: string;
  readonly uid: string;
  readonly generation: string;
}

export interface BindingSubject {
  readonly tenant: string;
  readonly space: string;
  readonly name: string;
  readonly formRef: FormRef;
  readonly specDigest: string;
  /** The incarnation the binding is for; undefined for a create. */
  readonly target: StoredResource | undefined;
}

export function bindingPayload(subject: BindingSubject): PrepareBindingPayload {
  return {
    plan: REFERENCE_HOST_PLAN,
    specDigest: subject.specDigest,
    group: subject.formRef.apiVersion,
    kind: subject.formRef.kind,
    definitionVersion: subject.formRef.definitionVersion,
    schemaDigest: subject.formRef.schemaDigest,
    name: subject.name,
    tenant: subject.tenant,
    space: subject.space,
    uid: subject.target?.uid ?? CREATE_MARKER_UID,
    generation: subject.target?.generation ?? CREATE_MARKER_GENERATION,
  };
}

/** Stores the binding for `subject` and returns its prepareDigest. */
export async function mintBinding(tx: StoreTransaction, subject: BindingSubject): Promise<string> {
  const payload = bindingPayload(subject);
  const binding: PrepareBinding = { digest: jcsDigest(payload), tenant: subject.tenant, payload: canonicalJson(payload) };
  await tx.savePrepareBinding(binding);
  return binding.digest;
}

/**
 * Refuses, with a message saying which, a digest this tenant was never given (or that expired)
 * and a digest that binds anything other than `subject` (substitution, a moved generation).
 */
export async function assertBindingSpendable(tx: StoreTransaction, prepareDigest: string, subject: BindingSubject): Promise<void> {
  const stored = await tx.findPrepareBinding(prepareDigest, subject.tenant);
  if (stored === undefined) {
    throw invalidArgument('review.prepareDigest is unknown or has expired; prepare again', REVIEW_POINTER);
  }
  const expected = bindingPayload(subject);
  if (stored.payload === canonicalJson(expected)) return;
  const differing = differingMembers(stored.payload, expected);
  throw invalidArgument(`review.prepareDigest was minted for a different ${differing.join(', ')}; prepare again`, REVIEW_POINTER, { differing });
}

function differingMembers(storedPayload: string, expected: PrepareBindingPayload): string[] {
  const stored: unknown = JSON.parse(storedPayload);
  const entries = Object.entries(expected) as [string, string][];
  const differing = isJsonObject(stored) ? entries.filter(([member, value]) => stored[member] !== value).map(([m]) => m) : [];
  return differing.length > 0 ? differing : ['binding'];
}
