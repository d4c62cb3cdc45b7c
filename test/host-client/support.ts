// A real reference Host on a loopback port with a temporary database, for client tests.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startHost, type RunningHost } from '../../src/host/server.js';
import { GENERIC_FORMS } from '../support/paths.js';

export const TOKEN_A = 'client-test-token-tenant-a';
export const TOKEN_B = 'client-test-token-tenant-b';

export const RANGE_SEQUENCE = {
  apiVersion: 'resources.publisher.example',
  kind: 'RangeSequence',
  definitionVersion: '0.1.0',
  schemaDigest: 'sha256:c23a0ad83fc1c32667ec9780bca3be4323990de9a2bb5bc00da9b61f1ec7e390',
} as const;

export async function startTestHost(): Promise<RunningHost> {
  const dir = mkdtempSync(path.join(tmpdir(), 'client-host-'));
  return startHost({
    listen: { host: '127.0.0.1', port: 0 },
    dbPath: path.join(dir, 'host.db'),
    packageDirs: [path.join(GENERIC_FORMS, 'range-sequence'), path.join(GENERIC_FORMS, 'range-counter')],
    tokens: [
      { token: TOKEN_A, tenant: 'tenant-a', principal: 'alice' },
      { token: TOKEN_B, tenant: 'tenant-b', principal: 'bob' },
    ],
  });
}
