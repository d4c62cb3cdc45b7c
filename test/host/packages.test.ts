// Package verification: digests, sizes, identity, duplicates and unimplemented constraint kinds.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jcsDigest, sha256Digest } from '../../src/common/digest.js';
import { FormPackageError, loadFormPackage, loadFormPackages } from '../../src/host/packages.js';
import { EXTERNAL_FAMILY, RANGE_COUNTER_DIR, RANGE_SEQUENCE_DIR, RANGE_SEQUENCE_PACKAGE_DIGEST, RANGE_SEQUENCE_REF } from './support/host-harness.js';

const scratch: string[] = [];

afterEach(() => {
  for (const directory of scratch.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** A writable copy of a package under a fresh folder; returns the copy's directory. */
function copyPackage(source: string, name = path.basename(source), parent?: string): string {
  const root = parent ?? mkdtempSync(path.join(os.tmpdir(), 'takoform-packages-'));
  if (parent === undefined) scratch.push(root);
  const target = path.join(root, name);
  cpSync(source, target, { recursive: true });
  return target;
}

/** Rewrites a package's definition and re-signs its index so only `edit` differs. */
function editDefinition(directory: string, edit: (definition: Record<string, unknown>) => void): void {
  const definitionPath = path.join(directory, 'definition.json');
  const definition = JSON.parse(readFileSync(definitionPath, 'utf8')) as Record<string, unknown>;
  edit(definition);
  const bytes = Buffer.from(JSON.stringify(definition, null, 2));
  writeFileSync(definitionPath, bytes);
  const indexPath = path.join(directory, 'package-index.json');
  const index = JSON.parse(readFileSync(indexPath, 'utf8'));
  index.formRef.schemaDigest = jcsDigest(definition);
  index.files[0] = { ...index.files[0], size: bytes.length, digest: sha256Digest(bytes) };
  writeFileSync(indexPath, JSON.stringify(index, null, 2));
}

describe('loadFormPackage', () => {
  it('verifies a package and computes its packageDigest', () => {
    const loaded = loadFormPackage(RANGE_SEQUENCE_DIR);
    expect(loaded.formRef).toEqual(RANGE_SEQUENCE_REF);
    expect(loaded.packageDigest).toBe(RANGE_SEQUENCE_PACKAGE_DIGEST);
    expect(loaded.definition.lifecycleCapabilities).toContain('update');
  });

  it('refuses a listed file whose bytes changed', () => {
    const copy = copyPackage(RANGE_SEQUENCE_DIR);
    const file = path.join(copy, 'definition.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"safe"', '"SAFE"'));
    expect(() => loadFormPackage(copy)).toThrow(/definition\.json has digest sha256:[0-9a-f]{64}, but the index says/);
  });

  it('refuses a formRef that names another Definition', () => {
    const copy = copyPackage(RANGE_SEQUENCE_DIR);
    const indexPath = path.join(copy, 'package-index.json');
    const index = JSON.parse(readFileSync(indexPath, 'utf8'));
    index.formRef.schemaDigest = `sha256:${'0'.repeat(64)}`;
    writeFileSync(indexPath, JSON.stringify(index));
    expect(() => loadFormPackage(copy)).toThrow(FormPackageError);
    expect(() => loadFormPackage(copy)).toThrow(/but formRef\.schemaDigest is/);
  });

  it('reads Definitions declaring any of the ten constraint kinds', () => {
    expect(loadFormPackage(path.join(EXTERNAL_FAMILY, 'counter-lease')).definition.constraints).toEqual([
      { kind: 'exclusive', reference: '/target', keyedBy: undefined },
    ]);
    expect(() => loadFormPackage(RANGE_COUNTER_DIR)).not.toThrow();
  });
});

describe('loadFormPackages', () => {
  it('loads a folder of packages and ignores files that are not packages', () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'takoform-packages-'));
    scratch.push(root);
    copyPackage(RANGE_SEQUENCE_DIR, 'range-sequence', root);
    copyPackage(RANGE_COUNTER_DIR, 'range-counter', root);
    cpSync(path.join(EXTERNAL_FAMILY, 'constraint-node-interface.json'), path.join(root, 'constraint-node-interface.json'));
    const kinds = loadFormPackages([root]).map((loaded) => loaded.formRef.kind);
    expect(kinds.sort()).toEqual(['RangeCounter', 'RangeSequence']);
  });

  it('keeps one copy of a Definition installed twice', () => {
    const copy = copyPackage(RANGE_SEQUENCE_DIR);
    expect(loadFormPackages([RANGE_SEQUENCE_DIR, copy])).toHaveLength(1);
  });

  it('refuses two Definitions with one group, kind and version but different digests', () => {
    const copy = copyPackage(RANGE_SEQUENCE_DIR);
    editDefinition(copy, (definition) => {
      definition.title = 'A different RangeSequence 0.1.0';
    });
    expect(() => loadFormPackage(copy)).not.toThrow();
    expect(() => loadFormPackages([RANGE_SEQUENCE_DIR, copy])).toThrow(/cannot carry two schema digests/);
  });

  it('refuses a directory that holds no package', () => {
    const empty = mkdtempSync(path.join(os.tmpdir(), 'takoform-packages-'));
    scratch.push(empty);
    expect(() => loadFormPackages([empty])).toThrow(/holds no package-index\.json/);
  });
});
