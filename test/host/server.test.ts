// startHost itself: loopback-only binding, persistence across a restart on the same database
// file, refusing bad configuration before binding, and clean shutdown.
import { afterEach, describe, expect, it } from 'vitest';
import { startHost } from '../../src/host/server.js';
import {
  API,
  EXTERNAL_FAMILY,
  RANGE_SEQUENCE_DIR,
  RANGE_SEQUENCE_REF,
  TOKENS,
  exactQuery,
  resourceDocument,
  resourcePath,
  TEST_STORE,
  startTestHost,
  type TestHost,
} from './support/host-harness.js';
import pg from 'pg';

const hosts: TestHost[] = [];

afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.dispose()));
});

async function createRangeSequence(subject: TestHost): Promise<void> {
  const prepared = await subject.call('POST', `${API}/resources/prepare`, {
    body: resourceDocument(RANGE_SEQUENCE_REF, 'range-sequence', { lower: 3, upper: 6 }),
  });
  const { review } = prepared.json as { review: { prepareDigest: string } };
  const created = await subject.call('PUT', resourcePath(RANGE_SEQUENCE_REF, 'range-sequence'), {
    body: { ...resourceDocument(RANGE_SEQUENCE_REF, 'range-sequence', { lower: 3, upper: 6 }), review },
    headers: { 'if-none-match': '*', 'idempotency-key': 'create-once' },
  });
  expect(created.status).toBe(201);
}

describe('startHost', () => {
  it('runs on the store of its test project (SQLite file, or a PostgreSQL database the Host migrated)', async () => {
    const subject = await startTestHost();
    hosts.push(subject);
    await createRangeSequence(subject);
    if (TEST_STORE === 'sqlite') {
      expect(subject.dbPath).toMatch(/host\.db$/);
      return;
    }
    expect(subject.dbPath).toMatch(/^postgres:\/\//);
    const client = new pg.Client({ connectionString: subject.dbPath });
    await client.connect();
    const names = (await client.query<{ name: string }>('SELECT name FROM resources')).rows.map((row) => row.name);
    await client.end();
    expect(names).toEqual(['range-sequence']);
  });

  it('keeps resources, prepare bindings and replay records across a restart', async () => {
    const first = await startTestHost();
    hosts.push(first);
    await createRangeSequence(first);
    const target = `${resourcePath(RANGE_SEQUENCE_REF, 'range-sequence')}?${exactQuery(RANGE_SEQUENCE_REF)}`;
    const before = await first.call('GET', target);
    // A prepare minted before the restart must still be spendable after it.
    const prepared = await first.call('POST', `${API}/resources/prepare`, {
      body: resourceDocument(RANGE_SEQUENCE_REF, 'range-sequence', { lower: 4, upper: 6 }),
      headers: { 'takoform-expected-generation': '1' },
    });
    await first.stop();

    const second = await startTestHost({ dbPath: first.dbPath });
    hosts.push(second);
    const after = await second.call('GET', target);
    expect(after.status).toBe(200);
    expect(after.text).toBe(before.text);
    expect(after.headers.get('etag')).toBe('"1"');

    const { review } = prepared.json as { review: { prepareDigest: string } };
    const updated = await second.call('PUT', resourcePath(RANGE_SEQUENCE_REF, 'range-sequence'), {
      body: { ...resourceDocument(RANGE_SEQUENCE_REF, 'range-sequence', { lower: 4, upper: 6 }), review },
      headers: { 'takoform-expected-generation': '1', 'idempotency-key': 'update-after-restart' },
    });
    expect(updated.status).toBe(200);
    expect(updated.json).toMatchObject({ metadata: { generation: '2', revision: '2' } });
  });

  it('counts requests and serves on an ephemeral loopback port', async () => {
    const subject = await startTestHost({ dbPath: ':memory:' });
    hosts.push(subject);
    expect(subject.host.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await subject.call('GET', '/.well-known/takoform/v1');
    await subject.call('GET', `${API}/forms`);
    expect(subject.host.requestCount()).toBe(2);
  });

  it('refuses a non-loopback listen address over plain HTTP', async () => {
    await expect(startHost({ listen: { host: '0.0.0.0', port: 0 }, dbPath: ':memory:', packageDirs: [RANGE_SEQUENCE_DIR], tokens: TOKENS })).rejects.toThrow(
      /loopback/,
    );
  });

  it('starts with the whole external-family folder (20 Forms, an Interface and a Binding)', async () => {
    const host = await startHost({ listen: { host: '127.0.0.1', port: 0 }, dbPath: ':memory:', packageDirs: [EXTERNAL_FAMILY], tokens: TOKENS });
    await host.close();
  });

  it('closes idempotently and stops answering', async () => {
    const subject = await startTestHost({ dbPath: ':memory:' });
    hosts.push(subject);
    await subject.host.close();
    await subject.host.close();
    await expect(fetch(`${subject.host.url}/.well-known/takoform/v1`)).rejects.toThrow();
  });
});
