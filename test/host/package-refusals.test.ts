// Start-up with several bad packages reports every refusal (each with its path), through the
// library and the real executable; a Form whose contracts nothing installed satisfies installs
// with a warning naming what is missing.
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jcsDigest, sha256Digest } from '../../src/common/digest.js';
import { FormCatalog } from '../../src/host/catalog.js';
import { ContractCatalog } from '../../src/host/contract-documents.js';
import { unsatisfiedContracts } from '../../src/host/contract-coverage.js';
import { FormPackageRefusals, loadFormPackages } from '../../src/host/packages.js';
import { startHost } from '../../src/host/server.js';
import { startHostProcess } from '../support/host-process.js';
import { HOST_BUNDLE, requireFile } from '../support/paths.js';
import { EXTERNAL_FAMILY, RANGE_COUNTER_DIR, RANGE_SEQUENCE_DIR, TOKENS } from './support/host-harness.js';

const scratch: string[] = [];
afterEach(() => {
  for (const directory of scratch.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function folder(): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'takoform-refusals-'));
  scratch.push(root);
  return root;
}

/** A folder with a good package and two broken ones (changed bytes; a formRef naming another digest). */
function folderWithTwoBadPackages(): { root: string; badBytes: string; badRef: string } {
  const root = folder();
  cpSync(RANGE_SEQUENCE_DIR, path.join(root, 'good'), { recursive: true });
  const badBytes = path.join(root, 'bad-bytes');
  cpSync(RANGE_COUNTER_DIR, badBytes, { recursive: true });
  const definition = path.join(badBytes, 'definition.json');
  writeFileSync(definition, readFileSync(definition, 'utf8') + ' ');
  const badRef = path.join(root, 'bad-ref');
  cpSync(path.join(EXTERNAL_FAMILY, 'range-gauge'), badRef, { recursive: true });
  const indexPath = path.join(badRef, 'package-index.json');
  const index = JSON.parse(readFileSync(indexPath, 'utf8'));
  index.formRef.schemaDigest = `sha256:${'0'.repeat(64)}`;
  writeFileSync(indexPath, JSON.stringify(index));
  return { root, badBytes, badRef };
}

describe('package refusals', () => {
  it('collects every refusal, each naming its package', () => {
    const { root, badBytes, badRef } = folderWithTwoBadPackages();
    let error: unknown;
    try {
      loadFormPackages([root]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FormPackageRefusals);
    const refusals = (error as FormPackageRefusals).refusals;
    expect(refusals).toHaveLength(2);
    expect(refusals[0]).toContain(path.join(badBytes, 'package-index.json'));
    expect(refusals[0]).toMatch(/definition\.json is \d+ bytes, but the index says/);
    expect(refusals[1]).toContain(path.join(badRef, 'package-index.json'));
    expect(refusals[1]).toMatch(/formRef\.schemaDigest is sha256:0{64}/);
  });

  it('startHost refuses with all of them', async () => {
    const { root } = folderWithTwoBadPackages();
    await expect(startHost({ listen: { host: '127.0.0.1', port: 0 }, dbPath: ':memory:', packageDirs: [root], tokens: TOKENS })).rejects.toMatchObject({
      refusals: [expect.stringContaining('bad-bytes'), expect.stringContaining('bad-ref')],
    });
  });

  it('the real executable logs both refusals and exits 1', async () => {
    const bundle = requireFile(HOST_BUNDLE, 'run `npm run build` first');
    const { root, badBytes, badRef } = folderWithTwoBadPackages();
    const tokens = path.join(root, '..', `${path.basename(root)}-tokens.json`);
    writeFileSync(tokens, JSON.stringify({ tokens: TOKENS }));
    scratch.push(tokens);
    const child = spawn(process.execPath, [bundle, 'serve', '--db', ':memory:', '--tokens', tokens, '--packages', root], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toMatch(/cannot start: 2 package refusals/);
    const refused = stderr.split('\n').filter((l) => l.includes('refused: '));
    expect(refused).toHaveLength(2);
    expect(refused[0]).toContain(badBytes);
    expect(refused[1]).toContain(badRef);
  });
});

describe('contracts nothing installed satisfies', () => {
  it('installs a Form whose required Interface no installed Form provides, with a warning naming it', async () => {
    const lines: string[] = [];
    const host = await startHost({
      listen: { host: '127.0.0.1', port: 0 },
      dbPath: ':memory:',
      packageDirs: [path.join(EXTERNAL_FAMILY, 'constraint-member')],
      tokens: TOKENS,
      log: (l) => lines.push(l),
    });
    try {
      expect(host.warnings).toHaveLength(1);
      expect(host.warnings[0]).toContain(path.join(EXTERNAL_FAMILY, 'constraint-member'));
      expect(host.warnings[0]).toMatch(/requires Interface publisher\.constraintnode@0\.1\.0.*which no installed Form provides/);
      expect(lines.some((l) => l.startsWith('warning: ') && l.includes('publisher.constraintnode'))).toBe(true);
    } finally {
      await host.close();
    }
  });

  it('the real executable logs the warning and serves', async () => {
    const host = await startHostProcess([path.join(EXTERNAL_FAMILY, 'constraint-member')]);
    try {
      // The log is written in batches (at most 10 ms late).
      await expect.poll(() => host.stderr()).toMatch(/takoform-host: warning: \S+constraint-member: .*requires Interface publisher\.constraintnode@0\.1\.0/);
      expect((await fetch(`${host.url}/.well-known/takoform/v1`)).status).toBe(200);
    } finally {
      await host.stop();
    }
  });

  it('says nothing when the providing Form is installed too', async () => {
    const host = await startHost({
      listen: { host: '127.0.0.1', port: 0 },
      dbPath: ':memory:',
      packageDirs: [path.join(EXTERNAL_FAMILY, 'constraint-member'), path.join(EXTERNAL_FAMILY, 'constraint-node')],
      tokens: TOKENS,
    });
    try {
      expect(host.warnings).toEqual([]);
    } finally {
      await host.close();
    }
  });

  it('names an accepted Binding whose Binding Definition is not installed', () => {
    const root = folder();
    const copy = path.join(root, 'range-sequence');
    cpSync(RANGE_SEQUENCE_DIR, copy, { recursive: true });
    const binding = { apiVersion: 'bindings.takoform.com/v1alpha2', name: 'publisher.attach', version: '0.1.0', schemaDigest: `sha256:${'1'.repeat(64)}` };
    const definitionPath = path.join(copy, 'definition.json');
    const definition = JSON.parse(readFileSync(definitionPath, 'utf8'));
    definition.acceptedBindings = [binding];
    const bytes = Buffer.from(JSON.stringify(definition, null, 2));
    writeFileSync(definitionPath, bytes);
    const indexPath = path.join(copy, 'package-index.json');
    const index = JSON.parse(readFileSync(indexPath, 'utf8'));
    index.formRef.schemaDigest = jcsDigest(definition);
    index.files[0] = { ...index.files[0], size: bytes.length, digest: sha256Digest(bytes) };
    writeFileSync(indexPath, JSON.stringify(index, null, 2));
    const catalog = FormCatalog.install(loadFormPackages([copy]));
    expect(unsatisfiedContracts(catalog, new ContractCatalog([], []))).toEqual([
      expect.stringMatching(/accepts Binding publisher\.attach@0\.1\.0.*whose Binding Definition is not installed/),
    ]);
  });
});
