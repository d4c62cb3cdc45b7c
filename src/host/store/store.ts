// The Host's persistence contract, independent of the database engine. Every mutation and the
// idempotency record that reports it commit in one transaction, so a crash can never leave a
// created resource without its replay record or a replay record without its resource.
//
// The contract is synchronous because better-sqlite3 is, and a synchronous transaction is what
// makes one request's check-then-write atomic in this single-threaded process. A PostgreSQL store
// will need `transaction` to return a Promise (serializable isolation plus retry); the route
// handlers already do all their store work inside one `transaction` call, which keeps that change
// local to this interface and its callers.
import type { FormRef } from '../form-ref.js';
import type { JsonObject } from '../json-value.js';

/** The internal resource address (wire reference §3): names are unique per group/kind across versions. */
export interface ResourceAddress {
  readonly tenant: string;
  readonly space: string;
  readonly group: string;
  readonly kind: string;
  readonly name: string;
}

export interface StoredResource {
  readonly address: ResourceAddress;
  /** The exact FormRef the resource was created under; every response echoes it. */
  readonly formRef: FormRef;
  readonly packageDigest: string | undefined;
  readonly uid: string;
  /** Canonical decimal strings (1..2^63-1); kept as text so no engine rounds them. */
  readonly generation: string;
  readonly revision: string;
  /** The materialized desired spec and its JCS digest. */
  readonly spec: JsonObject;
  readonly specDigest: string;
  /** The wire `status` object (observedGeneration, conditions[, outputs]). */
  readonly status: JsonObject;
}

/** A prepare answer's binding: the canonical payload its prepareDigest is the digest of. */
export interface PrepareBinding {
  readonly digest: string;
  /** The tenant the binding was minted for; another tenant cannot spend it. */
  readonly tenant: string;
  /** Canonical JSON of the bound payload (see resources/prepare-binding.ts). */
  readonly payload: string;
}

/** Idempotency records are namespaced by tenant + principal + space + key (wire reference §10.2). */
export interface IdempotencyScope {
  readonly tenant: string;
  readonly principal: string;
  readonly space: string;
  readonly key: string;
}

export interface IdempotencyRecord {
  readonly scope: IdempotencyScope;
  /** sha256 over method, request target, preconditions and body bytes. */
  readonly fingerprint: string;
  readonly status: number;
  readonly etag: string | undefined;
  readonly body: Uint8Array;
  /**
   * The live incarnation the recorded answer reports. Deleting that resource retires the record
   * (the store does this itself), so a later create with the same key executes anew.
   */
  readonly boundUid: string | undefined;
}

export interface StoreTransaction {
  findResource(address: ResourceAddress): StoredResource | undefined;
  insertResource(resource: StoredResource): void;
  /** Replaces the stored state of the resource with `resource.uid`. */
  updateResource(resource: StoredResource): void;
  /** Deletes the incarnation and retires every idempotency record bound to its uid. */
  deleteResource(uid: string): void;

  findPrepareBinding(digest: string, tenant: string): PrepareBinding | undefined;
  savePrepareBinding(binding: PrepareBinding): void;

  findIdempotencyRecord(scope: IdempotencyScope): IdempotencyRecord | undefined;
  saveIdempotencyRecord(record: IdempotencyRecord): void;

  /** Runs `work` in a nested savepoint: if it throws, only its own writes are undone. */
  savepoint<T>(work: () => T): T;
}

export interface HostStore {
  /** Runs `work` in one serializable transaction; a throw rolls everything back and rethrows. */
  transaction<T>(work: (tx: StoreTransaction) => T): T;
  close(): void;
}
