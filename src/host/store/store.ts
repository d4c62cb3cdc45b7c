// The Host's persistence contract, independent of the database engine. Every mutation and the
// idempotency record that reports it commit in one transaction, so a crash can never leave a
// created resource without its replay record or a replay record without its resource.
//
// DECISION (async interface): the contract is Promise-based, although better-sqlite3 is
// synchronous, because the PostgreSQL driver can only be asynchronous.
//
// DECISION (isolation): every transaction is serializable, and that is what makes
// check-and-write of `exclusive`, `claim`, `uniquePair` and import claims (findReservation, then
// saveReservation) atomic, on every engine and across Host processes:
// * SQLite (sqlite-store.ts): one connection cannot interleave two transactions, so the store
//   serializes whole transactions with a promise-chain mutex and BEGIN IMMEDIATE (which also
//   orders another process on the same file).
// * PostgreSQL (postgres-store.ts): transactions run concurrently at ISOLATION LEVEL SERIALIZABLE;
//   a serialization failure rolls the whole attempt back and `work` runs again.
// The UNIQUE keys (resource name, reservation) are the second, engine-level guard.
//
// Rules for callers: `work` may run more than once (a retried attempt sees the winner's commit),
// so it must not touch anything outside the store that a second run would repeat; never start a
// transaction inside another one; never await anything but the store inside one.
import type { FormRef } from '../form-ref.js';
import type { JsonObject } from '../../common/json-value.js';

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

/** One resolved relation of a source resource, pinned by target uid and exact FormRef (§17 item 5). */
export interface RelationPin {
  /** The concrete pointer in the source spec, e.g. /members/0. */
  readonly pointer: string;
  /** The declared relation, with * for array elements, e.g. /members/*. */
  readonly relation: string;
  readonly target: ResourceAddress;
  readonly targetUid: string;
  readonly targetFormRef: FormRef;
  /** "name@version" of the Binding a typed binding was resolved against. */
  readonly bindingRef: string | undefined;
}

export interface DependentPin extends RelationPin {
  readonly sourceUid: string;
}

/**
 * A uniqueness claim held by one live resource: (tenant, namespace, value) has at most one
 * holder. Used for `exclusive`, `claim`, `uniquePair` and import nativeId claims; deleting the
 * holder releases it.
 */
export interface Reservation {
  readonly tenant: string;
  readonly namespace: string;
  readonly value: string;
  readonly holderUid: string;
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
  /** The Operation a 202 answer started; its commit binds the record to the uid it produced. */
  readonly operationId?: string | undefined;
}

/** A long-running Operation (§13), owned by the tenant and principal that started it. */
export interface StoredOperation {
  readonly id: string;
  readonly tenant: string;
  readonly principal: string;
  /** The serialized Operation document as last answered; terminal documents replay byte for byte. */
  readonly document: string;
  /** The deferred mutation (JSON), until the operation reaches a terminal state. */
  readonly pending: string | undefined;
  /** How many more polls answer "pending" before the mutation commits. */
  readonly pollsLeft: number;
}

export interface UploadSession {
  readonly id: string;
  readonly tenant: string;
  readonly principal: string;
  readonly manifestDigest: string;
  /** Canonical JSON of the manifest. */
  readonly manifest: string;
  readonly state: 'open' | 'committed' | 'abandoned';
}

export interface StoreTransaction {
  findResource(address: ResourceAddress): Promise<StoredResource | undefined>;
  findResourceByUid(uid: string): Promise<StoredResource | undefined>;
  insertResource(resource: StoredResource): Promise<void>;
  /** Replaces the stored state of the resource with `resource.uid`. */
  updateResource(resource: StoredResource): Promise<void>;
  /**
   * Deletes the incarnation; its relations, reservations and the idempotency records bound to its
   * uid go with it.
   */
  deleteResource(uid: string): Promise<void>;

