// The store contract (src/host/store/store.ts), one suite run against every engine: SQLite (a
// file) and PostgreSQL (a real server in a temporary directory). Round trips, name uniqueness
// across versions, savepoints, retirement of idempotency records with their incarnation,
// persistence and schema versioning, atomic check-then-write under concurrency (also between
// two stores on one database, i.e. two Host processes), sequences and Operation leases.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PostgresHostStore } from '../../../src/host/store/postgres-store.js';
import { SqliteHostStore } from '../../../src/host/store/sqlite-store.js';
import type { HostStore, IdempotencyRecord, StoredOperation, StoredResource } from '../../../src/host/store/store.js';
import { startPostgres, type Postgres } from '../../support/postgres.js';

/** One engine under test: `create` makes an empty database, `open` opens (another store on) it. */
interface Engine {
  readonly name: string;
  /**
   * Whether several stores (Host processes) may share one database. SQLite may not: a second
   * connection's BEGIN IMMEDIATE waits for the lock synchronously (busy_timeout), freezing its
   * process while the first transaction awaits; the reference Host on SQLite is one process.
   */
  readonly shared: boolean;
  setUp(): Promise<void>;
  tearDown(): Promise<void>;
  create(): Promise<string>;
  open(location: string): Promise<HostStore>;
  /** Writes a schema version newer than the store knows, behind the store's back. */
  forgeNewerSchema(location: string): Promise<void>;
  /** Engine-specific checks of a persisted database. */
  inspect(location: string): Promise<void>;
}

const scratch: string[] = [];
const sqlite: Engine = {
  name: 'SQLite',
  shared: false,
  setUp: async () => {},
  tearDown: async () => {
    for (const directory of scratch.splice(0)) rmSync(directory, { recursive: true, force: true });
  },
  create: async () => {
    const directory = mkdtempSync(path.join(os.tmpdir(), 'takoform-store-'));
    scratch.push(directory);
    return path.join(directory, 'host.db');
  },
  open: async (file) => SqliteHostStore.open(file),
  forgeNewerSchema: async (file) => {
    const raw = new Database(file);
    raw.pragma('user_version = 99');
    raw.close();
  },
  inspect: async (file) => {
    const raw = new Database(file);
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    raw.close();
  },
};

let server: Postgres | undefined;
let databases = 0;
const postgres: Engine = {
  name: 'PostgreSQL',
  shared: true,
  setUp: async () => {
    server = await startPostgres();
  },
  tearDown: async () => {
    await server?.stop();
  },
  create: async () => {
    databases += 1;
    const name = `store_${databases}`;
    await server!.createDatabase(name);
    return server!.url(name);
  },
  open: (url) => PostgresHostStore.open(url, { poolSize: 4 }),
  forgeNewerSchema: async (url) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('UPDATE takoform_schema SET version = 99');
    await client.end();
  },
  inspect: async (url) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query<{ version: number }>('SELECT version FROM takoform_schema');
    await client.end();
    expect(rows).toEqual([{ version: 1 }]);
  },
};

const address = { tenant: 'tenant-a', space: 'demo', group: 'resources.publisher.example', kind: 'RangeSequence', name: 'r' };
const resource: StoredResource = {
  address,
  formRef: { apiVersion: address.group, kind: address.kind, definitionVersion: '0.1.0', schemaDigest: `sha256:${'1'.repeat(64)}` },
  packageDigest: `sha256:${'2'.repeat(64)}`,
  uid: 'res_1',
  generation: '1',
  revision: '1',
  spec: { lower: 3, mode: 'safe', upper: 6 },
  specDigest: `sha256:${'3'.repeat(64)}`,
  status: { observedGeneration: '1', conditions: [] },
};

function record(key: string, boundUid: string | undefined): IdempotencyRecord {
  return {
    scope: { tenant: 'tenant-a', principal: 'alice', space: 'demo', key },
    fingerprint: 'f',
    status: 201,
    etag: '"1"',
    body: Buffer.from('{}'),
    boundUid,
  };
}

