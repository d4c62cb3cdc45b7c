// Starts a real takoform-host on 127.0.0.1:0 and talks to it with plain fetch, exactly as a
// remote client would. Shared by the HTTP-level tests. The store is a temporary SQLite file, or,
// in the "postgres" test project (vitest.config.ts sets TAKOFORM_TEST_STORE=postgres), a fresh
// database on the run's PostgreSQL server: the same suites then prove the Host on PostgreSQL.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { startHost, type HostOptions, type RunningHost, type TokenEntry } from '../../../src/host/server.js';

export const EXTERNAL_FAMILY = path.resolve(process.cwd(), '../shared/data/takoform/conformance/takoform-v1/generic-host/external-family');
export const RANGE_SEQUENCE_DIR = path.join(EXTERNAL_FAMILY, 'range-sequence');
export const RANGE_COUNTER_DIR = path.join(EXTERNAL_FAMILY, 'range-counter');
export const RANGE_COUNTER_V2_DIR = path.join(EXTERNAL_FAMILY, 'range-counter-v0-2');

export const API = '/apis/forms.takoform.com/v1';

export const TOKEN_A = 'tenant-a-token';
export const TOKEN_A_SECOND_PRINCIPAL = 'tenant-a-second-token';
export const TOKEN_B = 'tenant-b-token';
export const TOKENS: TokenEntry[] = [
  { token: TOKEN_A, tenant: 'tenant-a', principal: 'alice' },
  { token: TOKEN_A_SECOND_PRINCIPAL, tenant: 'tenant-a', principal: 'bob' },
  { token: TOKEN_B, tenant: 'tenant-b', principal: 'carol' },
];

export const RANGE_SEQUENCE_REF = {
  apiVersion: 'resources.publisher.example',
  kind: 'RangeSequence',
  definitionVersion: '0.1.0',
  schemaDigest: 'sha256:c23a0ad83fc1c32667ec9780bca3be4323990de9a2bb5bc00da9b61f1ec7e390',
};
export const RANGE_SEQUENCE_PACKAGE_DIGEST = 'sha256:f8189eaba052d4eec252f744d83ac74107c24cb2d32203059fbab0ca4b7a40c8';
export const RANGE_COUNTER_REF = {
  apiVersion: 'resources.publisher.example',
  kind: 'RangeCounter',
  definitionVersion: '0.1.0',
  schemaDigest: 'sha256:0c1f2f3fc0bc03d5a528aa286e50df3fa1a2b735da9690e6fe20c999115c9c36',
};

export interface HostAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The parsed body; undefined when the body is empty. */
  readonly json: unknown;
}

export interface CallOptions {
  /** Bearer token; null sends no Authorization header. Defaults to tenant-a. */
  token?: string | null;
  headers?: Record<string, string>;
  /** A value is sent as JSON; a string or bytes are sent as they are (still application/json). */
  body?: unknown;
}

export interface TestHost {
  readonly host: RunningHost;
  readonly dbPath: string;
  call(method: string, target: string, options?: CallOptions): Promise<HostAnswer>;
  /** Closes the Host (the database file stays until `dispose`). */
  stop(): Promise<void>;
  dispose(): Promise<void>;
}

/** Which store the HTTP suites run on in this test project. */
export const TEST_STORE: 'sqlite' | 'postgres' = process.env.TAKOFORM_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

/**
 * A fresh, empty database for a Host of this test project: a PostgreSQL URL, or a SQLite file
 * path inside `directory`.
 */
export async function testDatabase(directory: string): Promise<string> {
  if (TEST_STORE === 'sqlite') return path.join(directory, 'host.db');
  const admin = inject('postgresAdminUrl');
  const name = `host_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function startTestHost(options: Partial<HostOptions> = {}): Promise<TestHost> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'takoform-host-test-'));
  const dbPath = options.dbPath ?? (await testDatabase(directory));
  const host = await startHost({
    listen: { host: '127.0.0.1', port: 0 },
    dbPath,
    packageDirs: [RANGE_SEQUENCE_DIR, RANGE_COUNTER_DIR],
    tokens: TOKENS,
    ...options,
  });
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (!stopped) await host.close();
    stopped = true;
  };
  return {
    host,
    dbPath,
    call: (method, target, callOptions) => call(host.url, method, target, callOptions),
    stop,
    dispose: async () => {
      await stop();
      if (options.dbPath === undefined) rmSync(directory, { recursive: true, force: true });
    },
  };
}

export async function call(origin: string, method: string, target: string, options: CallOptions = {}): Promise<HostAnswer> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const token = options.token === undefined ? TOKEN_A : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  let body: string | Uint8Array | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' || options.body instanceof Uint8Array ? options.body : JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  Object.assign(headers, options.headers);
  const response = await fetch(new URL(target, origin), { method, headers, body, redirect: 'manual' });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: text === '' ? undefined : JSON.parse(text) };
}

/** Deterministic uids in the style of the wire reference's examples: res_range_sequence_1, … */
export function sequentialUids(): HostOptions['mintUid'] {
  const counts = new Map<string, number>();
  return (address) => {
    const count = (counts.get(address.name) ?? 0) + 1;
    counts.set(address.name, count);
    return `res_${address.name.replace(/-/g, '_')}_${count}`;
  };
}

/** The resource core for `ref`, `name` and `spec` in space "demo". */
export function resourceDocument(ref: typeof RANGE_SEQUENCE_REF, name: string, spec: unknown, space = 'demo') {
  return {
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    form: { formRef: ref },
    metadata: { name, space },
    spec,
  };
}

export function resourcePath(ref: typeof RANGE_SEQUENCE_REF, name: string): string {
  return `${API}/resources/${ref.apiVersion}/${ref.kind}/${name}`;
}

export function exactQuery(ref: typeof RANGE_SEQUENCE_REF, space = 'demo'): string {
  return new URLSearchParams({ space, definitionVersion: ref.definitionVersion, schemaDigest: ref.schemaDigest }).toString();
}

/** The error envelope's code, or undefined when the body is not one. */
export function errorCode(answer: HostAnswer): string | undefined {
  const body = answer.json as { error?: { code?: string } } | undefined;
  return body?.error?.code;
}
