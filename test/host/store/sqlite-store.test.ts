// The SQLite store: round trips, name uniqueness across versions, savepoints, retirement of
// idempotency records with their incarnation, persistence and schema versioning.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteHostStore } from '../../../src/host/store/sqlite-store.js';
import type { IdempotencyRecord, StoredResource } from '../../../src/host/store/store.js';

const scratch: string[] = [];

afterEach(() => {
  for (const directory of scratch.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function databasePath(): string {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'takoform-store-'));
  scratch.push(directory);
  return path.join(directory, 'host.db');
}

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

describe('SqliteHostStore', () => {
  it('round-trips a resource and keeps generation strings beyond 2^53 exact', async () => {
    const store = SqliteHostStore.open(':memory:');
    const big = { ...resource, generation: '9223372036854775807' };
    await store.transaction((tx) => tx.insertResource(big));
    expect(await store.transaction((tx) => tx.findResource(address))).toEqual(big);
    store.close();
  });

  it('keeps one name per tenant, space, group and kind across definition versions', async () => {
    const store = SqliteHostStore.open(':memory:');
    await store.transaction((tx) => tx.insertResource(resource));
    const otherVersion = { ...resource, uid: 'res_2', formRef: { ...resource.formRef, definitionVersion: '0.2.0' } };
    await expect(store.transaction((tx) => tx.insertResource(otherVersion))).rejects.toThrow(/UNIQUE/);
    await store.transaction((tx) => tx.insertResource({ ...otherVersion, address: { ...address, tenant: 'tenant-b' } }));
    store.close();
  });

  it('rolls back a savepoint without losing the enclosing transaction', async () => {
    const store = SqliteHostStore.open(':memory:');
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
    store.close();
  });

  it('retires idempotency records bound to a deleted incarnation, and only those', async () => {
    const store = SqliteHostStore.open(':memory:');
    await store.transaction(async (tx) => {
      await tx.insertResource(resource);
      await tx.saveIdempotencyRecord(record('bound', 'res_1'));
      await tx.saveIdempotencyRecord(record('unbound', undefined));
    });
    await store.transaction((tx) => tx.deleteResource('res_1'));
    expect(await store.transaction((tx) => tx.findIdempotencyRecord(record('bound', 'res_1').scope))).toBeUndefined();
    expect(await store.transaction((tx) => tx.findIdempotencyRecord(record('unbound', undefined).scope))).toMatchObject({
      status: 201,
      etag: '"1"',
    });
    store.close();
  });

  it('persists to a WAL file and refuses a database from a newer schema', async () => {
    const file = databasePath();
    const first = SqliteHostStore.open(file);
    await first.transaction(async (tx) => {
      await tx.insertResource(resource);
      await tx.savePrepareBinding({ digest: `sha256:${'4'.repeat(64)}`, tenant: 'tenant-a', payload: '{}' });
    });
    first.close();
    const second = SqliteHostStore.open(file);
    expect((await second.transaction((tx) => tx.findResource(address)))?.uid).toBe('res_1');
    expect(await second.transaction((tx) => tx.findPrepareBinding(`sha256:${'4'.repeat(64)}`, 'tenant-b'))).toBeUndefined();
    second.close();

    const raw = new Database(file);
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    raw.pragma('user_version = 99');
    raw.close();
    expect(() => SqliteHostStore.open(file)).toThrow(/newer than this Host/);
  });

  it('serializes concurrent async transactions: a check-then-write is never interleaved', async () => {
    const store = SqliteHostStore.open(':memory:');
    const attempts = Array.from({ length: 10 }, (_, index) =>
      store.transaction(async (tx) => {
        if ((await tx.findResource(address)) !== undefined) return false;
        await new Promise((resolve) => setTimeout(resolve, 5));
        await tx.insertResource({ ...resource, uid: `res_${index}` });
        return true;
      }),
    );
    expect((await Promise.all(attempts)).filter(Boolean)).toHaveLength(1);
    store.close();
  });
});