function operation(id: string): StoredOperation {
  return { id, tenant: 'tenant-a', principal: 'alice', document: '{"done":false}', pending: '{}', pollsLeft: 0 };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each([sqlite, postgres])('store contract on $name', (engine) => {
  const open: HostStore[] = [];
  const fresh = async (): Promise<{ location: string; store: HostStore }> => {
    const location = await engine.create();
    const store = await engine.open(location);
    open.push(store);
    return { location, store };
  };
  const another = async (location: string): Promise<HostStore> => {
    const store = await engine.open(location);
    open.push(store);
    return store;
  };

  beforeAll(() => engine.setUp());
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
  });
  afterAll(() => engine.tearDown());

  it('round-trips a resource and keeps generation strings beyond 2^53 exact', async () => {
    const { store } = await fresh();
    const big = { ...resource, generation: '9223372036854775807' };
    await store.transaction((tx) => tx.insertResource(big));
    expect(await store.transaction((tx) => tx.findResource(address))).toEqual(big);
    expect(await store.transaction((tx) => tx.findResourceByUid('res_1'))).toEqual(big);
  });

  it('keeps one name per tenant, space, group and kind across definition versions', async () => {
    const { store } = await fresh();
    await store.transaction((tx) => tx.insertResource(resource));
    const otherVersion = { ...resource, uid: 'res_2', formRef: { ...resource.formRef, definitionVersion: '0.2.0' } };
    await expect(store.transaction((tx) => tx.insertResource(otherVersion))).rejects.toThrow(/unique/i);
    await store.transaction((tx) => tx.insertResource({ ...otherVersion, address: { ...address, tenant: 'tenant-b' } }));
  });

  it('rolls back a savepoint without losing the enclosing transaction', async () => {
    const { store } = await fresh();
    await store.transaction(async (tx) => {
      await tx.saveIdempotencyRecord(record('outer', undefined));
      await expect(
        tx.savepoint(async () => {
          await tx.insertResource(resource);
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
    });
    expect(await store.transaction((tx) => tx.findResource(address))).toBeUndefined();
    expect(await store.transaction((tx) => tx.findIdempotencyRecord(record('outer', undefined).scope))).toBeDefined();
  });

  it('rolls the whole transaction back when work throws', async () => {
    const { store } = await fresh();
    await expect(
      store.transaction(async (tx) => {
        await tx.insertResource(resource);
        throw new Error('abandoned');
      }),
    ).rejects.toThrow('abandoned');
    expect(await store.transaction((tx) => tx.findResource(address))).toBeUndefined();
  });

  it('retires idempotency records bound to a deleted incarnation, and only those', async () => {
    const { store } = await fresh();
    await store.transaction(async (tx) => {
      await tx.insertResource(resource);
      await tx.saveIdempotencyRecord(record('bound', 'res_1'));
      await tx.saveIdempotencyRecord(record('unbound', undefined));
      await tx.saveIdempotencyRecord({ ...record('async', undefined), status: 202, operationId: 'op_1' });
      await tx.bindOperationRecords('op_1', 'res_1');
    });
    expect(await store.transaction((tx) => tx.findIdempotencyRecord(record('async', undefined).scope))).toMatchObject({
      boundUid: 'res_1',
      operationId: 'op_1',
    });
    await store.transaction((tx) => tx.deleteResource('res_1'));
    expect(await store.transaction((tx) => tx.findIdempotencyRecord(record('bound', 'res_1').scope))).toBeUndefined();
    expect(await store.transaction((tx) => tx.findIdempotencyRecord(record('async', undefined).scope))).toBeUndefined();
    const kept = await store.transaction((tx) => tx.findIdempotencyRecord(record('unbound', undefined).scope));
    expect(kept).toMatchObject({ status: 201, etag: '"1"' });
    expect(Buffer.from(kept!.body).toString()).toBe('{}');
  });

  it('releases relations and reservations with their holder, and reservations by namespace prefix', async () => {
    const { store } = await fresh();
    await store.transaction(async (tx) => {
      await tx.insertResource(resource);
      await tx.saveReservation({ tenant: 'tenant-a', namespace: 'claim:a', value: 'v1', holderUid: 'res_1' });
      await tx.saveReservation({ tenant: 'tenant-a', namespace: 'exclusive:b', value: 'v2', holderUid: 'res_1' });
      await tx.replaceRelations('res_1', [
        { pointer: '/t', relation: '/t', target: { ...address, name: 't' }, targetUid: 'res_t', targetFormRef: resource.formRef, bindingRef: undefined },
      ]);
    });
    await expect(store.transaction((tx) => tx.saveReservation({ tenant: 'tenant-a', namespace: 'claim:a', value: 'v1', holderUid: 'res_1' }))).rejects.toThrow(
      /unique/i,
    );
    await store.transaction((tx) => tx.releaseReservations('res_1', 'claim:'));
    expect((await store.transaction((tx) => tx.reservationsHeldBy('res_1'))).map((r) => r.namespace)).toEqual(['exclusive:b']);
    expect(await store.transaction((tx) => tx.relationsTargetingUid('res_t'))).toMatchObject([{ sourceUid: 'res_1', pointer: '/t' }]);
    await store.transaction((tx) => tx.deleteResource('res_1'));
    expect(await store.transaction((tx) => tx.reservationsHeldBy('res_1'))).toEqual([]);
    expect(await store.transaction((tx) => tx.relationsTargetingUid('res_t'))).toEqual([]);
  });

  it('keeps blobs, holdings, manifests and upload sessions per tenant', async () => {
    const { store } = await fresh();
    const digest = `sha256:${'5'.repeat(64)}`;
    await store.transaction(async (tx) => {
      await tx.saveBlob(digest, Buffer.from([0, 1, 255]));
      await tx.saveBlob(digest, Buffer.from([0, 1, 255]));
      await tx.grantBlob('tenant-a', digest);
      await tx.grantManifest('tenant-a', digest, '{"m":1}');
      await tx.saveUpload({ id: 'up_1', tenant: 'tenant-a', principal: 'alice', manifestDigest: digest, manifest: '{}', state: 'open' });
    });
    expect(await store.transaction((tx) => tx.hasBlobBytes(digest))).toBe(true);
    expect(await store.transaction((tx) => tx.holdsBlob('tenant-b', digest))).toBe(false);
    expect(await store.transaction((tx) => tx.findManifest('tenant-a', digest))).toBe('{"m":1}');
    expect((await store.transaction((tx) => tx.findOpenUpload('tenant-a', 'alice', digest)))?.id).toBe('up_1');
    await store.transaction(async (tx) => tx.saveUpload({ ...(await tx.findUpload('up_1'))!, state: 'committed' }));
    expect(await store.transaction((tx) => tx.findOpenUpload('tenant-a', 'alice', digest))).toBeUndefined();
  });

  it('persists across reopening and refuses a database from a newer schema', async () => {
    const { location, store } = await fresh();
    await store.transaction(async (tx) => {
      await tx.insertResource(resource);
      await tx.savePrepareBinding({ digest: `sha256:${'4'.repeat(64)}`, tenant: 'tenant-a', payload: '{}' });
    });
    await store.close();
    const second = await another(location);
    expect((await second.transaction((tx) => tx.findResource(address)))?.uid).toBe('res_1');
    expect(await second.transaction((tx) => tx.findPrepareBinding(`sha256:${'4'.repeat(64)}`, 'tenant-b'))).toBeUndefined();
    await second.close();
    await engine.inspect(location);
    await engine.forgeNewerSchema(location);
    await expect(engine.open(location)).rejects.toThrow(/newer than this Host/);
  });

  it('makes a check-then-write atomic: of many concurrent transactions exactly one wins', async () => {
    const { store } = await fresh();
    const attempts = Array.from({ length: 10 }, (_, index) =>
      store.transaction(async (tx) => {
        if ((await tx.findReservation('tenant-a', 'claim:x', 'v')) !== undefined) return false;
        if ((await tx.findResource(address)) !== undefined) return false;
        await sleep(5);
        await tx.insertResource({ ...resource, uid: `res_${index}` });
        await tx.saveReservation({ tenant: 'tenant-a', namespace: 'claim:x', value: 'v', holderUid: `res_${index}` });
        return true;
      }),
    );
    expect((await Promise.all(attempts)).filter(Boolean)).toHaveLength(1);
  });

  // Only engines that serve several processes claim this one (declared, not skipped, for them).
  const shared = engine.shared ? it : () => undefined;

  shared('is atomic across two stores on one database (two Host processes)', async () => {
    const { location, store } = await fresh();
    const other = await another(location);
    const attempts = Array.from({ length: 12 }, (_, index) =>
      (index % 2 === 0 ? store : other).transaction(async (tx) => {
        if ((await tx.findIdempotencyRecord(record('k', undefined).scope)) !== undefined) return 'replay';
        if ((await tx.findReservation('tenant-a', 'exclusive:y', 'v')) !== undefined) return 'refused';
        await sleep(5);
        await tx.insertResource({ ...resource, uid: `res_${index}`, address: { ...address, name: `n${index}` } });
        await tx.saveReservation({ tenant: 'tenant-a', namespace: 'exclusive:y', value: 'v', holderUid: `res_${index}` });
        await tx.saveIdempotencyRecord(record('k', `res_${index}`));
        return 'won';
      }),
    );
    const outcomes = await Promise.all(attempts);
    expect(outcomes.filter((o) => o === 'won')).toHaveLength(1);
    const winner = outcomes.indexOf('won');
    const stored = await Promise.all(outcomes.map((_, index) => other.transaction((tx) => tx.findResource({ ...address, name: `n${index}` }))));
    expect(stored.map((found) => found?.uid)).toEqual(outcomes.map((_, index) => (index === winner ? `res_${index}` : undefined)));
    expect((await store.transaction((tx) => tx.findIdempotencyRecord(record('k', undefined).scope)))?.boundUid).toBe(`res_${winner}`);
  });

  it('never overlaps transactions of one queue key, also across two stores; a failed one does not block the queue', async () => {
    const { location, store } = await fresh();
    const other = engine.shared ? await another(location) : store;
    let active = 0;
    let most = 0;
    const work = (fail: boolean) => async () => {
      active += 1;
      most = Math.max(most, active);
      await sleep(5);
      active -= 1;
      if (fail) throw new Error('refused');
      return true;
    };
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, index) => (index % 2 === 0 ? store : other).transaction(work(index === 3), { queue: 'tenant-a' })),
    );
    expect(most).toBe(1);
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(1);
    // Other keys (and no key) are not held back by it.
    most = 0;
    await Promise.all([store.transaction(work(false), { queue: 'tenant-a' }), other.transaction(work(false), { queue: 'tenant-b' })]);
    expect(most).toBe(engine.shared ? 2 : 1);
  });

  it('hands out each sequence value once, also to two stores at once', async () => {
    const { location, store } = await fresh();
    const other = engine.shared ? await another(location) : store;
    const values = await Promise.all(
      Array.from({ length: 20 }, (_, index) => (index % 2 === 0 ? store : other).transaction((tx) => tx.nextSequence('tenant-a', 'ordinal'))),
    );
    expect([...values].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, index) => index + 1));
    expect(await store.transaction((tx) => tx.nextSequence('tenant-b', 'ordinal'))).toBe(1);
  });

  it('leases an Operation to one holder until it expires, is released, or the Operation ends', async () => {
    const { store } = await fresh();
    await store.transaction(async (tx) => {
      await tx.saveOperation(operation('op_a'));
      await tx.saveOperation(operation('op_b'));
    });
    expect(await store.transaction((tx) => tx.acquireOperationLease('op_a', 'host_1', 60_000))).toBe(true);
    expect(await store.transaction((tx) => tx.acquireOperationLease('op_a', 'host_2', 60_000))).toBe(false);
    expect(await store.transaction((tx) => tx.acquireOperationLease('op_a', 'host_1', 60_000))).toBe(true);
    // Saving the Operation (a poll counting down) keeps its lease.
    await store.transaction(async (tx) => tx.saveOperation({ ...(await tx.findOperation('op_a'))!, pollsLeft: 0 }));
    expect(await store.transaction((tx) => tx.acquireOperationLease('op_a', 'host_2', 60_000))).toBe(false);

    // Only requested Operations are due; a live lease keeps them with their holder.
    expect(await store.transaction((tx) => tx.dueOperations('host_2', 10))).toEqual([]);
    await store.transaction(async (tx) => {
      await tx.requestOperationCommit('op_a');
      await tx.requestOperationCommit('op_b');
    });
    expect(await store.transaction((tx) => tx.dueOperations('host_1', 10))).toEqual(['op_a', 'op_b']);
    expect(await store.transaction((tx) => tx.dueOperations('host_2', 10))).toEqual(['op_b']);

    // A short lease lapses unless renewed; the heartbeat keeps it (every lease of the holder).
    // Margins are wide: the machine may be busy, and only the order of events matters here.
    expect(await store.transaction((tx) => tx.acquireOperationLease('op_b', 'host_1', 1000))).toBe(true);
    await sleep(500);
    await store.transaction((tx) => tx.renewOperationLeases('host_1', 1000));
    await sleep(600);
    expect(await store.transaction((tx) => tx.acquireOperationLease('op_b', 'host_2', 60_000))).toBe(false);
    await sleep(1200);
    expect(await store.transaction((tx) => tx.dueOperations('host_2', 10))).toEqual(['op_a', 'op_b']);
    expect(await store.transaction((tx) => tx.acquireOperationLease('op_b', 'host_2', 60_000))).toBe(true);

    // A clean shutdown releases at once; a terminal Operation is no longer due.
    await store.transaction((tx) => tx.releaseOperationLeases('host_1'));
    expect(await store.transaction((tx) => tx.acquireOperationLease('op_a', 'host_2', 60_000))).toBe(true);
    await store.transaction(async (tx) => tx.saveOperation({ ...(await tx.findOperation('op_a'))!, pending: undefined, document: '{"done":true}' }));
    expect(await store.transaction((tx) => tx.dueOperations('host_2', 10))).toEqual(['op_b']);
    expect(await store.transaction((tx) => tx.findOperation('op_a'))).toEqual({ ...operation('op_a'), pending: undefined, document: '{"done":true}' });
  });
});
