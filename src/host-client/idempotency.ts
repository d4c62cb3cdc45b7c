// Deterministic Idempotency-Keys: a retried or resumed apply of the same change must reuse
// the same key (so the Host replays instead of acting twice), while a new incarnation of the
// same name (another uid) or another expected generation must never reuse an old key.
import { createHash } from 'node:crypto';
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
}

export function deriveIdempotencyKey(input: IdempotencyInput): string {
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
  ]);
  return `takoform-${createHash('sha256').update(material).digest('hex')}`;
}
