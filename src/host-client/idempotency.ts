// Idempotency-Keys: one per *attempt*. A retried or resumed request of the same attempt must
// reuse its key (so the Host replays instead of acting twice), while any other request —
// another block, state, workspace or machine sending the very same create, update or delete —
// must never share it: the Host would answer it with the first caller's recorded outcome
// (§10.2), and two owners would each believe they created or changed the resource.
//
// So the key is derived from what the request does (operation, exact FormRef, space, name,
// the incarnation and generation it acts on, the canonical body) *and* a random attempt id
// that the caller draws once per attempt. Whoever wants to resume an attempt in a later
// process (the provider's create journal) records that id before the request leaves.
import { createHash, randomBytes } from 'node:crypto';
import { jcsDigest } from '../common/digest.js';
import type { FormRef } from './wire-types.js';

export interface IdempotencyInput {
  readonly operation: 'apply' | 'delete' | 'import' | 'cancel' | 'commit' | 'abandon';
  readonly formRef: FormRef;
  readonly space: string;
  readonly name: string;
  /** The incarnation the request acts on; "" for a create. */
  readonly uid: string;
  /** The generation fence sent with the request; "" when none. */
  readonly expectedGeneration: string;
  /** The request body as sent ("" for an empty body); digested in canonical (RFC 8785) form. */
  readonly body: string;
  /** The attempt this request belongs to (see newAttemptId). */
  readonly attempt: string;
}

/** A fresh attempt id: 128 random bits, hex. */
export function newAttemptId(): string {
  return randomBytes(16).toString('hex');
}

/** Visible ASCII, the shape an attempt id must have to be folded into a key. */
const ATTEMPT_PATTERN = /^[0-9a-f]{32}$/;

export function isAttemptId(value: unknown): value is string {
  return typeof value === 'string' && ATTEMPT_PATTERN.test(value);
}

export function deriveIdempotencyKey(input: IdempotencyInput): string {
  if (!isAttemptId(input.attempt)) throw new TypeError('an idempotency key needs an attempt id from newAttemptId()');
  // Canonical form, so the key depends on what the body means, not on member order.
  const bodyDigest = input.body === '' ? '' : jcsDigest(JSON.parse(input.body) as unknown);
  const material = JSON.stringify([
    input.operation,
    input.formRef.apiVersion,
    input.formRef.kind,
    input.formRef.definitionVersion,
    input.formRef.schemaDigest,
    input.space,
    input.name,
    input.uid,
    input.expectedGeneration,
    bodyDigest,
    input.attempt,
  ]);
  return `takoform-${createHash('sha256').update(material).digest('hex')}`;
}