  /** Replaces every relation pin of `sourceUid`. */
  replaceRelations(sourceUid: string, pins: readonly RelationPin[]): Promise<void>;
  relationsOf(sourceUid: string): Promise<RelationPin[]>;
  /** Pins held by live sources whose target is `address` (any incarnation). */
  relationsTargetingAddress(address: ResourceAddress): Promise<DependentPin[]>;
  /** Pins held by live sources on the incarnation `uid`. */
  relationsTargetingUid(uid: string): Promise<DependentPin[]>;

  findReservation(tenant: string, namespace: string, value: string): Promise<Reservation | undefined>;
  saveReservation(reservation: Reservation): Promise<void>;
  reservationsHeldBy(holderUid: string): Promise<Reservation[]>;
  /** Releases the holder's reservations whose namespace starts with `namespacePrefix`. */
  releaseReservations(holderUid: string, namespacePrefix: string): Promise<void>;

  /** The next value (1, 2, …) of a per-tenant named sequence. */
  nextSequence(tenant: string, name: string): Promise<number>;

  findPrepareBinding(digest: string, tenant: string): Promise<PrepareBinding | undefined>;
  savePrepareBinding(binding: PrepareBinding): Promise<void>;

  findIdempotencyRecord(scope: IdempotencyScope): Promise<IdempotencyRecord | undefined>;
  saveIdempotencyRecord(record: IdempotencyRecord): Promise<void>;
  /** Binds the records that answered 202 with this Operation to the incarnation it produced. */
  bindOperationRecords(operationId: string, uid: string): Promise<void>;

  findOperation(id: string): Promise<StoredOperation | undefined>;
  saveOperation(operation: StoredOperation): Promise<void>;

  findUpload(id: string): Promise<UploadSession | undefined>;
  findOpenUpload(tenant: string, principal: string, manifestDigest: string): Promise<UploadSession | undefined>;
  saveUpload(upload: UploadSession): Promise<void>;
  /** Stores blob bytes (deduplicated by digest) without granting any tenant a holding. */
  saveBlob(digest: string, bytes: Uint8Array): Promise<void>;
  hasBlobBytes(digest: string): Promise<boolean>;
  /** Holdings are per tenant: uploading or committing grants one, nothing else does. */
  holdsBlob(tenant: string, digest: string): Promise<boolean>;
  grantBlob(tenant: string, digest: string): Promise<void>;
  findManifest(tenant: string, manifestDigest: string): Promise<string | undefined>;
  grantManifest(tenant: string, manifestDigest: string, manifest: string): Promise<void>;

  /**
   * Takes the Operation's lease for `holder` when it is free, expired or already the holder's, and
   * extends it to `ttlMs` from now (the engine's clock). False: another live process holds it.
   */
  acquireOperationLease(id: string, holder: string, ttlMs: number): Promise<boolean>;
  /** Marks a pending Operation as due: its holder commits it (see operations/operation-worker.ts). */
  requestOperationCommit(id: string): Promise<void>;
  /** Due, pending Operations that `holder` holds, or whose lease has expired (up to `limit`). */
  dueOperations(holder: string, limit: number): Promise<string[]>;
  /** Extends every lease `holder` holds on a pending Operation (the holder's heartbeat). */
  renewOperationLeases(holder: string, ttlMs: number): Promise<void>;
  /** Gives up every lease `holder` holds (a clean shutdown), so another process takes over at once. */
  releaseOperationLeases(holder: string): Promise<void>;

  /** Runs `work` in a nested savepoint: if it throws, only its own writes are undone. */
  savepoint<T>(work: () => Promise<T>): Promise<T>;
}

export interface TransactionOptions {
  /**
   * Transactions given the same key never overlap, in this process or any other on the database
   * (the Host passes the caller's tenant for every transaction that writes). A throughput hint,
   * never needed for correctness: serializable isolation decides that. Without it, one tenant's
   * concurrent writers collide on the same small index pages and most of them are retried.
   */
  readonly queue?: string;
}

export interface HostStore {
  /**
   * Runs `work` in one serializable transaction; a throw rolls everything back and rethrows. On a
   * serialization conflict the store rolls back and runs `work` again (a bounded number of times).
   */
  transaction<T>(work: (tx: StoreTransaction) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** Ends the store's connections; pending transactions settle first. */
  close(): Promise<void>;
}
