// Concurrency fences (wire reference §10.1). Each check compares one client expectation with the
// incarnation now holding the name; parsing the headers lives in http/preconditions.ts.
import { HostError, invalidArgument } from '../errors.js';
import { GENERATION_FENCE_HEADER } from '../http/preconditions.js';
import type { StoredResource } from '../store/store.js';

/** Header and body fence must agree when both are sent; disagreement is refused before any fence. */
export function agreedGenerationFence(header: string | undefined, body: string | undefined): string | undefined {
  if (header !== undefined && body !== undefined && header !== body) {
    throw invalidArgument(`${GENERATION_FENCE_HEADER} and /expectedGeneration disagree`, '/expectedGeneration', {
      header: GENERATION_FENCE_HEADER,
    });
  }
  return header ?? body;
}

export function requireGenerationFence(fence: string | undefined, operation: string): string {
  if (fence === undefined) {
    throw invalidArgument(`${operation} of an existing resource needs the ${GENERATION_FENCE_HEADER} header`, undefined, {
      header: GENERATION_FENCE_HEADER,
    });
  }
  return fence;
}

export function checkGenerationFence(current: StoredResource, expected: string): void {
  if (current.generation !== expected) {
    throw new HostError('generation_conflict', `generation fence is stale: expected generation ${expected}, the resource is at ${current.generation}`);
  }
}

/** If-Match, when sent, must name the current revision. */
export function checkRevisionFence(current: StoredResource, expectedRevision: string | undefined): void {
  if (expectedRevision !== undefined && current.revision !== expectedRevision) {
    throw new HostError('revision_conflict', `If-Match is stale: expected revision ${expectedRevision}, the resource is at ${current.revision}`);
  }
}

export function checkExpectedUid(current: StoredResource, expectedUid: string | undefined): void {
  if (expectedUid !== undefined && current.uid !== expectedUid) {
    throw new HostError('uid_mismatch', `expectedUid ${expectedUid} is not the incarnation holding this name`, {
      details: { pointer: '/expectedUid' },
    });
  }
}
