// A mutating route split in two: what it addresses (known before any store work) and the work
// itself, so the same work can run now (200/201/204) or be deferred behind an Operation (202) and
// run when the Operation commits.
import type { IdempotentOutcome } from '../idempotency.js';
import type { ResourceAddress, StoreTransaction } from '../store/store.js';

export interface MutationPlan {
  /** The space that scopes the idempotency record ("" when the request names no valid space). */
  readonly space: string;
  /** The addressed resource, when the request names one validly. */
  readonly address: ResourceAddress | undefined;
  readonly execute: (tx: StoreTransaction) => Promise<IdempotentOutcome>;
}

/** What an accepted 202 stores to run the mutation later (a snapshot of the request). */
export interface DeferredMutation {
  readonly method: string;
  readonly target: string;
  /** The headers the mutation reads (preconditions and Content-Type). */
  readonly headers: Record<string, string>;
  /** The request body, base64. */
  readonly body: string;
  readonly tenant: string;
  readonly principal: string;
  readonly requestId: string;
  /** The incarnation an update or delete was accepted against; absent for a create. */
  readonly pinnedUid: string | undefined;
}
